#pragma once
// `stats settings`: the server's settings as memcached names them, rendered
// once at start from the one settings source.

#include <string>
#include <utility>
#include <vector>

#include "config/options.hpp"

namespace gpuhash::server {

std::vector<std::pair<std::string, std::string>> settings_lines(
    const config::server_options& options);

}  // namespace gpuhash::server
