#pragma once
// Internals shared by request_parser.cpp (framing, classic commands) and
// meta_request_parser.cpp: a command line split into words the way memcached
// 1.6.18's tokenize_command splits it, memcached's error replies, and the
// helpers both halves build their results with.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "protocol/request.hpp"

namespace gpuhash::server::protocol::detail {

/// memcached splits a line into at most 23 words (MAX_TOKENS 24, one of them
/// its terminal marker) and leaves the rest unread; only the retrievals read
/// on. The word counts the commands check saturate at 23, as memcached's do.
inline constexpr std::size_t max_words = 23;

/// One command line, without its "\r\n". Only its first `count` words are
/// the line's: word() reads past them as "", and nothing reads words[]
/// past them.
struct command_line {
  std::string_view text;  ///< cut at the first NUL, as memcached's strlen cuts it
  std::size_t size = 0;   ///< bytes of input it took, '\n' included
  std::array<std::string_view, max_words> words{};
  std::size_t count = 0;  ///< words read, at most max_words

  std::string_view word(std::size_t i) const noexcept { return i < count ? words[i] : ""; }
  std::string_view last() const noexcept { return words[count - 1]; }
};

/// Splits `text` at spaces (only ' ', as memcached) into line.words.
void split_words(std::string_view text, command_line& line) noexcept;

/// memcached 1.6.18's replies, "\r\n" included.
namespace reply {
inline constexpr std::string_view error = "ERROR\r\n";
inline constexpr std::string_view bad_format = "CLIENT_ERROR bad command line format\r\n";
inline constexpr std::string_view bad_data_chunk = "CLIENT_ERROR bad data chunk\r\n";
inline constexpr std::string_view too_large = "SERVER_ERROR object too large for cache\r\n";
}  // namespace reply

/// memcached keeps a data length in an int and adds 2 for the "\r\n".
inline constexpr std::int64_t max_data_length = 0x7FFFFFFF - 2;

/// A request of `consumed` bytes.
inline parse_result accepted(std::size_t consumed) {
  parse_result result;
  result.outcome = parse_outcome::request;
  result.consumed = consumed;
  return result;
}

/// An error answered with `text` after dropping `consumed` bytes.
inline parse_result fail(std::string_view text, std::size_t consumed, bool silent = false) {
  parse_result result;
  result.outcome = parse_outcome::error;
  result.consumed = consumed;
  result.error_reply = text;
  result.silent = silent;
  return result;
}

/// A storage command's data block: `length` bytes and "\r\n" right after the
/// line. need_more until all have come; "bad data chunk" (answered unless
/// `silent`) when the two bytes after the value are not "\r\n", consuming
/// the block all the same, as memcached does.
parse_result take_data_block(std::string_view input, const command_line& line, std::size_t length,
                             bool silent, request& out);

/// mg ms md ma mn me: line.word(0) is a two-letter meta command.
parse_result parse_meta_command(std::string_view input, const command_line& line,
                                const parser_limits& limits, request& out);

}  // namespace gpuhash::server::protocol::detail
