// `stats` in memcached 1.6.18's format (render.hpp); its classes' lines,
// `stats items` and `stats slabs`, are in render_classes.cpp.

#include "engine/stats/render.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <bit>
#include <cstdio>
#include <string>

#include "engine/commands/reply.hpp"
#include "engine/stats/stat_writer.hpp"

namespace gpuhash::server::engine {

namespace {

std::string seconds_of(const timeval& time) {
  char text[40];
  std::snprintf(text, sizeof text, "%ld.%06ld", static_cast<long>(time.tv_sec),
                static_cast<long>(time.tv_usec));
  return text;
}

/// The process and its connections, up to reserved_fds.
void render_process(std::int64_t now, const server_stats& server, stat_writer& stat) {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const connection_counters& connections = server.connections;
  stat("pid", static_cast<long>(getpid()));
  stat("uptime", now - server.started_at);
  stat("time", now);
  stat("version", server_version);
  stat("libevent", "none");  // the workers run epoll loops of their own
  stat("pointer_size", 8 * sizeof(void*));
  stat("rusage_user", seconds_of(usage.ru_utime));
  stat("rusage_system", seconds_of(usage.ru_stime));
  stat("max_connections", server.max_connections);
  stat("curr_connections", connections.current.load());
  stat("total_connections", connections.total.load());
  if (server.shown.rejected_connections) stat("rejected_connections", connections.rejected.load());
  stat("connection_structures", server.listeners + connections.most.load());
  // memcached's response objects; here replies are built in each group's
  // buffer, and a multi-get is refused as memcached refuses one it has no
  // response objects for
  stat("response_obj_oom", connections.multigets_out_of_memory.load());
  stat("response_obj_count", 0);
  stat("response_obj_bytes", 0);
  stat("read_buf_count", 0);  // the buffers are counted in bytes only
  stat("read_buf_bytes", connections.buffer_bytes.load());
  stat("read_buf_bytes_free", 0);  // freed buffers are not cached
  stat("read_buf_oom", connections.buffer_stalls.load());
  stat("reserved_fds", server.reserved_fds);
}

void render_commands(const shard_numbers& numbers, const server_stats& server, stat_writer& stat) {
  const command_counts& counts = numbers.commands;
  stat("cmd_get", counts.cmd_get);
  stat("cmd_set", counts.cmd_set);
  stat("cmd_flush", counts.cmd_flush);
  stat("cmd_touch", counts.cmd_touch);
  stat("cmd_meta", counts.cmd_meta);
  stat("get_hits", counts.get_hits);
  stat("get_misses", counts.get_misses);
  stat("get_expired", numbers.items.get_expired);
  stat("get_flushed", numbers.items.get_flushed);
  stat("delete_misses", counts.delete_misses);
  stat("delete_hits", counts.delete_hits);
  stat("incr_misses", counts.incr_misses);
  stat("incr_hits", counts.incr_hits);
  stat("decr_misses", counts.decr_misses);
  stat("decr_hits", counts.decr_hits);
  stat("cas_misses", counts.cas_misses);
  stat("cas_hits", counts.cas_hits);
  stat("cas_badval", counts.cas_badval);
  stat("touch_hits", counts.touch_hits);
  stat("touch_misses", counts.touch_misses);
  stat("store_too_large", numbers.items.store_too_large);
  stat("store_no_memory", numbers.items.store_no_memory);
  stat("auth_cmds", server.connections.auth_cmds.load());
  stat("auth_errors", server.connections.auth_errors.load());
  if (server.shown.idle_kicks) stat("idle_kicks", 0);  // idle connections are not closed
}

/// From bytes_read to round_robin_fallback: the network, the index (as
/// memcached's hash table), and memcached's machinery.
void render_machinery(const shard_numbers& numbers, const server_stats& server, stat_writer& stat) {
  const shown_counters& shown = server.shown;
  stat("bytes_read", server.connections.bytes_read.load());
  stat("bytes_written", server.connections.bytes_written.load());
  stat("limit_maxbytes", numbers.slabs.memory_limit);
  stat("accepting_conns", 1);  // over -c a client is accepted, told, and closed
  stat("listen_disabled_num", 0);
  stat("time_in_listen_disabled_us", 0);
  stat("threads", server.threads);
  stat("conn_yields", server.connections.yields.load());
  const std::size_t capacity = numbers.index.capacity;
  stat("hash_power_level", capacity == 0 ? 0 : std::bit_width(capacity) - 1);
  stat("hash_bytes", numbers.index.memory_bytes);
  stat("hash_is_expanding", 0);  // the index grows within a batch
  if (shown.slab_reassign) {
    for (const char* name :
         {"slab_reassign_rescues", "slab_reassign_chunk_rescues", "slab_reassign_evictions_nomem",
          "slab_reassign_inline_reclaim", "slab_reassign_busy_items", "slab_reassign_busy_deletes",
          "slab_reassign_running", "slabs_moved"})
      stat(name, 0);
  }
  if (shown.lru_crawler) {
    stat("lru_crawler_running", 0);
    stat("lru_crawler_starts", 0);
  }
  if (shown.lru_maintainer) stat("lru_maintainer_juggles", numbers.store.lru_juggles);
  for (const char* name : {"malloc_fails", "log_worker_dropped", "log_worker_written",
                           "log_watcher_skipped", "log_watcher_sent", "log_watchers"})
    stat(name, 0);
  if (server.tls_enabled) {
    const connection_counters& connections = server.connections;
    if (shown.ssl_new_sessions) stat("ssl_new_sessions", 0);
    stat("ssl_handshake_errors", connections.ssl_handshake_errors.load());
    stat("ssl_proto_errors", connections.ssl_proto_errors.load());  // memcached 1.6.19's
    stat("time_since_server_cert_refresh", numbers.now - server.tls_loaded_at);
  }
  stat("unexpected_napi_ids", 0);
  stat("round_robin_fallback", 0);
}

/// The items, and the totals of the classes' counts.
void render_items_totals(const shard_numbers& numbers, const shown_counters& shown,
                         stat_writer& stat) {
  class_item_counts items;
  store::class_stats store;
  for (const class_numbers& each : numbers.classes) {
    items.expired_unfetched += each.items.expired_unfetched;
    items.evicted_unfetched += each.items.evicted_unfetched;
    for (auto count : {&store::class_stats::evictions, &store::class_stats::reclaimed,
                       &store::class_stats::direct_reclaims, &store::class_stats::evicted_active,
                       &store::class_stats::moves_to_cold, &store::class_stats::moves_to_warm,
                       &store::class_stats::moves_within_lru})
      store.*count += each.store.*count;
  }
  stat("bytes", numbers.store.bytes);
  stat("curr_items", numbers.store.curr_items);
  stat("total_items", numbers.items.total_items);
  stat("slab_global_page_pool", 0);  // pages never move between classes
  stat("expired_unfetched", items.expired_unfetched);
  stat("evicted_unfetched", items.evicted_unfetched);
  if (shown.lru_maintainer) stat("evicted_active", store.evicted_active);
  stat("evictions", store.evictions);
  stat("reclaimed", store.reclaimed);
  stat("crawler_reclaimed", 0);
  stat("crawler_items_checked", 0);
  stat("lrutail_reflocked", 0);
  if (shown.lru_maintainer) {
    stat("moves_to_cold", store.moves_to_cold);
    stat("moves_to_warm", store.moves_to_warm);
    stat("moves_within_lru", store.moves_within_lru);
    stat("direct_reclaims", store.direct_reclaims);
    stat("lru_bumps_dropped", 0);  // reads move items at once: no bump is queued to drop
  }
}

const char* mode_name(index::placement mode) {
  switch (mode) {
    case index::placement::gpu: return "gpu";
    case index::placement::cpu: return "cpu";
    case index::placement::automatic: break;
  }
  return "auto";
}

/// A mean with one decimal, as text (0 with nothing to divide).
std::string decimal(std::uint64_t sum, std::uint64_t count) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f",
                count == 0 ? 0.0 : static_cast<double>(sum) / static_cast<double>(count));
  return text;
}

void render_index(const shard_numbers& numbers, const server_stats& server, stat_writer& stat) {
  const index::index_numbers& index = numbers.index;
  const index::placement_numbers& placement = index.placement;
  stat("index_mode", mode_name(server.index_mode));
  stat("index", numbers.index_description);
  stat("index_in_use", index.on_device == 0               ? "cpu"
                       : index.on_device == index.indexes ? "gpu"
                                                          : "mixed");
  stat("index_gpu_shards", index.on_device);
  stat("index_entries", index.entries);
  stat("index_capacity", index.capacity);
  stat("index_memory_bytes", index.memory_bytes);
  stat("index_rebuilds", index.rebuilds);
  stat("index_overflow", numbers.index_overflow);
  stat("index_failovers", numbers.items.index_failovers);
  stat("index_erase_misses", numbers.items.index_erase_misses);
  stat("index_batches", index.batches);
  stat("index_batch_operations", index.operations);
  stat("index_batch_max_operations", index.max_operations);
  stat("index_batch_mean_ns", index.batches == 0 ? 0 : index.run_ns / index.batches);
  stat("index_wait_groups_held", numbers.batches.wait_groups_held);
  stat("index_wait_groups_sent", numbers.batches.wait_groups_sent);
  stat("index_batches_overlapped", numbers.batches.batches_overlapped);
  stat("index_kernel_renewals", index.renewals);
  // --index=auto (docs/designs/server.md, "The index by the load")
  stat("index_moves_to_cpu", placement.moves_to_cpu);
  stat("index_moves_to_gpu", placement.moves_to_gpu);
  stat("index_auto_windows", placement.windows);
  stat("index_auto_cpu_us_per_s", placement.cpu_ns_per_s / 1000);
  stat("index_auto_gpu_us_per_s", placement.gpu_ns_per_s / 1000);
  stat("index_auto_keys_per_batch", decimal(placement.keys, placement.batches));
  stat("index_auto_cpu_ns_per_key", decimal(placement.cpu_ns_per_key, placement.judged));
  stat("index_auto_gpu_ns_per_batch", decimal(placement.gpu_ns_per_batch, placement.judged));
}

}  // namespace

void render_numbers(std::string_view argument, const shard_numbers& numbers,
                    const server_stats& server, std::string& out) {
  if (argument == "items") {
    render_items(numbers, server.shown, out);
  } else if (argument == "slabs") {
    render_slabs(numbers, out);
  } else {
    stat_writer stat{out};
    render_process(numbers.now, server, stat);
    render_commands(numbers, server, stat);
    render_machinery(numbers, server, stat);
    render_items_totals(numbers, server.shown, stat);
    render_index(numbers, server, stat);
  }
  out.append("END\r\n");
}

}  // namespace gpuhash::server::engine
