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
inline bool token_number(std::string_view token, std::uint32_t& value) {
  std::uint64_t wide = 0;
  if (!protocol::parse_unsigned_number(token, wide) || wide > 0xFFFFFFFFu) return false;
  value = static_cast<std::uint32_t>(wide);
  return true;
}

inline bool has_flag(const protocol::request& request, char letter) {
  for (const protocol::meta_flag& flag : request.meta_flags)
    if (flag.letter == letter) return true;
  return false;
}

inline constexpr std::string_view invalid_flag = "CLIENT_ERROR invalid flag\r\n";
inline constexpr std::string_view bad_format = "CLIENT_ERROR bad command line format\r\n";
inline constexpr std::string_view bad_key = "CLIENT_ERROR error decoding key\r\n";
inline constexpr std::string_view no_memory = "SERVER_ERROR out of memory storing object\r\n";

/// What reading one of a meta command's flags gave.
enum class flag_outcome : std::uint8_t {
  read,       ///< taken
  bad_token,  ///< its token is not the number it must be: bad_format
  unknown,    ///< not one of the command's flags: invalid_flag
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
      case flag_outcome::unknown: out.append(invalid_flag); return false;
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

/// The return flags, in the order the request gave them (as memcached): c f
/// h k l O s t, those an item is needed for only when there is one; then
/// "b" when the key is returned in base64.
void append_return_flags(const protocol::request& request, const reply_context& context,
                         std::string& out);
/// A reply of `code` and the return flags of no item (a miss, a refusal).
void append_bare_reply(std::string_view code, const protocol::request& request, std::int64_t now,
                       std::string& out);

}  // namespace gpuhash::server::engine::meta
