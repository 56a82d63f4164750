// Listening sockets (listeners.hpp).

#include "net/listeners.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <arpa/inet.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace gpuhash::server::net {

namespace {

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error(what + ": " + std::strerror(errno));
}

/// The unix socket, made with -a's mode from the start (the umask is set
/// around bind, as memcached does, so the socket is never more open than
/// asked). A file left at the path is replaced only if it is a socket.
listener open_unix_socket(const listen_settings& settings) {
  const std::string& path = settings.unix_socket;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof address.sun_path)
    throw std::runtime_error("unix socket path too long: " + path);
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  struct stat existing {};
  if (lstat(path.c_str(), &existing) == 0 && S_ISSOCK(existing.st_mode)) ::unlink(path.c_str());

  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) fail("socket");
  const mode_t old_mask = umask(static_cast<mode_t>(~settings.unix_socket_mode & 0777));
  const int bound = bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  const int saved = errno;
  umask(old_mask);
  if (bound != 0 || ::listen(fd, settings.backlog) != 0) {
    if (bound != 0) errno = saved;
    const int reason = errno;
    ::close(fd);
    errno = reason;
    fail("failed to listen on unix socket " + path);
  }
  return {fd, false, "unix:" + path};
}

/// One -l entry's sockets (a name may resolve to several addresses).
void open_tcp(std::string entry, const listen_settings& settings, opened_listeners& opened) {
  bool tls = settings.tls;
  if (entry.starts_with("notls:")) {
    entry.erase(0, 6);
    tls = false;
  }
  std::string host = entry;
  // -p -1: the kernel picks the first address's port, the others take it too
  const int wanted = settings.tcp_port == -1 ? 0 : settings.tcp_port;
  std::string port = std::to_string(opened.bound_port != 0 ? opened.bound_port : wanted);
  if (host.starts_with('[')) {  // "[v6]" or "[v6]:port"
    const std::size_t close = host.find(']');
    if (close == std::string::npos) throw std::runtime_error("bad listen address: " + entry);
    if (close + 1 < host.size() && host[close + 1] == ':') port = host.substr(close + 2);
    host = host.substr(1, close - 1);
  } else if (const std::size_t colon = host.rfind(':');
             colon != std::string::npos && host.find(':') == colon) {  // "host:port"
    port = host.substr(colon + 1);
    host = host.substr(0, colon);
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  const int error = getaddrinfo(host.empty() || host == "*" ? nullptr : host.c_str(), port.c_str(),
                                &hints, &found);
  if (error != 0) throw std::runtime_error("cannot resolve " + host + ": " + gai_strerror(error));
  for (addrinfo* info = found; info != nullptr; info = info->ai_next) {
    const int fd = socket(info->ai_family, info->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                          info->ai_protocol);
    if (fd < 0) continue;
    const int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (info->ai_family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on);
    if (bind(fd, info->ai_addr, info->ai_addrlen) != 0 || ::listen(fd, settings.backlog) != 0) {
      const int saved = errno;
      ::close(fd);
      freeaddrinfo(found);
      errno = saved;
      fail("failed to listen on TCP " + host + ":" + port);
    }
    sockaddr_storage bound{};
    socklen_t length = sizeof bound;
    getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length);
    const bool v4 = bound.ss_family == AF_INET;
    opened.bound_port = v4 ? ntohs(reinterpret_cast<sockaddr_in&>(bound).sin_port)
                           : ntohs(reinterpret_cast<sockaddr_in6&>(bound).sin6_port);
    opened.sockets.push_back({fd, tls, address_text(bound)});
    opened.port_lines.push_back((v4 ? "TCP INET: " : "TCP INET6: ") +
                                std::to_string(opened.bound_port));
  }
  freeaddrinfo(found);
}

/// memcached's port file (listeners.hpp): written whole, then renamed.
void write_port_file(const std::string& path, const std::vector<std::string>& lines) {
  const std::string locked = path + ".lck";
  std::FILE* file = std::fopen(locked.c_str(), "a");
  if (file == nullptr) {
    std::fprintf(stderr, "Failed to open \"%s\": %s\n", locked.c_str(), std::strerror(errno));
    return;
  }
  for (const std::string& line : lines) std::fprintf(file, "%s\n", line.c_str());
  if (std::fclose(file) != 0 || std::rename(locked.c_str(), path.c_str()) != 0)
    std::fprintf(stderr, "Failed to write \"%s\": %s\n", path.c_str(), std::strerror(errno));
}

}  // namespace

std::string address_text(const sockaddr_storage& address) {
  char host[INET6_ADDRSTRLEN] = "?";
  if (address.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(address);
    inet_ntop(AF_INET, &v4.sin_addr, host, sizeof host);
    return std::string("tcp:") + host + ":" + std::to_string(ntohs(v4.sin_port));
  }
  if (address.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(address);
    inet_ntop(AF_INET6, &v6.sin6_addr, host, sizeof host);
    return std::string("tcp6:[") + host + "]:" + std::to_string(ntohs(v6.sin6_port));
  }
  const auto& local = reinterpret_cast<const sockaddr_un&>(address);
  // a unix client has no name: memcached shows the address family then
  return local.sun_path[0] != '\0' ? std::string("unix:") + local.sun_path
                                   : "unix:<AF " + std::to_string(address.ss_family) + ">";
}

opened_listeners open_listeners(const listen_settings& settings) {
  opened_listeners opened;
  if (!settings.unix_socket.empty()) {
    opened.sockets.push_back(open_unix_socket(settings));
    return opened;
  }
  std::string rest = settings.tcp_port == 0 ? std::string{} : settings.addresses;
  try {
    while (!rest.empty()) {
      const std::size_t comma = rest.find(',');
      open_tcp(rest.substr(0, comma), settings, opened);
      rest = comma == std::string::npos ? std::string{} : rest.substr(comma + 1);
    }
  } catch (...) {
    for (const listener& each : opened.sockets) ::close(each.fd);
    throw;
  }
  if (opened.sockets.empty() && settings.tcp_port != 0)
    throw std::runtime_error("no address to listen on");
  if (!settings.port_file.empty()) write_port_file(settings.port_file, opened.port_lines);
  return opened;
}

}  // namespace gpuhash::server::net
