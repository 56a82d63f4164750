#pragma once
// The requests of memcached's text protocol (doc/protocol.txt of memcached
// 1.6), parsed from a connection's input bytes. The parser allocates nothing
// per request beyond reusing the vectors of the `request` it fills: keys, data
// and meta flags are views into the input, valid while the input is.
//
// This header and request_parser.cpp are compiled by clang 14 for the fuzz
// target too: no <format>, no <ranges>.

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace gpuhash::server::protocol {

enum class command : std::uint8_t {
  // retrieval: keys in request::keys
  get,
  gets,
  gat,   // exptime, keys
  gats,  // exptime, keys
  // storage: key, flags, exptime, data (cas_unique for cas), noreply
  set,
  add,
  replace,
  append,
  prepend,
  cas,
  // single key
  delete_,  // key, noreply
  incr,     // key, delta, noreply
  decr,     // key, delta, noreply
  touch,    // key, exptime, noreply
  // other
  flush_all,     // delay (0 when absent), noreply
  version,
  verbosity,     // level, noreply
  stats,         // argument: "" or the sub-statistic ("settings", "items", "slabs", "conns", "reset", ...)
  quit,
  shutdown,      // argument: "" or "graceful"
  lru_crawler_metadump,  // argument: "all", or the keys to dump separated by spaces
  // meta commands: key (as sent; base64 when the b flag is present), meta_flags
  meta_get,         // mg
  meta_set,         // ms: data too
  meta_delete,      // md
  meta_arithmetic,  // ma
  meta_noop,        // mn: no key
  meta_debug,       // me
};

/// One flag of a meta command: its letter and the token glued to it (empty
/// when the flag takes none), e.g. "T30" -> {'T', "30"}, "v" -> {'v', ""}.
struct meta_flag {
  char letter;
  std::string_view token;
};

struct request {
  command kind = command::get;
  std::string_view key;                ///< single-key and meta commands
  std::vector<std::string_view> keys;  ///< get, gets, gat, gats (at least one)
  std::uint32_t client_flags = 0;      ///< storage commands
  std::int64_t exptime = 0;            ///< storage, touch, gat, gats: as sent
  std::uint64_t cas_unique = 0;        ///< cas
  std::uint64_t delta = 0;             ///< incr, decr
  std::int64_t delay = 0;              ///< flush_all
  std::uint32_t level = 0;             ///< verbosity
  std::string_view argument;           ///< stats, shutdown, lru_crawler metadump
  std::string_view data;               ///< storage and ms: the value, without its "\r\n"
  bool noreply = false;                ///< classic commands' trailing "noreply"
  std::vector<meta_flag> meta_flags;   ///< meta commands, in the order sent

  /// Empties the request for reuse, keeping the vectors' capacity.
  void clear();
};

struct parser_limits {
  /// Largest value a storage command may carry (memcached's -I).
  std::size_t item_size_max = 1024 * 1024;
  /// Longest key (memcached's KEY_MAX_LENGTH).
  std::size_t key_max = 250;
};

enum class parse_outcome : std::uint8_t {
  need_more,  ///< no complete request yet: read more bytes and call again
  request,    ///< `request` holds one request; `consumed` bytes belong to it
  error,      ///< answer `error_reply`, then drop `consumed` bytes (see below)
};

struct parse_result {
  parse_outcome outcome = parse_outcome::need_more;
  /// Bytes of the input used by the request or by the erroneous line. For a
  /// storage command refused before its data (a value over item_size_max, a
  /// negative length) this counts the data block too, so it can exceed the
  /// input's size: the connection then swallows bytes until that many have
  /// gone by, as memcached does, and stays in step with the client.
  std::size_t consumed = 0;
  /// The full reply for an error, "\r\n" included: "ERROR\r\n",
  /// "CLIENT_ERROR bad data chunk\r\n", "SERVER_ERROR object too large for
  /// cache\r\n", ... exactly memcached 1.6's strings.
  std::string_view error_reply;
  /// After answering the error, close the connection (binary protocol, a
  /// line too long to be a command, ...), as memcached does.
  bool close_connection = false;
};

/// Parses the first request in `input` into `out` (cleared first).
parse_result parse_request(std::string_view input, const parser_limits& limits, request& out);

/// Whether `key` may be stored: 1 to key_max bytes, no control characters
/// and no spaces.
bool valid_key(std::string_view key, const parser_limits& limits) noexcept;

}  // namespace gpuhash::server::protocol
