#pragma once
// gpuhash-server's command line: memcached 1.6's flags (so init scripts and
// tools written for memcached work unchanged) plus gpuhash's own. The one
// source of the server's settings: each layer's part is that layer's own
// settings type, filled here and handed to the layer whole.

#include <cstdint>
#include <string>
#include <vector>

#include "config/tuning.hpp"
#include "engine/engine_settings.hpp"
#include "index/placement.hpp"
#include "net/network_settings.hpp"

namespace gpuhash::server::config {

struct server_options {
  net::network_settings network;   ///< -l -p -s -a -c -t -v -I -Y -Z -o ssl_* ...
  engine::engine_settings engine;  ///< -m -M -f -n -I -A -C -F -X, batching
  index::placement index = index::placement::automatic;  ///< --index=auto|gpu|cpu
  index::auto_settings index_auto;  ///< --index=auto's: from -m, the shards and -v
  int udp_port = 0;                 ///< -U: 0 (off) is the one value taken: UDP is not served
  std::string run_as_user;          ///< -u
  /// memcached's settings for its own machinery: shown, without effect.
  tuning_settings tuning;

  /// Flags accepted for compatibility but without effect here, one line each
  /// ("-d: daemon mode is not supported; running in the foreground"), for
  /// the server to print at -v.
  std::vector<std::string> ignored;
};

struct parse_outcome {
  enum class action : std::uint8_t { run, print_help, print_version, error };
  action what = action::run;
  server_options options;
  std::string message;  ///< the error (action::error)
};

/// Parses argv as memcached 1.6 does (short and long forms, "-p 11211",
/// "-p11211", "--port=11211", "-o opt1,opt2=value"), and reads the one
/// environment variable memcached reads for its settings,
/// MEMCACHED_PORT_FILENAME (net::listen_settings::port_file).
parse_outcome parse_command_line(int argc, const char* const* argv);

/// The text of -h.
std::string help_text();

}  // namespace gpuhash::server::config
