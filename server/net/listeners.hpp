#pragma once
// The server's listening sockets: a unix socket (-s, with -a's mode), or the
// TCP addresses of -l on -p's port. Opened as memcached opens them: after
// the server has become the user of -u, so that the unix socket belongs to
// that user.

#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gpuhash::server::net {

struct listener {
  int fd = -1;
  bool tls = false;     ///< connections accepted here speak TLS
  std::string address;  ///< as `stats conns` shows it ("tcp:127.0.0.1:11211", "unix:<path>")
};

struct listen_settings {
  /// Comma separated; an entry is "host", "host:port" or "[v6]:port", and a
  /// "notls:" prefix keeps that listener plaintext when TLS is on.
  std::string addresses = "127.0.0.1";
  /// As memcached's -p: 0 opens no TCP socket; -1 has the kernel pick a
  /// port (the first address's; the other -l addresses take the same).
  int tcp_port = 11211;
  std::string unix_socket;  ///< non-empty: listen here only
  std::uint32_t unix_socket_mode = 0700;
  bool tls = false;    ///< TCP listeners speak TLS (unless "notls:"): set by the network with -Z
  int backlog = 1024;  ///< -b
  /// Where to write the TCP ports bound, as memcached does when
  /// MEMCACHED_PORT_FILENAME is set: a line "TCP INET: <port>" or "TCP INET6:
  /// <port>" per socket, written to "<file>.lck" and renamed to <file> once
  /// all are open (so a reader never sees half of it). Empty: none; none
  /// either with a unix socket.
  std::string port_file;
};

struct opened_listeners {
  std::vector<listener> sockets;
  std::uint16_t bound_port = 0;         ///< the TCP port bound (0 with a unix socket or -p 0)
  std::vector<std::string> port_lines;  ///< the port file's lines, one a TCP socket
};

/// An address as memcached's `stats conns` shows it: "tcp:1.2.3.4:11211",
/// "tcp6:[::1]:11211", "unix:<path>".
std::string address_text(const sockaddr_storage& address);

/// Binds and listens, and writes the port file; throws std::runtime_error
/// naming the address on failure. A port file that cannot be written is
/// reported on stderr and the server goes on, as memcached does.
opened_listeners open_listeners(const listen_settings& settings);

}  // namespace gpuhash::server::net
