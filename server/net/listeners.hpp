#pragma once
// The server's listening sockets: a unix socket (-s, with -a's mode), or the
// TCP addresses of -l on -p's port. Opened as memcached opens them: after
// the server has become the user of -u, so that the unix socket belongs to
// that user.

#include <cstdint>
#include <string>
#include <vector>

namespace gpuhash::server::net {

struct listener {
  int fd = -1;
  bool tls = false;  ///< connections accepted here speak TLS
};

struct listen_settings {
  /// Comma separated; an entry is "host", "host:port" or "[v6]:port", and a
  /// "notls:" prefix keeps that listener plaintext when TLS is on.
  std::string addresses = "127.0.0.1";
  std::uint16_t tcp_port = 11211;  ///< 0: the kernel picks one (bound_port says which)
  std::string unix_socket;         ///< non-empty: listen here only
  std::uint32_t unix_socket_mode = 0700;
  bool tls = false;  ///< TCP listeners speak TLS (unless "notls:"): set by the network with -Z
  int backlog = 1024;
};

struct opened_listeners {
  std::vector<listener> sockets;
  std::uint16_t bound_port = 0;  ///< the TCP port bound (0 with a unix socket)
};

/// Binds and listens; throws std::runtime_error naming the address on failure.
opened_listeners open_listeners(const listen_settings& settings);

}  // namespace gpuhash::server::net
