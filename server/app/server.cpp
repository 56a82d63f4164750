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

#include "app/settings_lines.hpp"
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

/// Signals are taken by the calling thread alone (sigtimedwait in
/// serve_until_stopped); every thread started after inherits the mask.
sigset_t take_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return signals;
}

/// What the network needs made before it starts, in memcached's order: the
/// TLS certificates and key are read before the server gives up root (they
/// may be readable by root alone); the auth file and the sockets come
/// after, as the -u user, who then owns the unix socket.
struct made_resources {
  std::optional<net::tls_context> tls;
  std::optional<net::auth_file> users;
  int status = 0;  ///< nonzero: the exit status to stop with
};

void make_resources(const config::server_options& options, made_resources& made) {
  const net::network_settings& network = options.network;
  if (network.tls.enabled) {
    try {
      made.tls.emplace(network.tls);
    } catch (const std::exception& error) {
      std::fprintf(stderr, "%s\n", error.what());
      made.status = EX_USAGE;  // as memcached
      return;
    }
  }
  made.status = drop_privileges(options);
  if (made.status != 0 || network.auth_file.empty()) return;
  try {
    made.users.emplace(net::auth_file::load(network.auth_file));
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    made.status = EXIT_FAILURE;  // as memcached
  }
}

/// Serves until a signal or an accepted `shutdown`.
void serve_until_stopped(const sigset_t& signals, const net::network& network, int verbosity) {
  const timespec tick{0, 50'000'000};
  while (!network.shutdown_requested()) {
    const int caught = sigtimedwait(&signals, nullptr, &tick);
    if (caught == SIGINT || caught == SIGTERM) {
      if (verbosity > 0) std::fprintf(stderr, "gpuhash-server: signal %d, exiting\n", caught);
      return;
    }
  }
}

}  // namespace

int run_server(const config::server_options& options, const index::index_factory& make_index) {
  const int verbosity = options.network.verbosity;
  for (const std::string& line : options.ignored)
    if (verbosity > 0) std::fprintf(stderr, "%s\n", line.c_str());
  const sigset_t signals = take_signals();
  if (!raise_file_limit(options.network.max_connections)) return EX_OSERR;
  // Large buffers (a connection's input, replies, output) get mappings of
  // their own, which go back to the system when freed: glibc's sliding
  // threshold would keep them in the heap after their connections are gone.
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
  made_resources made;
  make_resources(options, made);
  if (made.status != 0) return made.status;

  engine::server_stats stats;
  stats.started_at = static_cast<std::int64_t>(std::time(nullptr));
  stats.tls_enabled = made.tls.has_value();
  if (made.tls) stats.tls_loaded_at = made.tls->loaded_at();
  stats.threads = options.network.threads;
  stats.max_connections = options.network.max_connections;
  stats.index_mode = options.index;
  stats.settings = settings_lines(options);
  stats.shown = shown_counters_of(options);

  const net::network_resources resources{made.tls ? &*made.tls : nullptr,
                                         made.users ? &*made.users : nullptr};
  net::network network(options.network, resources, stats);
  network.listen();
  stats.describe_connections = [&network] { return network.describe_connections(); };
  engine::engine engine(options.engine, stats, make_index,
                        [&network](engine::request_group& group, engine::completer by) {
                          network.complete(group, by);
                        });
  if (verbosity > 0)  // before any batch can move the index
    std::fprintf(stderr, "gpuhash-server: listening on port %u, index: %s%s\n",
                 unsigned{network.bound_port()}, engine.index_description().c_str(),
                 options.index != index::placement::automatic ? ""
                 : engine.index_moves_by_load()
                     ? " (--index=auto: moved between the GPU and the CPU as the load calls for)"
                     : " (--index=auto: no GPU to move it to)");
  network.start(engine);
  serve_until_stopped(signals, network, verbosity);
  engine.stop();
  network.stop();
  return 0;
}

}  // namespace gpuhash::server
