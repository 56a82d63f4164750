#pragma once
// What `stats` shows beyond the engine's own numbers (numbers.hpp), from
// the layers above it: the connections' counters, written by the network's
// threads (atomics), and the process's settings, given once at start.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "index/placement.hpp"

namespace gpuhash::server::engine {

struct connection_counters {
  std::atomic<std::uint64_t> current{0};
  std::atomic<std::uint64_t> most{0};  ///< the most open at once
  std::atomic<std::uint64_t> total{0};
  std::atomic<std::uint64_t> rejected{0};  ///< refused over -c
  std::atomic<std::uint64_t> bytes_read{0};
  std::atomic<std::uint64_t> bytes_written{0};
  std::atomic<std::uint64_t> auth_cmds{0};    ///< -Y: authentication attempts
  std::atomic<std::uint64_t> auth_errors{0};  ///< -Y: failed ones
  std::atomic<std::uint64_t> ssl_handshake_errors{0};
  std::atomic<std::uint64_t> ssl_proto_errors{0};
  /// What the connections' buffers hold now, and how often a connection was
  /// stalled because they held read_buf_mem_limit (net/memory_budget.hpp).
  std::atomic<std::uint64_t> buffer_bytes{0};
  std::atomic<std::uint64_t> buffer_stalls{0};
  /// Times a connection had more requests waiting than its share of a worker
  /// round (-R) and left them for the next round: memcached's conn_yields.
  std::atomic<std::uint64_t> yields{0};
  /// Multi-gets answered "SERVER_ERROR out of memory writing get response"
  /// (net/group_parser.hpp): memcached's response_obj_oom.
  std::atomic<std::uint64_t> multigets_out_of_memory{0};

  /// `stats reset`: the counts (not what is current).
  void reset() noexcept;
};

/// Which of memcached's optional counters `stats` and `stats items` show:
/// memcached shows them by its settings (config::tuning_settings), and so
/// does gpuhash-server, with the same settings.
struct shown_counters {
  bool rejected_connections = true;  ///< maxconns_fast
  bool idle_kicks = false;           ///< idle_timeout set
  bool slab_reassign = true;         ///< slab_reassign_*, slabs_moved
  bool lru_crawler = true;           ///< lru_crawler_running, lru_crawler_starts
  bool lru_maintainer = true;        ///< the segmented LRU's counters
  bool ssl_new_sessions = false;     ///< -Z with ssl_session_cache
};

struct server_stats {
  connection_counters connections;
  std::int64_t started_at = 0;         ///< Unix seconds
  bool tls_enabled = false;            ///< the ssl_* counters are shown, as memcached shows them
  std::int64_t tls_loaded_at = 0;      ///< Unix seconds the certificates were loaded
  std::size_t threads = 4;             ///< -t
  std::size_t max_connections = 1024;  ///< -c
  index::placement index_mode = index::placement::automatic;  ///< --index
  shown_counters shown;
  /// The listening sockets, and the descriptors the network holds besides
  /// its connections (listeners, and each worker's epoll, eventfd and spare
  /// descriptor): memcached's connection_structures counts the first,
  /// reserved_fds the second. Set by the network as it starts.
  std::size_t listeners = 0;
  std::size_t reserved_fds = 0;
  /// `stats settings` lines (name, value), rendered by the server's top.
  std::vector<std::pair<std::string, std::string>> settings;
  /// `stats conns` lines ("STAT <fd>:addr ...\r\n"), from the network.
  std::function<std::string()> describe_connections;
};

inline void connection_counters::reset() noexcept {
  using counters = connection_counters;
  for (auto count :
       {&counters::total, &counters::rejected, &counters::bytes_read, &counters::bytes_written,
        &counters::auth_cmds, &counters::auth_errors, &counters::ssl_handshake_errors,
        &counters::ssl_proto_errors, &counters::buffer_stalls, &counters::yields,
        &counters::multigets_out_of_memory})
    (this->*count) = 0;
}

}  // namespace gpuhash::server::engine
