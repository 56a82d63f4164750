// The server put together from its layers (server.hpp).

#include "app/server.hpp"

#include <grp.h>
#include <malloc.h>
#include <pwd.h>
#include <signal.h>
#include <sys/resource.h>
#include <sysexits.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <optional>
#include <string>

#include "engine/engine.hpp"
#include "net/network.hpp"

namespace gpuhash::server {

namespace {

/// Like memcached: root only with -u, and then as that user. The exit status
/// to stop with, or 0 to go on (memcached's, from sysexits.h).
int drop_privileges(const config::server_options& options) {
  if (getuid() != 0 && geteuid() != 0) return 0;
  if (options.run_as_user.empty()) {
    std::fprintf(stderr, "can't run as root without the -u switch\n");
    return EX_USAGE;
  }
  const passwd* user = getpwnam(options.run_as_user.c_str());
  if (user == nullptr) {
    std::fprintf(stderr, "can't find the user %s to switch to\n", options.run_as_user.c_str());
    return EX_NOUSER;
  }
  if (setgroups(0, nullptr) != 0 || setgid(user->pw_gid) != 0 || setuid(user->pw_uid) != 0) {
    std::fprintf(stderr, "failed to assume identity of user %s\n", options.run_as_user.c_str());
    return EX_OSERR;
  }
  return 0;
}

/// --shards, or by default one a thread as far as -m gives each 8 MB.
std::size_t shards_of(const config::server_options& options) {
  if (options.shards != 0) return options.shards;
  return std::clamp<std::size_t>(options.memory_limit_mb / 8, 1,
                                 std::max<std::size_t>(1, options.threads));
}

std::vector<std::pair<std::string, std::string>> settings_of(
    const config::server_options& options) {
  const auto yes_no = [](bool value) { return std::string(value ? "yes" : "no"); };
  const char* index = options.index == config::index_kind::gpu   ? "gpu"
                      : options.index == config::index_kind::cpu ? "cpu"
                                                                 : "auto";
  const config::tls_options& tls = options.tls;
  const auto or_null = [](const std::string& text) { return text.empty() ? "NULL" : text; };
  return {
      {"maxbytes", std::to_string(options.memory_limit_mb << 20)},
      {"maxconns", std::to_string(options.max_connections)},
      {"tcpport", std::to_string(options.tcp_port)},
      {"udpport", std::to_string(options.udp_port)},
      {"inter", options.listen_address},
      {"verbosity", std::to_string(options.verbosity)},
      {"evictions", options.evict ? "on" : "off"},
      {"growth_factor", std::to_string(options.growth_factor)},
      {"chunk_size", std::to_string(options.chunk_size_min)},
      {"num_threads", std::to_string(options.threads)},
      {"cas_enabled", yes_no(options.cas_enabled)},
      {"auth_enabled_sasl", "no"},
      {"auth_enabled_ascii", options.auth_file.empty() ? "no" : options.auth_file},
      {"item_size_max", std::to_string(options.item_size_max)},
      {"domain_socket", or_null(options.unix_socket)},
      {"umask",
       [&] {
         char octal[16];
         std::snprintf(octal, sizeof octal, "%o", options.unix_socket_mode);
         return std::string(octal);
       }()},
      {"flush_enabled", yes_no(options.flush_enabled)},
      {"dump_enabled", yes_no(options.dumping_enabled)},
      {"shutdown_command", yes_no(options.shutdown_command)},
      {"read_buf_mem_limit", std::to_string(options.connection_memory_limit)},
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
      {"index", index},
      {"batch_max", std::to_string(options.batch_max)},
      {"batch_wait_us", std::to_string(options.batch_wait_us)},
      {"spin_us", std::to_string(options.spin_us)},
      {"shards", std::to_string(shards_of(options))},
      {"batch_runner", options.batch_runner == config::batch_runner_kind::thread    ? "thread"
                       : options.batch_runner == config::batch_runner_kind::workers ? "workers"
                                                                                    : "auto"},
  };
}

/// Like memcached: room for -c connections in the open-file limit (raised
/// up to the hard limit), or a clear refusal to start.
bool raise_file_limit(std::size_t connections) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return true;
  const rlim_t wanted = static_cast<rlim_t>(connections) + 64;  // listeners, epoll, GPU driver
  if (limit.rlim_cur >= wanted) return true;
  limit.rlim_cur = std::min(wanted, limit.rlim_max);
  setrlimit(RLIMIT_NOFILE, &limit);
  if (limit.rlim_cur < wanted) {
    std::fprintf(stderr,
                 "failed to set rlimit for open files: %zu connections need %llu descriptors, "
                 "the hard limit is %llu. Try starting as root or requesting a smaller -c\n",
                 connections, static_cast<unsigned long long>(wanted),
                 static_cast<unsigned long long>(limit.rlim_max));
    return false;
  }
  return true;
}

}  // namespace

int run_server(const config::server_options& options, const index::index_factory& make_index) {
  for (const std::string& line : options.ignored)
    if (options.verbosity > 0) std::fprintf(stderr, "%s\n", line.c_str());

  // Signals are taken by this thread alone (sigtimedwait below); every other
  // thread inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  if (!raise_file_limit(options.max_connections)) return EX_OSERR;
  // Large buffers (a connection's input, replies, output) get mappings of
  // their own, which go back to the system when freed: glibc's sliding
  // threshold would keep them in the heap after their connections are gone.
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);

  // memcached's order: the TLS certificates and key are read before the
  // server gives up root (they may be readable by root alone); the auth
  // file and the sockets come after, as the -u user, who then owns the
  // unix socket.
  std::optional<net::tls_context> tls;
  if (options.tls.enabled) {
    try {
      tls.emplace(options.tls);
    } catch (const std::exception& error) {
      std::fprintf(stderr, "%s\n", error.what());
      return EX_USAGE;  // as memcached
    }
  }
  if (const int status = drop_privileges(options); status != 0) return status;
  std::optional<net::auth_file> users;
  if (!options.auth_file.empty()) {
    try {
      users.emplace(net::auth_file::load(options.auth_file));
    } catch (const std::exception& error) {
      std::fprintf(stderr, "%s\n", error.what());
      return EXIT_FAILURE;  // as memcached
    }
  }

  engine::server_stats stats;
  stats.started_at = static_cast<std::int64_t>(std::time(nullptr));
  stats.tls_enabled = tls.has_value();
  if (tls) stats.tls_loaded_at = tls->loaded_at();
  stats.threads = options.threads;
  stats.max_connections = options.max_connections;
  stats.settings = settings_of(options);

  net::network_config network_config;
  network_config.listen.addresses = options.listen_address;
  network_config.listen.tcp_port = options.tcp_port;
  network_config.listen.unix_socket = options.unix_socket;
  network_config.listen.unix_socket_mode = options.unix_socket_mode;
  network_config.listen.tls = tls.has_value();
  network_config.max_connections = options.max_connections;
  network_config.threads = options.threads;
  network_config.verbosity = options.verbosity;
  network_config.spin_us = options.spin_us;
  network_config.limits.item_size_max = options.item_size_max;
  network_config.memory_limit = options.connection_memory_limit;
  network_config.tls = tls ? &*tls : nullptr;
  network_config.users = users ? &*users : nullptr;
  net::network network(network_config, stats);
  network.listen();

  stats.describe_connections = [&network] { return network.describe_connections(); };

  engine::engine_settings engine_settings;
  engine_settings.store.memory_limit = options.memory_limit_mb << 20;
  engine_settings.store.item_size_max = options.item_size_max;
  engine_settings.store.growth_factor = options.growth_factor;
  engine_settings.store.chunk_size_min = options.chunk_size_min;
  engine_settings.store.evict = options.evict;
  engine_settings.cas_enabled = options.cas_enabled;
  engine_settings.flush_enabled = options.flush_enabled;
  engine_settings.dumping_enabled = options.dumping_enabled;
  engine_settings.shutdown_enabled = options.shutdown_command;
  engine_settings.batch_max = options.batch_max;
  engine_settings.batch_wait_us = options.batch_wait_us;
  engine_settings.spin_us = options.spin_us;
  engine_settings.shards = shards_of(options);
  engine_settings.runner = options.batch_runner == config::batch_runner_kind::thread
                               ? engine::batch_runner::batch_thread
                           : options.batch_runner == config::batch_runner_kind::workers
                               ? engine::batch_runner::submitting_thread
                               : engine::batch_runner::automatic;

  engine::engine engine(engine_settings, stats, make_index,
                        [&network](engine::request_group& group, engine::completer by) {
                          network.complete(group, by);
                        });
  if (options.verbosity > 0)  // before any batch can move the index
    std::fprintf(stderr, "gpuhash-server: listening on port %u, index: %s\n",
                 unsigned{network.bound_port()}, engine.index_description().c_str());
  network.start(engine);

  const timespec tick{0, 50'000'000};
  while (!network.shutdown_requested()) {
    const int caught = sigtimedwait(&signals, nullptr, &tick);
    if (caught == SIGINT || caught == SIGTERM) {
      if (options.verbosity > 0)
        std::fprintf(stderr, "gpuhash-server: signal %d, exiting\n", caught);
      break;
    }
  }
  engine.stop();
  network.stop();
  return 0;
}

index::placement placement_of(const config::server_options& options) {
  return options.index == config::index_kind::gpu   ? index::placement::gpu
         : options.index == config::index_kind::cpu ? index::placement::cpu
                                                    : index::placement::automatic;
}

}  // namespace gpuhash::server
