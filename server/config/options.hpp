#pragma once
// gpuhash-server's command line: memcached 1.6's flags (so init scripts and
// tools written for memcached work unchanged) plus gpuhash's own.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gpuhash::server::config {

enum class index_kind : std::uint8_t { automatic, gpu, cpu };
enum class batch_runner_kind : std::uint8_t { automatic, thread, workers };

/// -Z and memcached's `-o ssl_*` options. The numbers are memcached's option
/// values (ssl_verify_mode 0-3, ssl_min_version 0-3: TLS 1.0 to 1.3,
/// ssl_keyformat 1: PEM, 2: DER); net/tls.cpp turns them into OpenSSL's.
struct tls_options {
  bool enabled = false;        ///< -Z
  std::string chain_cert;      ///< ssl_chain_cert: the certificate chain, PEM
  std::string key;             ///< ssl_key: the private key (empty: in chain_cert)
  std::string ca_cert;         ///< ssl_ca_cert: CAs whose client certificates are accepted
  std::string ciphers;         ///< ssl_ciphers: an OpenSSL cipher list (empty: OpenSSL's)
  int verify_mode = 0;         ///< ssl_verify_mode: 0 none, 1 request, 2 require, 3 require once
  int keyformat = 1;           ///< ssl_keyformat: 1 PEM, 2 DER
  int min_version = 2;         ///< ssl_min_version: 0 TLS 1.0 ... 3 TLS 1.3
  bool session_cache = false;  ///< ssl_session_cache
  bool kernel_tls = false;     ///< ssl_kernel_tls
  std::uint32_t write_size = 16u << 10;  ///< ssl_wbuf_size (kilobytes on the command line)
};

struct server_options {
  // memcached's flags that gpuhash-server honours
  std::uint16_t tcp_port = 11211;            ///< -p
  std::uint16_t udp_port = 0;                ///< -U (0: off; UDP is not served)
  std::string listen_address = "127.0.0.1";  ///< -l (may list several, comma separated)
  std::string unix_socket;                   ///< -s (empty: none)
  std::uint32_t unix_socket_mode = 0700;     ///< -a (octal)
  std::size_t memory_limit_mb = 64;          ///< -m
  std::size_t max_connections = 1024;        ///< -c
  std::size_t threads = 4;                   ///< -t
  std::size_t item_size_max = 1u << 20;      ///< -I (k/m/g suffixes; 1 KB to 1 GB, at most -m / 2)
  int verbosity = 0;                         ///< -v, -vv, -vvv
  bool evict = true;                         ///< false with -M
  bool shutdown_command = false;             ///< -A: the `shutdown` command is allowed
  bool cas_enabled = true;                   ///< false with -C
  bool flush_enabled = true;                 ///< false with -F: `flush_all` is refused
  bool dumping_enabled = true;               ///< false with -X: `lru_crawler metadump` is refused
  double growth_factor = 1.25;               ///< -f
  std::size_t chunk_size_min = 48;           ///< -n
  std::string run_as_user;                   ///< -u
  std::string auth_file;                     ///< -Y: "user:password" lines (empty: off)
  tls_options tls;                           ///< -Z and -o ssl_*
  /// -o read_buf_mem_limit, in bytes: what all connections' buffers (input,
  /// replies being assembled, output not yet sent) may hold together beyond
  /// each connection's own small allowance (net/memory_budget.hpp). 0: no
  /// limit, as in memcached. Default: a quarter of -m, at least 8 MB and
  /// four times -I (a largest request's buffer and a largest reply).
  std::size_t connection_memory_limit = 16u << 20;
  // gpuhash-server's own
  index_kind index = index_kind::automatic;  ///< --index=auto|gpu|cpu
  std::size_t batch_max = 32768;             ///< --batch-max: requests per index batch
  std::uint32_t batch_wait_us = 0;           ///< --batch-wait-us: longest wait to fill a batch
  /// --spin-us: how long the workers poll for work before they sleep (0:
  /// never), and the batch threads when longer than the poll after a batch
  /// that their shard's arrivals call for anyway (engine/arrival_gaps.hpp). Off by default: on the
  /// H200 machine it gained nothing with the CPU index and cost the GPU index, whose workers' time
  /// it takes (docs/results/server.md).
  std::uint32_t spin_us = 0;
  /// --batch-runner: who runs a shard's batches (engine.hpp): auto (a batch
  /// thread for the GPU index, the worker threads for the CPU's), thread,
  /// or workers.
  batch_runner_kind batch_runner = batch_runner_kind::automatic;
  /// --shards: shards of the items and the index, each running its own
  /// batches (0: one a thread, as far as -m gives each at least 8 MB).
  std::size_t shards = 0;

  /// Flags accepted for compatibility but without effect here, one line each
  /// ("-d: daemon mode is not supported; running in the foreground"), for
  /// main to print at -v.
  std::vector<std::string> ignored;
};

struct parse_outcome {
  enum class action : std::uint8_t { run, print_help, print_version, error };
  action what = action::run;
  server_options options;
  std::string message;  ///< the error (action::error)
};

/// Parses argv as memcached 1.6 does (short and long forms, "-p 11211",
/// "-p11211", "--port=11211", "-o opt1,opt2=value").
parse_outcome parse_command_line(int argc, const char* const* argv);

/// The text of -h.
std::string help_text();

}  // namespace gpuhash::server::config
