// `stats settings` (settings_lines.hpp).

#include "app/settings_lines.hpp"

#include <cstdio>

#include "net/tls.hpp"

namespace gpuhash::server {

namespace {

std::string yes_no(bool value) {
  return value ? "yes" : "no";
}
std::string or_null(const std::string& text) {
  return text.empty() ? "NULL" : text;
}
std::string octal(std::uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof text, "%o", value);
  return text;
}

/// memcached's own settings.
void add_memcached(const config::server_options& options,
                   std::vector<std::pair<std::string, std::string>>& lines) {
  const net::network_settings& network = options.network;
  const engine::engine_settings& engine = options.engine;
  lines.insert(lines.end(),
               {
                   {"maxbytes", std::to_string(engine.store.memory_limit)},
                   {"maxconns", std::to_string(network.max_connections)},
                   {"tcpport", std::to_string(network.listen.tcp_port)},
                   {"udpport", std::to_string(options.udp_port)},
                   {"inter", network.listen.addresses},
                   {"verbosity", std::to_string(network.verbosity)},
                   {"evictions", engine.store.evict ? "on" : "off"},
                   {"growth_factor", std::to_string(engine.store.growth_factor)},
                   {"chunk_size", std::to_string(engine.store.chunk_size_min)},
                   {"num_threads", std::to_string(network.threads)},
                   {"cas_enabled", yes_no(engine.store.cas_enabled)},
                   {"auth_enabled_sasl", "no"},
                   {"auth_enabled_ascii", network.auth_file.empty() ? "no" : network.auth_file},
                   {"item_size_max", std::to_string(engine.store.item_size_max)},
                   {"domain_socket", or_null(network.listen.unix_socket)},
                   {"umask", octal(network.listen.unix_socket_mode)},
                   {"flush_enabled", yes_no(engine.flush_enabled)},
                   {"dump_enabled", yes_no(engine.dumping_enabled)},
                   {"shutdown_command", yes_no(engine.shutdown_enabled)},
                   {"read_buf_mem_limit", std::to_string(network.memory_limit)},
               });
}

void add_tls(const net::tls_settings& tls,
             std::vector<std::pair<std::string, std::string>>& lines) {
  lines.insert(lines.end(),
               {
                   {"ssl_enabled", yes_no(tls.enabled)},
                   {"ssl_chain_cert", or_null(tls.chain_cert)},
                   {"ssl_key", or_null(tls.key)},
                   {"ssl_verify_mode", std::to_string(net::tls_verify_flags(tls.verify_mode))},
                   {"ssl_keyformat", std::to_string(tls.keyformat)},
                   {"ssl_ciphers", or_null(tls.ciphers)},
                   {"ssl_ca_cert", or_null(tls.ca_cert)},
                   {"ssl_wbuf_size", std::to_string(tls.write_size)},
                   {"ssl_session_cache", yes_no(tls.session_cache)},
                   {"ssl_kernel_tls", yes_no(tls.kernel_tls)},
                   {"ssl_min_version", net::tls_version_name(tls.min_version)},
               });
}

/// gpuhash-server's own.
void add_gpuhash(const config::server_options& options,
                 std::vector<std::pair<std::string, std::string>>& lines) {
  const engine::engine_settings& engine = options.engine;
  const char* index = options.index == index::placement::gpu   ? "gpu"
                      : options.index == index::placement::cpu ? "cpu"
                                                               : "auto";
  const char* runner = engine.runner == engine::batch_runner::batch_thread        ? "thread"
                       : engine.runner == engine::batch_runner::submitting_thread ? "workers"
                                                                                  : "auto";
  lines.insert(lines.end(), {
                                {"index", index},
                                {"batch_max", std::to_string(engine.batch_max)},
                                {"batch_wait_us", std::to_string(engine.batch_wait_us)},
                                {"spin_us", std::to_string(options.network.spin_us)},
                                {"shards", std::to_string(engine.shards)},
                                {"batch_runner", runner},
                            });
}

}  // namespace

std::vector<std::pair<std::string, std::string>> settings_lines(
    const config::server_options& options) {
  std::vector<std::pair<std::string, std::string>> lines;
  add_memcached(options, lines);
  add_tls(options.network.tls, lines);
  add_gpuhash(options, lines);
  return lines;
}

}  // namespace gpuhash::server
