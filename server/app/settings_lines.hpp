#pragma once
// `stats settings`: the server's settings as memcached names them, rendered
// once at start from the one settings source; and which of memcached's
// optional counters those settings show.

#include <string>
#include <utility>
#include <vector>

#include "config/options.hpp"
#include "engine/stats/server_stats.hpp"

namespace gpuhash::server {

std::vector<std::pair<std::string, std::string>> settings_lines(
    const config::server_options& options);

/// Which of memcached's optional counters `stats` shows with these settings
/// (memcached's choice).
engine::shown_counters shown_counters_of(const config::server_options& options);

}  // namespace gpuhash::server
