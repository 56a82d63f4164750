#pragma once
// What the meta commands (meta*.cpp) share: reading their flags' tokens,
// their error replies, and their return flags.

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/commands/command_set.hpp"

namespace gpuhash::server::engine::meta {

/// A flag's numeric token, read by memcached's rules (protocol/request.hpp).
inline bool token_number(std::string_view token, std::int64_t& value) {
  return protocol::parse_signed_number(token, value);
}
inline bool token_number(std::string_view token, std::uint64_t& value) {
  return protocol::parse_unsigned_number(token, value);
}
/// ms's F: memcached's safe_strtoul reads 64 bits and keeps the low 32.
inline bool token_number(std::string_view token, std::uint32_t& value) {
  std::uint64_t wide = 0;
  if (!protocol::parse_unsigned_number(token, wide)) return false;
  value = static_cast<std::uint32_t>(wide);
  return true;
}

inline bool has_flag(const protocol::request& request, char letter) {
  for (const protocol::meta_flag& flag : request.meta_flags)
    if (flag.letter == letter) return true;
  return false;
}

inline constexpr std::string_view bad_format = "CLIENT_ERROR bad command line format\r\n";
inline constexpr std::string_view bad_key = "CLIENT_ERROR error decoding key\r\n";
inline constexpr std::string_view no_memory = "SERVER_ERROR out of memory storing object\r\n";

/// What reading one of a meta command's flags gave. A flag the command has
/// no use for is read and ignored, as memcached ignores it: the parser has
/// already refused the letters memcached refuses (protocol/
/// meta_request_parser.cpp).
enum class flag_outcome : std::uint8_t {
  read,       ///< taken (or ignored)
  bad_token,  ///< its token is not the number it must be: bad_format
  bad_mode,   ///< its M token names none of the command's modes
};

/// Reads a meta command's flags in order with `read(flag)`; at the first one
/// not read, writes its error (`bad_mode`: the command's own) and returns
/// false.
template <class Read>
bool read_flags(const protocol::request& request, std::string_view bad_mode, std::string& out,
                Read&& read) {
  for (const protocol::meta_flag& flag : request.meta_flags) {
    switch (read(flag)) {
      case flag_outcome::read: continue;
      case flag_outcome::bad_token: out.append(bad_format); return false;
      case flag_outcome::bad_mode: out.append(bad_mode); return false;
    }
  }
  return true;
}

/// `read` if the token was read, else `bad_token`.
inline flag_outcome read_if(bool ok) {
  return ok ? flag_outcome::read : flag_outcome::bad_token;
}

/// What a meta reply's return flags describe.
struct reply_context {
  const store::item* item = nullptr;  // null: no item (a miss)
  std::int64_t now = 0;
  bool hit_before = false;
  std::int64_t last_access = 0;
};

/// The return flags of mg, memcached's order of letters; ms and ma return
/// fewer (their own lists below).
inline constexpr std::string_view get_returns = "cfhklOst";
inline constexpr std::string_view set_returns = "ckO";
inline constexpr std::string_view arithmetic_returns = "cktO";

/// The return flags among `returned`, in the order the request gave them (as
/// memcached): those an item is needed for only when there is one; then "b"
/// when the key is returned in base64.
void append_return_flags(const protocol::request& request, const reply_context& context,
                         std::string& out, std::string_view returned = get_returns);
/// A reply of `code` and the return flags of no item (a miss, a refusal).
void append_bare_reply(std::string_view code, const protocol::request& request, std::int64_t now,
                       std::string& out);

}  // namespace gpuhash::server::engine::meta
