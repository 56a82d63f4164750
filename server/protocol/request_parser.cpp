// memcached 1.6.18's text protocol as its proto_text.c reads it, checked
// against a running memcached 1.6.18 (request_parser_test.cpp says where):
// how requests are framed in the input, the classic commands, and the rules
// for numbers. The meta commands are in meta_request_parser.cpp.
//
// memcached's quirks kept, because clients in step with memcached rely on
// them: a bare "\n" ends a line; a NUL cuts it; keys are split at spaces
// only, so they may hold other control bytes (protocol.txt forbids them,
// memcached stores them); numbers may carry a sign and whitespace;
// "noreply" silences errors too; a bad data chunk consumes the length the
// line announced; a value too large is swallowed; an HTTP request or a long
// line without "\n" closes the connection without a word.
// Client flags are read as memcached's safe_strtoul reads them: a 64-bit
// number whose low 32 bits are kept (4294967297 is 1). Data lengths above
// 2^31-3, which memcached reads modulo 2^32, are refused instead with
// "CLIENT_ERROR bad command line format"; such a refused storage command
// still consumes its data block, so the stream stays in step.

#include "protocol/request.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>

#include "protocol/detail/command_line.hpp"

namespace gpuhash::server::protocol {

namespace detail {

void split_words(std::string_view text, command_line& line) noexcept {
  line.count = 0;
  std::size_t position = 0;
  while (line.count < max_words) {
    const std::size_t start = text.find_first_not_of(' ', position);
    if (start == std::string_view::npos) return;
    const std::size_t end = std::min(text.find(' ', start), text.size());
    line.words[line.count++] = text.substr(start, end - start);
    position = end;
  }
}

parse_result take_data_block(std::string_view input, const command_line& line, std::size_t length,
                             bool silent, request& out) {
  const std::size_t end = line.size + length + 2;
  if (input.size() < end) return {};
  // memcached reads exactly length + 2 bytes and checks the last two; checked
  // against memcached 1.6.18: "set a 0 0 1\r\nxy\r\n" answers "bad data
  // chunk", then "ERROR" for the "\n" left behind.
  if (input.substr(end - 2, 2) != "\r\n") return fail(reply::bad_data_chunk, end, silent);
  out.data = input.substr(line.size, length);
  return accepted(end);
}

}  // namespace detail

namespace {

using detail::accepted;
using detail::command_line;
using detail::fail;
namespace reply = detail::reply;

/// memcached closes a connection once it holds more than 2048 bytes of a
/// line without its '\n', unless the line is a multi-get ("get " or "gets "
/// after at most 100 spaces), which may grow without bound. A longer line
/// whose '\n' came with it is read like any other, up to memcached's read
/// buffer (16 KB): past that memcached never sees the '\n' in time.
constexpr std::size_t max_line_without_newline = 2048;
constexpr std::size_t max_line = 16384;
constexpr std::size_t max_multiget_indent = 100;

constexpr std::string_view binary_protocol = "CLIENT_ERROR binary protocol is not supported\r\n";
constexpr std::string_view line_too_long = "CLIENT_ERROR line too long\r\n";
constexpr std::string_view invalid_exptime = "CLIENT_ERROR invalid exptime argument\r\n";
constexpr std::string_view invalid_delta = "CLIENT_ERROR invalid numeric delta argument\r\n";
constexpr std::string_view delete_usage =
    "CLIENT_ERROR bad command line format.  Usage: delete <key> [noreply]\r\n";
constexpr std::string_view crawler_disabled = "CLIENT_ERROR lru crawler disabled\r\n";
constexpr std::string_view crawler_not_started = "ERROR failed to start lru crawler thread\r\n";
constexpr std::string_view lru_pcts_too_large = "ERROR hot and warm pcts must not exceed 80\r\n";
constexpr std::string_view lru_factors_not_positive =
    "ERROR hot/warm age factors must be greater than 0\r\n";

/// C's isspace in the "C" locale, which memcached's number parsing stops at.
bool is_c_space(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/// What strtoull and strtoll read: the magnitude and sign of a decimal.
struct decimal {
  std::uint64_t magnitude = 0;
  bool negative = false;
};

/// strtoull's grammar plus memcached's safe_strto* rule that the number ends
/// the token or is followed by whitespace; false where strtoull sets ERANGE.
bool read_decimal(std::string_view token, decimal& out) noexcept {
  std::size_t i = 0;
  while (i < token.size() && is_c_space(token[i])) ++i;
  if (i < token.size() && (token[i] == '+' || token[i] == '-')) out.negative = token[i++] == '-';
  const std::size_t first_digit = i;
  bool overflow = false;
  constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  for (; i < token.size() && token[i] >= '0' && token[i] <= '9'; ++i) {
    const auto digit = static_cast<std::uint64_t>(token[i] - '0');
    overflow = overflow || out.magnitude > (max - digit) / 10;
    if (!overflow) out.magnitude = out.magnitude * 10 + digit;
  }
  if (i == first_digit || overflow) return false;
  return i == token.size() || is_c_space(token[i]);
}

/// A client flags field: the low 32 bits of a 64-bit number (see the file comment).
bool parse_client_flags(std::string_view token, std::uint32_t& out) noexcept {
  std::uint64_t value = 0;
  if (!parse_unsigned_number(token, value)) return false;
  out = static_cast<std::uint32_t>(value);
  return true;
}

parse_result closing(std::string_view text, bool silent) {
  parse_result result = fail(text, 0, silent);
  result.close_connection = true;
  return result;
}

/// The line after its first `skipped` words, without the spaces around it.
std::string_view rest_of_line(const command_line& line, std::size_t skipped) {
  const std::string_view last = line.words[skipped - 1];
  std::string_view rest =
      line.text.substr(static_cast<std::size_t>(last.data() + last.size() - line.text.data()));
  const std::size_t start = rest.find_first_not_of(' ');
  if (start == std::string_view::npos) return {};
  rest.remove_prefix(start);
  return rest.substr(0, rest.find_last_not_of(' ') + 1);
}

/// Calls `visit` with each word of `text` (a command's argument, or the rest
/// of a line past the 23 words that command_line holds).
template <class Visit>
bool for_each_word(std::string_view text, Visit&& visit) {
  std::size_t position = 0;
  while (true) {
    const std::size_t start = text.find_first_not_of(' ', position);
    if (start == std::string_view::npos) return true;
    const std::size_t end = std::min(text.find(' ', start), text.size());
    if (!visit(text.substr(start, end - start))) return false;
    position = end;
  }
}

/// Whether the input begins a multi-get, which memcached lets grow past 2048 bytes.
bool starts_multiget(std::string_view input) {
  const std::size_t indent = std::min(input.find_first_not_of(' '), input.size());
  if (indent > max_multiget_indent) return false;
  const std::string_view command = input.substr(indent);
  return command.starts_with("get ") || command.starts_with("gets ");
}

// get gets gat gats <exptime> <key>*: memcached reads every key however long
// the line, and refuses the whole command at the first bad key.
parse_result parse_retrieval(command kind, const command_line& line, const parser_limits& limits,
                             request& out) {
  if (line.count < 2) return fail(reply::error, line.size);
  out.kind = kind;
  std::size_t skip = 1;
  if (kind == command::gat || kind == command::gats) {
    if (!parse_signed_number(line.words[1], out.exptime)) return fail(invalid_exptime, line.size);
    skip = 2;
  }
  const auto take_key = [&](std::string_view word) {
    out.keys.push_back(word);
    return valid_key(word, limits);
  };
  // the words split already, then those past them
  bool keys_valid = true;
  for (std::size_t w = skip; w < line.count && keys_valid; ++w)
    keys_valid = take_key(line.words[w]);
  if (keys_valid && line.count == detail::max_words) {
    const std::string_view last = line.words[line.count - 1];
    const auto split = static_cast<std::size_t>(last.data() + last.size() - line.text.data());
    keys_valid = for_each_word(line.text.substr(split), take_key);
  }
  if (!keys_valid) return fail(reply::bad_format, line.size);
  return accepted(line.size);
}

// set add replace append prepend <key> <flags> <exptime> <bytes> [noreply],
// cas <key> <flags> <exptime> <bytes> <cas unique> [noreply].
parse_result parse_storage(command kind, std::string_view input, const command_line& line,
                           const parser_limits& limits, request& out) {
  const std::size_t words = kind == command::cas ? 6 : 5;
  if (line.count != words && line.count != words + 1) return fail(reply::error, line.size);
  // memcached takes the last word for "noreply" before anything else, so it
  // also silences the errors below (memcached 1.6.18: "set a 0 0 1x
  // noreply" answers nothing).
  const bool noreply = line.last() == "noreply";
  out.kind = kind;
  out.key = line.words[1];
  out.noreply = noreply;
  if (out.key.size() > limits.key_max) return fail(reply::bad_format, line.size, noreply);
  std::int64_t length = 0;
  if (!parse_client_flags(line.words[2], out.client_flags) ||
      !parse_signed_number(line.words[3], out.exptime) ||
      !parse_signed_number(line.words[4], length) ||
      (kind == command::cas && !parse_unsigned_number(line.words[5], out.cas_unique)) ||
      length < 0 || length > detail::max_data_length)
    return fail(reply::bad_format, line.size, noreply);
  const auto value_size = static_cast<std::size_t>(length);
  const std::size_t with_block = line.size + value_size + 2;
  if (value_size > limits.item_size_max) return fail(reply::too_large, with_block, noreply);
  return detail::take_data_block(input, line, value_size, noreply, out);
}

// delete <key> [0] [noreply]: memcached still takes the old "hold time" if it is 0.
parse_result parse_delete(const command_line& line, const parser_limits& limits, request& out) {
  if (line.count < 2 || line.count > 4) return fail(reply::error, line.size);
  out.kind = command::delete_;
  out.key = line.words[1];
  if (line.count > 2) {
    const bool hold_is_zero = line.words[2] == "0";
    out.noreply = line.last() == "noreply";
    const bool valid = (line.count == 3 && (hold_is_zero || out.noreply)) ||
                       (line.count == 4 && hold_is_zero && out.noreply);
    if (!valid) return fail(delete_usage, line.size, out.noreply);
  }
  if (!valid_key(out.key, limits)) return fail(reply::bad_format, line.size, out.noreply);
  return accepted(line.size);
}

// incr decr <key> <delta> [noreply], touch <key> <exptime> [noreply]: an
// unknown third word is ignored, as memcached ignores it.
parse_result parse_keyed_number(command kind, const command_line& line, const parser_limits& limits,
                                request& out) {
  if (line.count != 3 && line.count != 4) return fail(reply::error, line.size);
  out.kind = kind;
  out.key = line.words[1];
  out.noreply = line.last() == "noreply";
  if (!valid_key(out.key, limits)) return fail(reply::bad_format, line.size, out.noreply);
  if (kind == command::touch) {
    if (!parse_signed_number(line.words[2], out.exptime))
      return fail(invalid_exptime, line.size, out.noreply);
  } else if (!parse_unsigned_number(line.words[2], out.delta)) {
    return fail(invalid_delta, line.size, out.noreply);
  }
  return accepted(line.size);
}

// flush_all [delay] [noreply]: a word after the delay that is not "noreply" is ignored.
parse_result parse_flush_all(const command_line& line, request& out) {
  if (line.count > 3) return fail(reply::error, line.size);
  out.kind = command::flush_all;
  out.noreply = line.count > 1 && line.last() == "noreply";
  if (line.count != (out.noreply ? 2u : 1u) && !parse_signed_number(line.words[1], out.delay))
    return fail(invalid_exptime, line.size, out.noreply);
  return accepted(line.size);
}

// verbosity <level> [noreply]: memcached caps the level, so a level past 32
// bits is not an error; it is capped here too.
parse_result parse_verbosity(const command_line& line, request& out) {
  if (line.count != 2 && line.count != 3) return fail(reply::error, line.size);
  out.kind = command::verbosity;
  out.noreply = line.last() == "noreply";
  std::uint64_t level = 0;
  if (!parse_unsigned_number(line.words[1], level))
    return fail(reply::bad_format, line.size, out.noreply);
  out.level = static_cast<std::uint32_t>(
      std::min<std::uint64_t>(level, std::numeric_limits<std::uint32_t>::max()));
  return accepted(line.size);
}

// cache_memlimit <megabytes> [noreply]: memcached answers ERROR to a value
// that is not a number.
parse_result parse_cache_memlimit(const command_line& line, request& out) {
  if (line.count != 2 && line.count != 3) return fail(reply::error, line.size);
  out.kind = command::cache_memlimit;
  out.noreply = line.count == 3 && line.last() == "noreply";
  if (!parse_unsigned_number(line.words[1], out.delta)) return fail(reply::error, line.size);
  return accepted(line.size);
}

// lru_crawler: gpuhash has no crawler thread; it answers metadump from its
// index and the other subcommands as memcached 1.6.18 answers them when its
// crawler cannot run.
parse_result parse_lru_crawler(const command_line& line, const parser_limits& limits,
                               request& out) {
  const std::string_view subcommand = line.word(1);
  if (subcommand == "metadump" && line.count >= 3) {
    out.kind = command::lru_crawler_metadump;
    out.argument = rest_of_line(line, 2);
    const bool dumps_all = out.argument == "all";
    const bool keys_valid = for_each_word(out.argument, [&](std::string_view word) {
      if (!dumps_all) out.keys.push_back(word);
      return valid_key(word, limits);
    });
    if (!keys_valid) return fail(reply::bad_format, line.size);
    return accepted(line.size);
  }
  if (subcommand == "crawl" && line.count == 3) return fail(crawler_disabled, line.size);
  if (subcommand == "enable" && line.count == 2) return fail(crawler_not_started, line.size);
  return fail(reply::error, line.size);
}

/// A real number as memcached's safe_strtod reads it: strtod's grammar, then
/// the token's end or whitespace; false where strtod sets ERANGE.
bool parse_real_number(std::string_view token, double& out) {
  const std::string text(token);  // strtod needs its NUL
  char* end = nullptr;
  errno = 0;
  out = std::strtod(text.c_str(), &end);
  if (errno == ERANGE || end == text.c_str()) return false;
  return *end == '\0' || is_c_space(*end);
}

// lru tune <hot_pct> <warm_pct> <hot_max_factor> <warm_max_factor>, lru mode
// flat|segmented, lru temp_ttl <ttl>, each with an optional noreply that
// silences every reply, errors too (memcached's out_string). Words past
// those read are ignored. The engine refuses mode and temp_ttl without the
// LRU maintainer, as memcached does, with ERROR.
parse_result parse_lru(const command_line& line, request& out) {
  if (line.count < 2) return fail(reply::error, line.size);
  out.kind = command::lru;
  out.noreply = line.last() == "noreply";
  lru_change& change = out.lru;
  const std::string_view setting = line.words[1];
  if (setting == "tune" && line.count >= 6) {
    change.what = lru_change::setting::tune;
    if (!parse_client_flags(line.words[2], change.hot_lru_pct) ||
        !parse_client_flags(line.words[3], change.warm_lru_pct) ||
        !parse_real_number(line.words[4], change.hot_max_factor) ||
        !parse_real_number(line.words[5], change.warm_max_factor))
      return fail(reply::error, line.size, out.noreply);
    // memcached adds the two as 32-bit numbers
    if (static_cast<std::uint32_t>(change.hot_lru_pct + change.warm_lru_pct) > 80)
      return fail(lru_pcts_too_large, line.size, out.noreply);
    if (change.warm_max_factor <= 0 || change.hot_max_factor <= 0)
      return fail(lru_factors_not_positive, line.size, out.noreply);
    return accepted(line.size);
  }
  if (setting == "mode" && line.count >= 3) {
    change.what = lru_change::setting::mode;
    if (line.words[2] != "flat" && line.words[2] != "segmented")
      return fail(reply::error, line.size, out.noreply);
    change.segmented = line.words[2] == "segmented";
    return accepted(line.size);
  }
  if (setting == "temp_ttl" && line.count >= 3) {
    change.what = lru_change::setting::temp_ttl;
    std::int64_t ttl = 0;
    if (!parse_signed_number(line.words[2], ttl)) return fail(reply::error, line.size, out.noreply);
    change.temporary_ttl = static_cast<std::int32_t>(ttl);  // safe_strtol keeps the low 32 bits
    return accepted(line.size);
  }
  return fail(reply::error, line.size, out.noreply);
}

/// `stats cachedump <class> <limit>`'s arguments, refused as memcached's
/// process_stat refuses them: fewer than two, either not a number (read as
/// safe_strtoul reads them, as client flags are), a class past memcached's 63.
void read_cachedump_arguments(const command_line& line, request& out) {
  constexpr std::uint32_t classes_max = 63;
  if (line.count < 4) {
    out.dump_refusal = "CLIENT_ERROR bad command line\r\n";
  } else if (!parse_client_flags(line.words[2], out.dump_class) ||
             !parse_client_flags(line.words[3], out.dump_limit)) {
    out.dump_refusal = reply::bad_format;
  } else if (out.dump_class > classes_max) {
    out.dump_refusal = "CLIENT_ERROR Illegal slab id\r\n";
  }
}

parse_result parse_command(std::string_view input, const command_line& line,
                           const parser_limits& limits, request& out) {
  // memcached: no command is shorter than two bytes.
  if (line.count == 0 || line.words[0].size() < 2) return fail(reply::error, line.size);
  const std::string_view name = line.words[0];
  if (name[0] == 'm' && name.size() == 2)
    return detail::parse_meta_command(input, line, limits, out);
  if (name == "get" || name == "bget") return parse_retrieval(command::get, line, limits, out);
  if (name == "gets") return parse_retrieval(command::gets, line, limits, out);
  if (name == "gat") return parse_retrieval(command::gat, line, limits, out);
  if (name == "gats") return parse_retrieval(command::gats, line, limits, out);
  if (name == "set") return parse_storage(command::set, input, line, limits, out);
  if (name == "add") return parse_storage(command::add, input, line, limits, out);
  if (name == "replace") return parse_storage(command::replace, input, line, limits, out);
  if (name == "append") return parse_storage(command::append, input, line, limits, out);
  if (name == "prepend") return parse_storage(command::prepend, input, line, limits, out);
  if (name == "cas") return parse_storage(command::cas, input, line, limits, out);
  if (name == "delete") return parse_delete(line, limits, out);
  if (name == "incr") return parse_keyed_number(command::incr, line, limits, out);
  if (name == "decr") return parse_keyed_number(command::decr, line, limits, out);
  if (name == "touch") return parse_keyed_number(command::touch, line, limits, out);
  if (name == "flush_all") return parse_flush_all(line, out);
  if (name == "verbosity") return parse_verbosity(line, out);
  if (name == "lru_crawler") return parse_lru_crawler(line, limits, out);
  if (name == "cache_memlimit") return parse_cache_memlimit(line, out);
  if (name == "lru") return parse_lru(line, out);
  if (name == "version" || name == "quit" || name == "stats" || name == "shutdown") {
    // memcached ignores the words after version and quit.
    out.kind = name == "version" ? command::version
               : name == "quit"  ? command::quit
               : name == "stats" ? command::stats
                                 : command::shutdown;
    if (out.kind == command::stats) {
      out.argument = line.word(1);
      out.subargument = line.word(2);
      if (out.argument == "cachedump") read_cachedump_arguments(line, out);
    }
    if (out.kind == command::shutdown) out.argument = rest_of_line(line, 1);
    return accepted(line.size);
  }
  // memcached closes, silently, on a line whose last word starts with
  // "HTTP/", unless the command begins with a letter it dispatches on first
  // ("get / HTTP/1.1" is a get of two keys; "GET / HTTP/1.1" closes).
  constexpr std::string_view dispatched_first = "gsacidt";
  if (dispatched_first.find(name[0]) == std::string_view::npos && line.last().starts_with("HTTP/"))
    return closing(reply::error, true);
  return fail(reply::error, line.size);
}

}  // namespace

void request::clear() {
  kind = command::get;
  key = {};
  keys.clear();
  client_flags = 0;
  exptime = 0;
  cas_unique = 0;
  delta = 0;
  delay = 0;
  level = 0;
  argument = {};
  subargument = {};
  dump_class = 0;
  dump_limit = 0;
  dump_refusal = {};
  data = {};
  lru = {};
  noreply = false;
  meta_flags.clear();
  key_in_base64 = false;
}

bool valid_key(std::string_view key, const parser_limits& limits) noexcept {
  return !key.empty() && key.size() <= limits.key_max;
}

bool parse_unsigned_number(std::string_view token, std::uint64_t& out) noexcept {
  decimal number;
  if (!read_decimal(token, number)) return false;
  const std::uint64_t value = number.negative ? 0 - number.magnitude : number.magnitude;
  // safe_strtoull: a '-' is refused only where the wrapped value reads as negative.
  if (number.negative && static_cast<std::int64_t>(value) < 0) return false;
  out = value;
  return true;
}

bool parse_signed_number(std::string_view token, std::int64_t& out) noexcept {
  decimal number;
  if (!read_decimal(token, number)) return false;
  constexpr auto max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (number.magnitude > max + (number.negative ? 1 : 0)) return false;
  out = number.negative ? static_cast<std::int64_t>(0 - number.magnitude)
                        : static_cast<std::int64_t>(number.magnitude);
  return true;
}

parse_result parse_request(std::string_view input, const parser_limits& limits, request& out) {
  out.clear();
  if (input.empty()) return {};
  // memcached's binary protocol begins with the magic byte 0x80; gpuhash
  // speaks only text and meta, and a binary client cannot read a text error
  // anyway, so it answers one and closes.
  if (static_cast<unsigned char>(input[0]) == 0x80) return closing(binary_protocol, false);
  const std::size_t newline = input.find('\n');
  const bool complete = newline != std::string_view::npos;
  const std::size_t line_bytes = complete ? newline : input.size();
  if (line_bytes > (complete ? max_line : max_line_without_newline) && !starts_multiget(input))
    return closing(line_too_long, true);
  if (!complete) return {};

  // (per thread, so that its 23 words are not set for each request: the
  // parsers read no word past line.count)
  thread_local command_line line;
  line.size = newline + 1;
  std::string_view text = input.substr(0, newline);
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  line.text = text.substr(0, text.find('\0'));
  detail::split_words(line.text, line);
  return parse_command(input, line, limits, out);
}

}  // namespace gpuhash::server::protocol
