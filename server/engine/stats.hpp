#pragma once
// Counters for `stats`. Connection counters are written by the network
// threads (atomics); command counters by the thread running a shard's batch
// only, which is also the thread that answers `stats` for that shard (the
// engine adds the shards' answers up), so they are plain integers.

#include <atomic>
#include <cstdint>

namespace gpuhash::server::engine {

struct connection_counters {
  std::atomic<std::uint64_t> current{0};
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
};

struct command_counters {
  std::uint64_t cmd_get = 0, cmd_set = 0, cmd_flush = 0, cmd_touch = 0, cmd_meta = 0;
  std::uint64_t get_hits = 0, get_misses = 0, get_expired = 0, get_flushed = 0;
  std::uint64_t delete_hits = 0, delete_misses = 0;
  std::uint64_t incr_hits = 0, incr_misses = 0, decr_hits = 0, decr_misses = 0;
  std::uint64_t cas_hits = 0, cas_misses = 0, cas_badval = 0;
  std::uint64_t touch_hits = 0, touch_misses = 0;
  std::uint64_t store_too_large = 0, store_no_memory = 0;
  std::uint64_t total_items = 0;  ///< items stored since start
  std::uint64_t expired_unfetched = 0, evicted_unfetched = 0;
  // index batches
  std::uint64_t batches = 0;
  std::uint64_t batch_operations = 0;  ///< index operations over all batches
  std::uint64_t batch_max_operations = 0;
  /// Time in the index (GPU round trips), all batches; including the work
  /// done during a round trip (shard.cpp) where that took longer.
  std::uint64_t batch_index_ns = 0;
  /// Groups a busy batch thread kept from a batch to send during the next
  /// one's index wait, and how many it sent there (shard.cpp).
  std::uint64_t wait_groups_held = 0, wait_groups_sent = 0;
  /// Batches a submitter ran during another shard's round trip (a request
  /// over several idle shards: engine::later_shards in engine.cpp).
  std::uint64_t batches_overlapped = 0;
  /// The index's device kernel renewed between batches (shard.cpp).
  std::uint64_t kernel_renewals = 0;
  std::uint64_t index_overflow = 0;      ///< entries kept on the host (a signature had 16)
  std::uint64_t index_erase_misses = 0;  ///< must stay 0: an erase that found no entry
  std::uint64_t index_failovers = 0;     ///< GPU failures survived by moving to the CPU
};

struct server_stats {
  connection_counters connections;
  std::int64_t started_at = 0;     ///< Unix seconds
  bool tls_enabled = false;        ///< the ssl_* counters are shown, as memcached shows them
  std::int64_t tls_loaded_at = 0;  ///< Unix seconds the certificates were loaded
};

}  // namespace gpuhash::server::engine
