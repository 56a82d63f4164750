// `stats settings` (settings_lines.hpp): memcached 1.6.18's lines in its
// order and formats, then gpuhash-server's own; the optional counters.

#include "app/settings_lines.hpp"

#include <cstdio>

#include "net/tls.hpp"

namespace gpuhash::server {

namespace {

using lines_type = std::vector<std::pair<std::string, std::string>>;

std::string yes_no(bool value) {
  return value ? "yes" : "no";
}
/// memcached prints "NULL" for some unset strings...
std::string or_null(const std::string& text) {
  return text.empty() ? "NULL" : text;
}
/// ...and "(null)" for others (printf's rendering of a null char*).
std::string or_printf_null(const std::string& text) {
  return text.empty() ? "(null)" : text;
}
std::string formatted(const char* format, double value) {
  char text[32];
  std::snprintf(text, sizeof text, format, value);
  return text;
}
std::string octal(std::uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof text, "%o", value);
  return text;
}
template <class Number>
std::string number(Number value) {
  return std::to_string(value);
}

/// From maxbytes to item_size_max: the settings gpuhash-server honours, and
/// the first of those it shows without effect.
void add_core(const config::server_options& options, lines_type& lines) {
  const net::network_settings& network = options.network;
  const store::store_config& store = options.engine.store;
  const config::tuning_settings& tuning = options.tuning;
  lines.insert(lines.end(),
               {
                   {"maxbytes", number(store.memory_limit)},
                   {"maxconns", number(network.max_connections)},
                   {"tcpport", number(network.listen.tcp_port)},
                   {"udpport", number(options.udp_port)},
                   {"inter", network.listen.addresses},
                   {"verbosity", number(network.verbosity)},
                   {"oldest", "0"},  // the last flush_all: shown by commands/admin.cpp
                   {"evictions", store.evict ? "on" : "off"},
                   {"domain_socket", or_null(network.listen.unix_socket)},
                   {"umask", octal(network.listen.unix_socket_mode)},
                   {"shutdown_command", yes_no(options.engine.shutdown_enabled)},
                   {"growth_factor", formatted("%.2f", store.growth_factor)},
                   {"chunk_size", number(store.chunk_size_min)},
                   {"num_threads", number(network.threads)},
                   {"num_threads_per_udp", number(network.threads)},
                   {"stat_key_prefix", std::string(1, tuning.stat_key_prefix)},
                   {"detail_enabled", "no"},  // per-prefix statistics are not kept
                   {"reqs_per_event", number(network.requests_per_event)},
                   {"cas_enabled", yes_no(store.cas_enabled)},
                   {"tcp_backlog", number(network.listen.backlog)},
                   {"binding_protocol", tuning.binding_protocol},
                   {"auth_enabled_sasl", "no"},
                   {"auth_enabled_ascii", network.auth_file.empty() ? "no" : network.auth_file},
                   {"item_size_max", number(store.item_size_max)},
               });
}

/// From maxconns_fast to inline_ascii_response: memcached's machinery, shown
/// without effect, with flush_enabled, dump_enabled and read_buf_mem_limit.
void add_tuning(const config::server_options& options, lines_type& lines) {
  const config::tuning_settings& tuning = options.tuning;
  lines.insert(lines.end(),
               {
                   {"maxconns_fast", yes_no(tuning.maxconns_fast)},
                   {"hashpower_init", number(tuning.hashpower_init)},
                   {"slab_reassign", yes_no(tuning.slab_reassign)},
                   {"slab_automove", number(tuning.slab_automove)},
                   {"slab_automove_ratio", formatted("%.2f", tuning.slab_automove_ratio)},
                   {"slab_automove_window", number(tuning.slab_automove_window)},
                   {"slab_chunk_max", number(tuning.slab_chunk_max)},
                   {"lru_crawler", yes_no(tuning.lru_crawler)},
                   {"lru_crawler_sleep", number(tuning.lru_crawler_sleep)},
                   {"lru_crawler_tocrawl", number(tuning.lru_crawler_tocrawl)},
                   {"tail_repair_time", number(tuning.tail_repair_time)},
                   {"flush_enabled", yes_no(options.engine.flush_enabled)},
                   {"dump_enabled", yes_no(options.engine.dumping_enabled)},
                   {"hash_algorithm", tuning.hash_algorithm},
                   {"lru_maintainer_thread", yes_no(tuning.lru_maintainer)},
                   {"lru_segmented", yes_no(tuning.lru_maintainer)},
                   {"hot_lru_pct", number(tuning.hot_lru_pct)},
                   {"warm_lru_pct", number(tuning.warm_lru_pct)},
                   {"hot_max_factor", formatted("%.2f", tuning.hot_max_factor)},
                   {"warm_max_factor", formatted("%.2f", tuning.warm_max_factor)},
                   {"temp_lru", yes_no(tuning.temporary_ttl.has_value())},
                   {"temporary_ttl", number(tuning.temporary_ttl.value_or(61))},
                   {"idle_timeout", number(tuning.idle_timeout)},
                   {"watcher_logbuf_size", number(tuning.watcher_logbuf_size)},
                   {"worker_logbuf_size", number(tuning.worker_logbuf_size)},
                   {"read_buf_mem_limit", number(options.network.memory_limit)},
                   {"track_sizes", "no"},  // no size histogram is kept (`stats sizes`)
                   {"inline_ascii_response", "no"},
               });
}

void add_extstore(const config::extstore_tuning& ext, lines_type& lines) {
  lines.insert(lines.end(),
               {
                   {"ext_item_size", number(ext.item_size)},
                   {"ext_item_age", number(ext.item_age)},
                   {"ext_low_ttl", number(ext.low_ttl)},
                   {"ext_recache_rate", number(ext.recache_rate)},
                   {"ext_wbuf_size", number(ext.wbuf_size)},
                   {"ext_compact_under", number(ext.compact_under)},
                   {"ext_drop_under", number(ext.drop_under)},
                   {"ext_max_sleep", number(ext.max_sleep)},
                   {"ext_max_frag", formatted("%.2f", ext.max_frag)},
                   {"slab_automove_freeratio", formatted("%.3f", ext.slab_automove_freeratio)},
                   {"ext_drop_unread", yes_no(ext.drop_unread)},
               });
}

void add_tls(const net::tls_settings& tls, lines_type& lines) {
  lines.insert(lines.end(), {
                                {"ssl_enabled", yes_no(tls.enabled)},
                                {"ssl_chain_cert", or_printf_null(tls.chain_cert)},
                                {"ssl_key", or_printf_null(tls.key)},
                                {"ssl_verify_mode", number(net::tls_verify_flags(tls.verify_mode))},
                                {"ssl_keyformat", number(tls.keyformat)},
                                {"ssl_ciphers", or_null(tls.ciphers)},
                                {"ssl_ca_cert", or_null(tls.ca_cert)},
                                {"ssl_wbuf_size", number(tls.write_size)},
                                {"ssl_session_cache", yes_no(tls.session_cache)},
                                {"ssl_kernel_tls", yes_no(tls.kernel_tls)},
                                {"ssl_min_version", net::tls_version_name(tls.min_version)},
                            });
}

/// gpuhash-server's own.
void add_gpuhash(const config::server_options& options, lines_type& lines) {
  const engine::engine_settings& engine = options.engine;
  const char* index = options.index == index::placement::gpu   ? "gpu"
                      : options.index == index::placement::cpu ? "cpu"
                                                               : "auto";
  const char* runner = engine.runner == engine::batch_runner::batch_thread        ? "thread"
                       : engine.runner == engine::batch_runner::submitting_thread ? "workers"
                                                                                  : "auto";
  lines.insert(lines.end(), {
                                {"index", index},
                                {"batch_max", number(engine.batch_max)},
                                {"batch_wait_us", number(engine.batch_wait_us)},
                                {"spin_us", number(options.network.spin_us)},
                                {"shards", number(engine.shards)},
                                {"batch_runner", runner},
                            });
}

}  // namespace

std::vector<std::pair<std::string, std::string>> settings_lines(
    const config::server_options& options) {
  lines_type lines;
  add_core(options, lines);
  add_tuning(options, lines);
  add_extstore(options.tuning.extstore, lines);
  add_tls(options.network.tls, lines);
  lines.insert(lines.end(), {{"num_napi_ids", or_printf_null(options.tuning.napi_ids)},
                             {"memory_file", or_printf_null(options.tuning.memory_file)}});
  add_gpuhash(options, lines);
  return lines;
}

engine::shown_counters shown_counters_of(const config::server_options& options) {
  const config::tuning_settings& tuning = options.tuning;
  return {.rejected_connections = tuning.maxconns_fast,
          .idle_kicks = tuning.idle_timeout != 0,
          .slab_reassign = tuning.slab_reassign,
          .lru_crawler = tuning.lru_crawler,
          .lru_maintainer = tuning.lru_maintainer,
          .ssl_new_sessions = options.network.tls.enabled && options.network.tls.session_cache};
}

}  // namespace gpuhash::server
