#pragma once
// gpuhash-server put together: the settings parsed from the command line
// (config/), each layer given its part, the process's privileges and
// signals handled as memcached handles them.

#include "config/options.hpp"
#include "index/index_factory.hpp"

namespace gpuhash::server {

/// Runs the server until a signal or an accepted `shutdown`; the exit
/// status (memcached's, from sysexits.h). Each shard's index comes from
/// `make_index` (main passes the server's; tests their own). Throws
/// std::runtime_error when a socket cannot be opened.
int run_server(const config::server_options& options, const index::index_factory& make_index);

}  // namespace gpuhash::server
