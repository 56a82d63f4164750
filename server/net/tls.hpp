#pragma once
// TLS for the server's TCP connections, as memcached 1.6 serves it (-Z and
// its -o ssl_* options), with OpenSSL: Debian's libssl-dev, the library
// memcached itself links, so that certificates, keys, cipher lists and
// verify modes mean exactly what they mean to memcached.
//
// One context per process (the certificate, key, CAs and policy), one
// session per connection. A session is used by its connection's worker
// thread alone: the thread that completes a group never writes to a TLS
// connection (network.cpp, send_replies_now).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "net/network_settings.hpp"

struct ssl_ctx_st;
struct ssl_st;

namespace gpuhash::server::net {

/// What a read or write on a connection did, as recv/send report it:
/// `bytes` > 0 moved, or one of the states below.
struct transfer {
  enum class state : std::uint8_t {
    moved,   ///< `bytes` were read or written
    again,   ///< nothing now; the socket's next event brings more
    closed,  ///< the peer closed (a read: EOF or TLS close_notify)
    failed,  ///< the connection is broken (reset, TLS protocol error)
  };
  /// Why a TLS connection failed, for memcached's counters.
  enum class fault : std::uint8_t {
    none,
    handshake,  ///< before the handshake completed (ssl_handshake_errors)
    protocol,   ///< after it (ssl_proto_errors)
  };
  state what = state::again;
  std::size_t bytes = 0;
  fault cause = fault::none;
};

class tls_context {
 public:
  /// Loads the certificate chain and key, the client CAs, and applies the
  /// options. Throws std::runtime_error with memcached's message ("Error
  /// loading the certificate chain: <file> : <OpenSSL's reason>") when one
  /// cannot be used; the server then stops at start-up.
  explicit tls_context(const tls_settings& options);
  ~tls_context();
  tls_context(const tls_context&) = delete;
  tls_context& operator=(const tls_context&) = delete;

  ssl_ctx_st* native() const noexcept { return context_; }
  const tls_settings& options() const noexcept { return options_; }
  /// Unix seconds when the certificates were loaded (time_since_server_cert_refresh).
  std::int64_t loaded_at() const noexcept { return loaded_at_; }

 private:
  tls_settings options_;
  ssl_ctx_st* context_ = nullptr;
  std::int64_t loaded_at_ = 0;
};

/// One connection's TLS session: the handshake happens inside the first
/// reads and writes (a nonblocking SSL_accept).
class tls_session {
 public:
  /// Throws std::runtime_error when OpenSSL cannot make a session.
  tls_session(const tls_context& context, int fd);
  ~tls_session();
  tls_session(const tls_session&) = delete;
  tls_session& operator=(const tls_session&) = delete;

  transfer read(char* into, std::size_t size);
  transfer write(const char* from, std::size_t size);
  /// Sends close_notify if the socket takes it now; never waits.
  void shutdown() noexcept;

 private:
  transfer failure(int result);

  ssl_st* session_ = nullptr;
  std::size_t write_size_;
};

/// memcached's name of a TLS version option ("tlsv1.2"), for `stats settings`.
const char* tls_version_name(int min_version) noexcept;
/// OpenSSL's verify flags for memcached's ssl_verify_mode 0-3, as memcached
/// shows them in `stats settings`.
int tls_verify_flags(int verify_mode) noexcept;

}  // namespace gpuhash::server::net
