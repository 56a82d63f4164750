#pragma once
// The server's sockets: listeners (listeners.hpp) and worker threads, each
// running an epoll loop over its connections. epoll rather than libevent or
// io_uring: the loop is small, it needs no dependency, and it runs unchanged
// on the GPU machines (which have no liburing); the engine's batch thread,
// not the system calls, bounds a request's latency.
//
// A connection reads bytes, parses every complete request, hands them to the
// engine as one group, and while the group is out keeps reading into a side
// buffer (the group's requests point into its input). When the group comes
// back (through the worker's eventfd) its replies are written, and parsing
// goes on. A connection on a TLS listener moves its bytes through its TLS
// session (tls.hpp); with -Y it first authenticates (ascii_auth.hpp); what
// its buffers hold is charged to the memory budget (memory_budget.hpp).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "engine/stats/server_stats.hpp"
#include "net/ascii_auth.hpp"
#include "net/listeners.hpp"
#include "net/memory_budget.hpp"
#include "net/network_settings.hpp"
#include "net/tls.hpp"
#include "protocol/request.hpp"

namespace gpuhash::server::net {

/// What the network is given besides its settings, made by the server's
/// top in memcached's order (the TLS context before the server gives up
/// root, the users after); they outlive the network.
struct network_resources {
  /// The TLS context of the listeners marked tls (null: -Z is off).
  const tls_context* tls = nullptr;
  /// -Y's users: connections authenticate before anything else (null: off).
  const auth_file* users = nullptr;
};

class network {
 public:
  network(const network_settings& settings, network_resources resources,
          engine::server_stats& stats);
  ~network();
  network(const network&) = delete;
  network& operator=(const network&) = delete;

  /// Binds the listeners; throws std::runtime_error naming the address.
  void listen();
  /// The TCP port bound (the one asked for, or the kernel's pick for port 0).
  std::uint16_t bound_port() const noexcept { return bound_port_; }
  /// Starts the workers; groups go to `engine`.
  void start(engine::engine& engine);
  /// The engine's completion handler (called on the batch thread).
  void complete(engine::request_group& group, engine::completer by);
  /// `stats conns` lines: the listening sockets', then the connections'.
  std::string describe_connections() const;
  /// A client's accepted `shutdown` came back to its connection.
  bool shutdown_requested() const noexcept { return shutdown_requested_.load(); }
  /// Stops the workers and closes every socket.
  void stop();

 private:
  class worker;
  /// A connection waits for memory: every worker's idle connections give
  /// back what they hold.
  void ask_for_memory();
  worker& next_worker() noexcept {
    return *workers_[next_worker_.fetch_add(1, std::memory_order_relaxed) % workers_.size()];
  }

  network_settings settings_;
  network_resources resources_;
  engine::server_stats& stats_;
  memory_budget budget_;
  std::vector<listener> listeners_;
  std::uint16_t bound_port_ = 0;
  std::vector<std::unique_ptr<worker>> workers_;
  std::atomic<bool> shutdown_requested_{false};
  std::atomic<std::size_t> next_worker_{0};
};

}  // namespace gpuhash::server::net
