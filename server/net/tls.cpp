// TLS contexts and sessions (tls.hpp), on OpenSSL 3.

#include "net/tls.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <algorithm>
#include <climits>
#include <ctime>
#include <stdexcept>

namespace gpuhash::server::net {

namespace {

/// OpenSSL's first queued error as text (and the queue emptied).
std::string openssl_error() {
  std::string text;
  if (const unsigned long code = ERR_get_error(); code != 0) {
    char buffer[256];
    ERR_error_string_n(code, buffer, sizeof buffer);
    text = buffer;
  }
  ERR_clear_error();
  return text.empty() ? "unknown error" : text;
}

int openssl_version(int min_version) {
  switch (min_version) {
    case 0: return TLS1_VERSION;
    case 1: return TLS1_1_VERSION;
    case 2: return TLS1_2_VERSION;
    default: return TLS1_3_VERSION;
  }
}

/// memcached's session id context, which resumption needs with a session cache.
constexpr unsigned char session_id_context[] = "gpuhash-server";

}  // namespace

const char* tls_version_name(int min_version) noexcept {
  switch (min_version) {
    case 0: return "tlsv1.0";
    case 1: return "tlsv1.1";
    case 2: return "tlsv1.2";
    case 3: return "tlsv1.3";
    default: return "unknown";
  }
}

int tls_verify_flags(int verify_mode) noexcept {
  switch (verify_mode) {
    case 1: return SSL_VERIFY_PEER;
    case 2: return SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
    case 3: return SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT | SSL_VERIFY_CLIENT_ONCE;
    default: return SSL_VERIFY_NONE;
  }
}

tls_context::tls_context(const tls_settings& options)
    : options_(options), loaded_at_(static_cast<std::int64_t>(std::time(nullptr))) {
  OPENSSL_init_ssl(0, nullptr);
  context_ = SSL_CTX_new(TLS_server_method());
  if (context_ == nullptr)
    throw std::runtime_error("Error creating the TLS context: " + openssl_error());
  // From here the destructor does not run if a check throws: free by hand.
  const auto fail = [this](const std::string& what) {
    SSL_CTX_free(context_);
    context_ = nullptr;
    throw std::runtime_error(what);
  };
  SSL_CTX_set_min_proto_version(context_, openssl_version(options.min_version));
  if (SSL_CTX_use_certificate_chain_file(context_, options.chain_cert.c_str()) != 1) {
    fail("Error loading the certificate chain: " + options.chain_cert + " : " + openssl_error());
  }
  const std::string& key = options.key.empty() ? options.chain_cert : options.key;
  const int key_type = options.keyformat == 2 ? SSL_FILETYPE_ASN1 : SSL_FILETYPE_PEM;
  if (SSL_CTX_use_PrivateKey_file(context_, key.c_str(), key_type) != 1) {
    fail("Error loading the key: " + key + " : " + openssl_error());
  }
  if (SSL_CTX_check_private_key(context_) != 1) {
    fail("Error validating the certificate: " + openssl_error());
  }
  if (!options.ca_cert.empty()) {
    if (SSL_CTX_load_verify_locations(context_, options.ca_cert.c_str(), nullptr) != 1) {
      fail("Error loading the CA certificate: " + options.ca_cert + " : " + openssl_error());
    }
    SSL_CTX_set_client_CA_list(context_, SSL_load_client_CA_file(options.ca_cert.c_str()));
  }
  if (options.verify_mode != 0 && options.ca_cert.empty()) {
    // Without CAs no client certificate can be verified: every client would be refused.
    fail("ssl_verify_mode=" + std::to_string(options.verify_mode) +
         " checks client certificates against ssl_ca_cert, which is not given");
  }
  SSL_CTX_set_verify(context_, tls_verify_flags(options.verify_mode), nullptr);
  if (!options.ciphers.empty() && SSL_CTX_set_cipher_list(context_, options.ciphers.c_str()) != 1) {
    fail("Error setting the provided cipher(s): " + options.ciphers);
  }
  if (options.session_cache) {
    SSL_CTX_set_session_cache_mode(context_, SSL_SESS_CACHE_SERVER);
    SSL_CTX_set_session_id_context(context_, session_id_context, sizeof session_id_context - 1);
  } else {
    SSL_CTX_set_session_cache_mode(context_, SSL_SESS_CACHE_OFF);
  }
  if (options.kernel_tls) SSL_CTX_set_options(context_, SSL_OP_ENABLE_KTLS);
  // Renegotiation is a denial-of-service lever and nothing here needs it. A
  // client that closes its socket without close_notify has just left.
  SSL_CTX_set_options(context_, SSL_OP_NO_RENEGOTIATION | SSL_OP_IGNORE_UNEXPECTED_EOF);
  // Writes take what the socket takes (network.cpp keeps the rest), from an
  // output buffer that may move between retries; idle sessions give their
  // record buffers back.
  SSL_CTX_set_mode(context_, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
                                 SSL_MODE_RELEASE_BUFFERS);
}

tls_context::~tls_context() {
  if (context_ != nullptr) SSL_CTX_free(context_);
}

tls_session::tls_session(const tls_context& context, int fd)
    : session_(SSL_new(context.native())), write_size_(context.options().write_size) {
  if (session_ == nullptr) throw std::runtime_error("TLS session: " + openssl_error());
  SSL_set_fd(session_, fd);
  SSL_set_accept_state(session_);
}

tls_session::~tls_session() {
  SSL_free(session_);
}

transfer tls_session::read(char* into, std::size_t size) {
  const int asked = static_cast<int>(std::min<std::size_t>(size, INT_MAX));
  ERR_clear_error();
  const int result = SSL_read(session_, into, asked);
  if (result > 0) {
    return {transfer::state::moved, static_cast<std::size_t>(result)};
  }
  return failure(result);
}

transfer tls_session::write(const char* from, std::size_t size) {
  const int asked = static_cast<int>(std::min<std::size_t>(size, write_size_));
  ERR_clear_error();
  const int result = SSL_write(session_, from, asked);
  if (result > 0) {
    return {transfer::state::moved, static_cast<std::size_t>(result)};
  }
  return failure(result);
}

transfer tls_session::failure(int result) {
  const int error = SSL_get_error(session_, result);
  ERR_clear_error();
  const bool handshaken = SSL_is_init_finished(session_) == 1;
  switch (error) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE: return {transfer::state::again, 0};
    case SSL_ERROR_ZERO_RETURN: return {transfer::state::closed, 0};
    case SSL_ERROR_SYSCALL:
      // A reset under the TLS layer: a client that left is no protocol
      // error, but one that leaves mid-handshake failed its handshake.
      return {transfer::state::failed, 0,
              handshaken ? transfer::fault::none : transfer::fault::handshake};
    default:
      // A plaintext client on a TLS port lands here: its bytes are no TLS record.
      return {transfer::state::failed, 0,
              handshaken ? transfer::fault::protocol : transfer::fault::handshake};
  }
}

void tls_session::shutdown() noexcept {
  if (SSL_is_init_finished(session_)) SSL_shutdown(session_);
  ERR_clear_error();
}

}  // namespace gpuhash::server::net
