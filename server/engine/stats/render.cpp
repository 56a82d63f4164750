// `stats` in memcached's format (render.hpp).

#include "engine/stats/render.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <type_traits>

#include "engine/commands/reply.hpp"

namespace gpuhash::server::engine {

namespace {

struct stat_writer {
  std::string& out;
  template <class Value>
  void operator()(std::string_view name, Value value) {
    out.append("STAT ").append(name).push_back(' ');
    if constexpr (std::is_convertible_v<Value, std::string_view>) {
      out.append(std::string_view(value));
    } else {
      append_number(out, value);
    }
    out.append("\r\n");
  }
};

std::string seconds_of(const timeval& time) {
  char text[40];
  std::snprintf(text, sizeof text, "%ld.%06ld", static_cast<long>(time.tv_sec),
                static_cast<long>(time.tv_usec));
  return text;
}

/// The process's lines, up to the connections' buffers.
void render_process(std::int64_t now, const server_stats& server, stat_writer& stat) {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const connection_counters& connections = server.connections;
  stat("pid", static_cast<long>(getpid()));
  stat("uptime", now - server.started_at);
  stat("time", now);
  stat("version", server_version);
  stat("pointer_size", 8 * sizeof(void*));
  stat("rusage_user", seconds_of(usage.ru_utime));
  stat("rusage_system", seconds_of(usage.ru_stime));
  stat("max_connections", server.max_connections);
  stat("curr_connections", connections.current.load());
  stat("total_connections", connections.total.load());
  stat("rejected_connections", connections.rejected.load());
  stat("auth_cmds", connections.auth_cmds.load());
  stat("auth_errors", connections.auth_errors.load());
  if (server.tls_enabled) {
    stat("ssl_handshake_errors", connections.ssl_handshake_errors.load());
    stat("ssl_proto_errors", connections.ssl_proto_errors.load());
    stat("time_since_server_cert_refresh", now - server.tls_loaded_at);
  }
  stat("read_buf_bytes", connections.buffer_bytes.load());
  stat("read_buf_oom", connections.buffer_stalls.load());
}

void render_commands(const shard_numbers& numbers, stat_writer& stat) {
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
}

void render_items(const shard_numbers& numbers, const server_stats& server, stat_writer& stat) {
  stat("bytes_read", server.connections.bytes_read.load());
  stat("bytes_written", server.connections.bytes_written.load());
  stat("limit_maxbytes", numbers.store.limit_maxbytes);
  stat("threads", server.threads);
  stat("bytes", numbers.store.bytes);
  stat("curr_items", numbers.store.curr_items);
  stat("total_items", numbers.items.total_items);
  stat("expired_unfetched", numbers.items.expired_unfetched);
  stat("evicted_unfetched", numbers.items.evicted_unfetched);
  stat("evictions", numbers.store.evictions);
  stat("reclaimed", numbers.store.reclaimed);
}

void render_index(const shard_numbers& numbers, stat_writer& stat) {
  const index::index_numbers& index = numbers.index;
  stat("index", numbers.index_description);
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
}

/// `stats items`: the classes holding items.
void render_classes_items(const shard_numbers& numbers, stat_writer& stat) {
  for (std::size_t c = 0; c < numbers.classes.size(); ++c) {
    const store::class_stats& each = numbers.classes[c].store;
    if (each.linked_items == 0) continue;
    const std::string prefix = "items:" + std::to_string(c + 1) + ":";
    stat(prefix + "number", each.linked_items);
    stat(prefix + "age", numbers.classes[c].age);
    stat(prefix + "mem_requested", each.requested_bytes);
    stat(prefix + "evicted", each.evictions);
  }
}

/// `stats slabs`: the classes with pages, then the totals.
void render_classes_slabs(const shard_numbers& numbers, stat_writer& stat) {
  std::size_t active = 0;
  for (std::size_t c = 0; c < numbers.classes.size(); ++c) {
    const store::class_stats& each = numbers.classes[c].store;
    if (each.pages == 0) continue;
    ++active;
    const std::string prefix = std::to_string(c + 1) + ":";
    stat(prefix + "chunk_size", each.chunk_size);
    stat(prefix + "chunks_per_page", each.chunks_per_page);
    stat(prefix + "total_pages", each.pages);
    stat(prefix + "total_chunks", each.pages * each.chunks_per_page);
    stat(prefix + "used_chunks", each.used_chunks);
    stat(prefix + "free_chunks", each.free_chunks);
  }
  stat("active_slabs", active);
  stat("total_malloced", numbers.store.total_malloced);
}

}  // namespace

void render_numbers(std::string_view argument, const shard_numbers& numbers,
                    const server_stats& server, std::string& out) {
  stat_writer stat{out};
  if (argument == "items") {
    render_classes_items(numbers, stat);
  } else if (argument == "slabs") {
    render_classes_slabs(numbers, stat);
  } else {
    render_process(numbers.now, server, stat);
    render_commands(numbers, stat);
    render_items(numbers, server, stat);
    render_index(numbers, stat);
  }
  out.append("END\r\n");
}

}  // namespace gpuhash::server::engine
