// `stats` and its sub-statistics, in memcached's format plus the index's
// own lines (index_*), answered on the batch thread.

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>

#include "engine/core.hpp"
#include "engine/reply.hpp"

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

}  // namespace

void engine::core::run_stats(std::string_view argument, std::string& out) {
  stat_writer stat{out};
  if (argument == "reset") {
    const std::uint64_t overflow = counters_.index_overflow;
    const std::uint64_t failovers = counters_.index_failovers;
    counters_ = {};
    counters_.index_overflow = overflow;
    counters_.index_failovers = failovers;
    stats_.connections.total = 0;
    stats_.connections.rejected = 0;
    stats_.connections.bytes_read = 0;
    stats_.connections.bytes_written = 0;
    stats_.connections.auth_cmds = 0;
    stats_.connections.auth_errors = 0;
    stats_.connections.ssl_handshake_errors = 0;
    stats_.connections.ssl_proto_errors = 0;
    stats_.connections.buffer_stalls = 0;
    out.append("RESET\r\n");
    return;
  }
  if (argument == "settings") {
    for (const auto& [name, value] : config_.settings) stat(name, value);
  } else if (argument == "items") {
    const auto classes = store_.classes();
    for (std::size_t c = 0; c < classes.size(); ++c) {
      if (classes[c].linked_items == 0) continue;
      const std::string prefix = "items:" + std::to_string(c + 1) + ":";
      stat(prefix + "number", classes[c].linked_items);
      stat(prefix + "age", classes[c].oldest_access == 0 ? 0 : now_ - classes[c].oldest_access);
      stat(prefix + "evicted", classes[c].evictions);
    }
  } else if (argument == "slabs") {
    const auto classes = store_.classes();
    std::size_t active = 0;
    for (std::size_t c = 0; c < classes.size(); ++c) {
      if (classes[c].pages == 0) continue;
      ++active;
      const std::string prefix = std::to_string(c + 1) + ":";
      stat(prefix + "chunk_size", classes[c].chunk_size);
      stat(prefix + "chunks_per_page", classes[c].chunks_per_page);
      stat(prefix + "total_pages", classes[c].pages);
      stat(prefix + "total_chunks", classes[c].pages * classes[c].chunks_per_page);
      stat(prefix + "used_chunks", classes[c].used_chunks);
      stat(prefix + "free_chunks", classes[c].free_chunks);
    }
    stat("active_slabs", active);
    stat("total_malloced", store_.pages_allocated() * store_.page_size());
  } else if (argument == "conns") {
    if (config_.describe_connections) out.append(config_.describe_connections());
  } else if (argument.empty()) {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto& connections = stats_.connections;
    stat("pid", static_cast<long>(getpid()));
    stat("uptime", now_ - stats_.started_at);
    stat("time", now_);
    stat("version", "1.6.18-gpuhash");
    stat("pointer_size", 8 * sizeof(void*));
    stat("rusage_user", seconds_of(usage.ru_utime));
    stat("rusage_system", seconds_of(usage.ru_stime));
    stat("max_connections", config_.max_connections);
    stat("curr_connections", connections.current.load());
    stat("total_connections", connections.total.load());
    stat("rejected_connections", connections.rejected.load());
    stat("auth_cmds", connections.auth_cmds.load());
    stat("auth_errors", connections.auth_errors.load());
    if (stats_.tls_enabled) {
      stat("ssl_handshake_errors", connections.ssl_handshake_errors.load());
      stat("ssl_proto_errors", connections.ssl_proto_errors.load());
      stat("time_since_server_cert_refresh", now_ - stats_.tls_loaded_at);
    }
    stat("read_buf_bytes", connections.buffer_bytes.load());
    stat("read_buf_oom", connections.buffer_stalls.load());
    stat("cmd_get", counters_.cmd_get);
    stat("cmd_set", counters_.cmd_set);
    stat("cmd_flush", counters_.cmd_flush);
    stat("cmd_touch", counters_.cmd_touch);
    stat("cmd_meta", counters_.cmd_meta);
    stat("get_hits", counters_.get_hits);
    stat("get_misses", counters_.get_misses);
    stat("get_expired", counters_.get_expired);
    stat("get_flushed", counters_.get_flushed);
    stat("delete_misses", counters_.delete_misses);
    stat("delete_hits", counters_.delete_hits);
    stat("incr_misses", counters_.incr_misses);
    stat("incr_hits", counters_.incr_hits);
    stat("decr_misses", counters_.decr_misses);
    stat("decr_hits", counters_.decr_hits);
    stat("cas_misses", counters_.cas_misses);
    stat("cas_hits", counters_.cas_hits);
    stat("cas_badval", counters_.cas_badval);
    stat("touch_hits", counters_.touch_hits);
    stat("touch_misses", counters_.touch_misses);
    stat("store_too_large", counters_.store_too_large);
    stat("store_no_memory", counters_.store_no_memory);
    stat("bytes_read", connections.bytes_read.load());
    stat("bytes_written", connections.bytes_written.load());
    stat("limit_maxbytes", store_.memory_limit());
    stat("threads", config_.threads);
    stat("bytes", store_.bytes_used());
    stat("curr_items", store_.linked_items());
    stat("total_items", counters_.total_items);
    stat("expired_unfetched", counters_.expired_unfetched);
    stat("evicted_unfetched", counters_.evicted_unfetched);
    stat("evictions", store_.evictions());
    stat("reclaimed", store_.reclaimed());
    // the index
    stat("index", index_->description());
    stat("index_entries", index_->entries());
    stat("index_capacity", index_->capacity());
    stat("index_memory_bytes", index_->memory_bytes());
    stat("index_rebuilds", index_->rebuilds());
    stat("index_overflow", overflow_.size());
    stat("index_failovers", counters_.index_failovers);
    stat("index_erase_misses", counters_.index_erase_misses);
    stat("index_batches", counters_.batches);
    stat("index_batch_operations", counters_.batch_operations);
    stat("index_batch_max_operations", counters_.batch_max_operations);
    stat("index_batch_mean_ns",
         counters_.batches == 0 ? 0 : counters_.batch_index_ns / counters_.batches);
    stat("index_wait_groups_held", counters_.wait_groups_held);
    stat("index_wait_groups_sent", counters_.wait_groups_sent);
    stat("index_batches_overlapped", counters_.batches_overlapped);
    stat("index_kernel_renewals", counters_.kernel_renewals);
  } else {
    out.append("ERROR\r\n");
    return;
  }
  out.append("END\r\n");
}

}  // namespace gpuhash::server::engine
