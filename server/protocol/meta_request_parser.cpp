// memcached 1.6.18's meta commands (mg ms md ma mn me), checked as its
// proto_text.c checks them before touching an item, so that the engine can
// trust every flag it is handed: the word counts, the key's length, the
// flags (_meta_flag_preparse), the ms and ma modes and the opaque's length,
// each with memcached's own error string and in its order (checked against
// a running memcached 1.6.18; request_parser_test.cpp says where).
// Unlike the classic commands, memcached answers every meta error, q or not.

#include <array>
#include <cstdint>
#include <string_view>

#include "protocol/base64.hpp"
#include "protocol/detail/command_line.hpp"

namespace gpuhash::server::protocol::detail {
namespace {

/// memcached refuses a meta command of more than 20 tokens, counting the
/// command, the key, ms's length and its own terminal token.
constexpr std::size_t max_meta_tokens = 20;
/// An opaque token, 'O' included, is at most this long.
constexpr std::size_t max_opaque_length = 32;

constexpr std::string_view mg_too_many_flags = "CLIENT_ERROR options flags are too long\r\n";
constexpr std::string_view too_many_flags = "CLIENT_ERROR options flags too long\r\n";
constexpr std::string_view duplicate_flag = "CLIENT_ERROR duplicate flag\r\n";
constexpr std::string_view invalid_flag = "CLIENT_ERROR invalid flag\r\n";
constexpr std::string_view invalid_or_duplicate_flag = "CLIENT_ERROR invalid or duplicate flag\r\n";
constexpr std::string_view bad_token = "CLIENT_ERROR bad token in command line format\r\n";
constexpr std::string_view error_decoding_key = "CLIENT_ERROR error decoding key\r\n";
constexpr std::string_view bad_mode_length = "CLIENT_ERROR incorrect length for M token\r\n";
constexpr std::string_view bad_initial = "CLIENT_ERROR invalid numeric initial value\r\n";
constexpr std::string_view bad_delta = "CLIENT_ERROR invalid numeric delta value\r\n";
constexpr std::string_view opaque_too_long = "CLIENT_ERROR opaque token too long\r\n";
constexpr std::string_view bad_ms_mode = "CLIENT_ERROR invalid mode for ms M token\r\n";
constexpr std::string_view bad_ma_mode = "CLIENT_ERROR invalid mode for ma M token\r\n";

bool is_base64_symbol(char c) noexcept {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
         c == '/' || c == '=';
}

/// Whether memcached's base64_decode accepts `key`: it skips bytes outside
/// the alphabet, needs a positive multiple of four symbols, and stops after
/// the first group holding padding, which may hold at most two '='.
bool base64_key_decodes(std::string_view key) noexcept {
  std::size_t symbols = 0;
  for (const char c : key) symbols += is_base64_symbol(c) ? 1 : 0;
  if (symbols == 0 || symbols % 4 != 0) return false;
  std::size_t in_group = 0;
  std::size_t padding = 0;
  for (const char c : key) {
    if (!is_base64_symbol(c)) continue;
    if (c == '=') ++padding;
    if (++in_group == 4) {
      if (padding != 0) return padding <= 2;
      in_group = 0;
    }
  }
  return true;
}

/// Decodes the key of a command with the b flag, once memcached's checks
/// have accepted it, into out.decoded_key (left empty when it does not
/// decode after all: the command then answers "error decoding key").
void decode_key(const parser_limits& limits, request& out) {
  out.key_in_base64 = true;
  if (!base64_decode(out.key, out.decoded_key) || out.decoded_key.size() > limits.key_max)
    out.decoded_key.clear();
}

/// memcached's _meta_flag_preparse: fills out.meta_flags and returns the
/// error reply, or "" when every flag is good. A duplicate or unknown letter
/// stops at once; a bad token is remembered and the scan goes on, the last
/// such message winning (F's, alone, keeps the message before it).
std::string_view check_flags(const command_line& line, std::size_t first,
                             const parser_limits& limits, request& out) {
  std::array<bool, 128> seen{};
  std::string_view message;
  bool bad = false;
  const auto fails = [&](bool failed, std::string_view text) {
    if (!failed) return;
    bad = true;
    if (!text.empty()) message = text;
  };
  for (std::size_t i = first; i < line.count; ++i) {
    const std::string_view word = line.words[i];
    const auto letter = static_cast<unsigned char>(word[0]);
    if (letter >= 127 || seen[letter]) return duplicate_flag;
    seen[letter] = true;
    const std::string_view token = word.substr(1);
    std::uint64_t unsigned_value = 0;
    std::int64_t signed_value = 0;
    switch (letter) {
      case 'b':
        if (base64_key_decodes(out.key)) {
          decode_key(limits, out);
        } else {
          fails(true, error_decoding_key);
        }
        break;
      case 'N':
      case 'T':
      case 'R': fails(!parse_signed_number(token, signed_value), bad_token); break;
      case 'F': fails(!parse_unsigned_number(token, unsigned_value), ""); break;
      case 'C': fails(!parse_unsigned_number(token, unsigned_value), bad_token); break;
      case 'M': fails(token.size() != 1, bad_mode_length); break;
      case 'J': fails(!parse_unsigned_number(token, unsigned_value), bad_initial); break;
      case 'D': fails(!parse_unsigned_number(token, unsigned_value), bad_delta); break;
      case 'I':
      case 'L':
      case 'O':
      case 'P':
      case 'c':
      case 'f':
      case 'h':
      case 'k':
      case 'l':
      case 'q':
      case 's':
      case 't':
      case 'u':
      case 'v': break;
      default: return invalid_flag;
    }
    out.meta_flags.push_back({word[0], token});
  }
  if (!bad) return {};
  return message.empty() ? reply::bad_format : message;
}

/// The flag `letter`, or null.
const meta_flag* find_flag(const request& out, char letter) {
  for (const meta_flag& flag : out.meta_flags)
    if (flag.letter == letter) return &flag;
  return nullptr;
}

bool opaque_too_long_in(const request& out) {
  const meta_flag* opaque = find_flag(out, 'O');
  return opaque != nullptr && opaque->token.size() + 1 > max_opaque_length;
}

bool mode_is_one_of(const request& out, std::string_view modes) {
  const meta_flag* mode = find_flag(out, 'M');
  return mode == nullptr || modes.find(mode->token[0]) != std::string_view::npos;
}

// me <key> [b]: memcached looks at one flag only, b right after the key.
parse_result parse_meta_debug(const command_line& line, const parser_limits& limits, request& out) {
  out.kind = command::meta_debug;
  out.key = line.word(1);
  if (line.count < 2 || !valid_key(out.key, limits)) return fail(reply::bad_format, line.size);
  if (line.count >= 3 && line.words[2] == "b") {
    if (!base64_key_decodes(out.key)) return fail(reply::bad_format, line.size);
    out.meta_flags.push_back({'b', ""});
    decode_key(limits, out);
  }
  return accepted(line.size);
}

// ms <key> <datalen> <flag>*, then the data block.
parse_result parse_meta_set(std::string_view input, const command_line& line,
                            const parser_limits& limits, request& out) {
  if (line.count == 2) return fail(reply::bad_format, line.size);
  if (line.count + 1 > max_meta_tokens) return fail(too_many_flags, line.size);
  std::int64_t length = 0;
  if (!parse_signed_number(line.words[2], length) || length < 0 || length > max_data_length)
    return fail(reply::bad_format, line.size);
  // From here on memcached knows the block's length and swallows it after an error.
  const auto value_size = static_cast<std::size_t>(length);
  const std::size_t with_block = line.size + value_size + 2;
  if (const std::string_view problem = check_flags(line, 3, limits, out); !problem.empty())
    return fail(problem, with_block);
  // memcached checks the mode after the opaque, and its message wins.
  if (!mode_is_one_of(out, "EAPRS")) return fail(bad_ms_mode, with_block);
  if (opaque_too_long_in(out)) return fail(opaque_too_long, with_block);
  if (value_size > limits.item_size_max) return fail(reply::too_large, with_block);
  // "metaset mode always returns errors": q does not silence a bad chunk.
  return take_data_block(input, line, value_size, false, out);
}

// mg md ma <key> <flag>*, ms through parse_meta_set.
parse_result parse_meta_keyed(command kind, std::string_view input, const command_line& line,
                              const parser_limits& limits, request& out) {
  if (line.count < 2) return fail(reply::error, line.size);
  out.kind = kind;
  out.key = line.words[1];
  if (out.key.size() > limits.key_max) return fail(reply::bad_format, line.size);
  if (kind == command::meta_set) return parse_meta_set(input, line, limits, out);
  if (line.count + 1 > max_meta_tokens)
    return fail(kind == command::meta_get ? mg_too_many_flags : too_many_flags, line.size);
  const std::string_view problem = check_flags(line, 2, limits, out);
  if (!problem.empty())
    return fail(kind == command::meta_get ? problem : invalid_or_duplicate_flag, line.size);
  if (kind == command::meta_arithmetic && !mode_is_one_of(out, "I+D-"))
    return fail(bad_ma_mode, line.size);
  if (opaque_too_long_in(out)) return fail(opaque_too_long, line.size);
  return accepted(line.size);
}

}  // namespace

parse_result parse_meta_command(std::string_view input, const command_line& line,
                                const parser_limits& limits, request& out) {
  switch (line.words[0][1]) {
    case 'g': return parse_meta_keyed(command::meta_get, input, line, limits, out);
    case 's': return parse_meta_keyed(command::meta_set, input, line, limits, out);
    case 'd': return parse_meta_keyed(command::meta_delete, input, line, limits, out);
    case 'a': return parse_meta_keyed(command::meta_arithmetic, input, line, limits, out);
    case 'e': return parse_meta_debug(line, limits, out);
    case 'n':
      // memcached answers "MN" whatever follows.
      out.kind = command::meta_noop;
      return accepted(line.size);
    default: return fail(reply::error, line.size);
  }
}

}  // namespace gpuhash::server::protocol::detail
