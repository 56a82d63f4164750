#pragma once
// memcached's text-protocol authentication (-Y <file>; doc/protocol.txt,
// "Authentication"). The file holds "user:password" lines. A connection
// starts unauthenticated; it authenticates with a `set` whose data is
// "user password" (key, flags and exptime are ignored), answered STORED, and
// until then every request is answered "CLIENT_ERROR unauthenticated", as
// memcached 1.6.18's try_read_command_asciiauth answers it (the quirks
// below included, so that clients in step with memcached stay in step).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpuhash::server::net {

class auth_file {
 public:
  /// Reads `path`. Throws std::runtime_error with memcached's message
  /// ("Could not open authfile [<path>] for reading, error <reason>",
  /// "Authfile [<path>] has a malformed entry. Should be 'user:password'");
  /// the server then stops at start-up.
  static auth_file load(const std::string& path);

  /// Whether the pair is in the file, compared in time independent of
  /// where the bytes differ.
  bool check(std::string_view user, std::string_view password) const noexcept;
  std::size_t users() const noexcept { return entries_.size(); }

 private:
  struct entry {
    std::string user;
    std::string password;
  };
  std::vector<entry> entries_;
};

/// What one look at an unauthenticated connection's input decided.
struct auth_step {
  enum class action : std::uint8_t {
    need_more,  ///< nothing complete yet: read more
    reply,      ///< send `reply`, drop `consumed` bytes, look again
    close,      ///< close the connection without a word (memcached's conn_closing)
  };
  action what = action::need_more;
  std::size_t consumed = 0;
  std::string_view reply;      ///< "\r\n" included
  bool authenticated = false;  ///< the reply is STORED: the connection may now do anything
  bool counted = false;        ///< an authentication attempt (auth_cmds)
  bool failed = false;         ///< a failed one (auth_errors)
};

/// Reads the first request of `input` as memcached reads it before a
/// connection has authenticated.
auth_step authenticate(std::string_view input, const auth_file& users);

}  // namespace gpuhash::server::net
