#pragma once
// The network's part of the server's settings (config/options.hpp holds the
// whole): where to listen, how many connections and workers, what the
// parser accepts, the connections' memory budget, TLS and -Y.

#include <cstddef>
#include <cstdint>
#include <string>

#include "net/listeners.hpp"
#include "protocol/request.hpp"

namespace gpuhash::server::net {

/// -Z and memcached's `-o ssl_*` options. The numbers are memcached's option
/// values (ssl_verify_mode 0-3, ssl_min_version 0-3: TLS 1.0 to 1.3,
/// ssl_keyformat 1: PEM, 2: DER); net/tls.cpp turns them into OpenSSL's.
struct tls_settings {
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

struct network_settings {
  listen_settings listen;              ///< -l, -p, -s, -a
  std::size_t max_connections = 1024;  ///< -c
  std::size_t threads = 4;             ///< -t: worker threads
  int verbosity = 0;                   ///< -v, -vv, -vvv
  std::uint32_t spin_us = 0;           ///< polling before a worker sleeps in epoll_wait
  /// -R: the requests of one connection a worker round takes at most; the
  /// rest wait for the next round (worker.hpp).
  std::size_t requests_per_event = 20;
  protocol::parser_limits limits;  ///< -I: the largest value a request may carry
  /// -o read_buf_mem_limit, in bytes: what all connections' buffers (input,
  /// replies being assembled, output not yet sent) may hold together beyond
  /// each connection's own small allowance (memory_budget.hpp). 0: no
  /// limit, as in memcached. Default: a quarter of -m, at least 8 MB and
  /// four times -I (a largest request's buffer and a largest reply).
  std::size_t memory_limit = 16u << 20;
  tls_settings tls;       ///< -Z and -o ssl_*
  std::string auth_file;  ///< -Y: "user:password" lines (empty: off)
};

}  // namespace gpuhash::server::net
