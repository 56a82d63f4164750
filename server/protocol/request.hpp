#pragma once
// The requests of memcached's text protocol (doc/protocol.txt of memcached
// 1.6), parsed from a connection's input bytes. The parser allocates nothing
// per request beyond reusing the vectors of the `request` it fills: keys, data
// and meta flags are views into the input, valid while the input is. Each key
// is worked out here once: a meta command's base64 key is decoded by the
// parser (request::item_key), and which keys a command names is one table
// (scope_of), read by the engine's routing and its batches alike.
//
// This header and request_parser.cpp are compiled by clang 14 for the fuzz
// target too: no <format>, no <ranges>.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpuhash::server::protocol {

enum class command : std::uint8_t {
  // retrieval: keys in request::keys
  get,
  gets,
  gat,   // exptime, keys (none is valid: memcached answers "END")
  gats,  // exptime, keys (none is valid: memcached answers "END")
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
  flush_all,  // delay (0 when absent), noreply
  version,
  verbosity,  // level, noreply
  stats,      // argument: "" or the sub-statistic: "settings", "items", "reset", ...
  quit,
  shutdown,              // argument: the rest of the line ("" and "graceful" are valid)
  lru_crawler_metadump,  // argument: "all", or the keys to dump (also in keys)
  cache_memlimit,        // delta: megabytes, noreply
  lru,                   // lru_change, noreply
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
/// parse_request has checked them as memcached 1.6.18 does: known letters,
/// no duplicates, a number where N T R F C J D need one, one character after
/// M, at most 31 bytes after O, a b key that decodes. Read the numbers with
/// parse_signed_number (N T R) and parse_unsigned_number (F C J D).
struct meta_flag {
  char letter;
  std::string_view token;
};

/// What an `lru` command changes, its arguments read as memcached 1.6.18's
/// process_lru_command reads them.
struct lru_change {
  enum class setting : std::uint8_t {
    tune,      ///< lru tune <hot_pct> <warm_pct> <hot_max_factor> <warm_max_factor>
    mode,      ///< lru mode flat|segmented
    temp_ttl,  ///< lru temp_ttl <ttl>
  };
  setting what = setting::tune;
  std::uint32_t hot_lru_pct = 0, warm_lru_pct = 0;  ///< tune: at most 80 together
  double hot_max_factor = 0, warm_max_factor = 0;   ///< tune: above 0
  bool segmented = true;                            ///< mode
  std::int32_t temporary_ttl = 0;                   ///< temp_ttl: below 0 turns TEMP off
};

struct request {
  command kind = command::get;
  std::string_view key;                ///< single-key and meta commands, as sent
  std::vector<std::string_view> keys;  ///< get, gets, gat, gats; metadump's keys
  std::uint32_t client_flags = 0;      ///< storage commands
  std::int64_t exptime = 0;            ///< storage, touch, gat, gats: as sent
  std::uint64_t cas_unique = 0;        ///< cas
  std::uint64_t delta = 0;             ///< incr, decr
  std::int64_t delay = 0;              ///< flush_all
  std::uint32_t level = 0;             ///< verbosity
  std::string_view argument;           ///< stats, shutdown, lru_crawler metadump
  std::string_view subargument;        ///< stats: the word after argument ("stats detail dump")
  /// stats cachedump: the size class and the limit (0: none), read as
  /// memcached reads them; dump_refusal, when not empty, is memcached's reply
  /// to arguments it refuses (sent unless dumps are off: -X's reply comes first).
  std::uint32_t dump_class = 0;
  std::uint32_t dump_limit = 0;
  std::string_view dump_refusal;
  std::string_view data;              ///< storage and ms: the value, without its "\r\n"
  lru_change lru;                     ///< lru
  bool noreply = false;               ///< classic commands' trailing "noreply"
  std::vector<meta_flag> meta_flags;  ///< meta commands, in the order sent
  /// The meta command has the b flag: its key is sent in base64, and
  /// decoded_key holds it decoded (empty when memcached's checks pass but
  /// the decoding fails: the command then answers "error decoding key").
  bool key_in_base64 = false;
  std::string decoded_key;

  /// The key of the item a single-key command is about: key, or key decoded
  /// from base64 (empty: it does not decode).
  std::string_view item_key() const noexcept {
    return key_in_base64 ? std::string_view(decoded_key) : key;
  }

  /// Empties the request for reuse, keeping the vectors' capacity.
  void clear();
};

/// Which keys a command names, and so which shards of a sharded engine it
/// needs.
enum class key_scope : std::uint8_t {
  none,  ///< no key: any shard answers it (version, verbosity, quit, shutdown, mn)
  one,   ///< item_key() (storage, delete, incr, decr, touch, mg, ms, md, ma, me)
  many,  ///< keys (get, gets, gat, gats)
  /// every shard's items (flush_all, stats, cache_memlimit, lru, metadump:
  /// its keys, if any)
  every,
};

/// The one table of which keys each command names.
constexpr key_scope scope_of(command kind) noexcept {
  switch (kind) {
    case command::get:
    case command::gets:
    case command::gat:
    case command::gats: return key_scope::many;
    case command::flush_all:
    case command::stats:
    case command::lru_crawler_metadump:
    case command::cache_memlimit:
    case command::lru: return key_scope::every;
    case command::version:
    case command::verbosity:
    case command::quit:
    case command::shutdown:
    case command::meta_noop: return key_scope::none;
    case command::set:
    case command::add:
    case command::replace:
    case command::append:
    case command::prepend:
    case command::cas:
    case command::delete_:
    case command::incr:
    case command::decr:
    case command::touch:
    case command::meta_get:
    case command::meta_set:
    case command::meta_delete:
    case command::meta_arithmetic:
    case command::meta_debug: return key_scope::one;
  }
  return key_scope::none;
}

/// The keys of the items a request is about, as for_each_item_key visits
/// them, with each key's position: visit(key, k), k indexing keys (0 for
/// item_key()).
template <class Visit>
void for_each_item_key_at(const request& r, std::size_t first, Visit&& visit) {
  if (scope_of(r.kind) == key_scope::one) {
    if (!r.item_key().empty()) visit(r.item_key(), std::size_t{0});
    return;
  }
  for (std::size_t k = first; k < r.keys.size(); ++k) visit(r.keys[k], k);
}

/// How many positions for_each_item_key_at's keys take: keys.size(), or 1
/// for item_key().
inline std::size_t item_key_positions(const request& r) noexcept {
  return scope_of(r.kind) == key_scope::one ? 1 : r.keys.size();
}

/// Calls visit(key) with each key whose item the request is about, in
/// order, from its `first`-th on (a multi-get that goes on where an earlier
/// batch stopped): item_key() if it decodes, or keys.
template <class Visit>
void for_each_item_key(const request& r, std::size_t first, Visit&& visit) {
  for_each_item_key_at(r, first, [&](std::string_view key, std::size_t) { visit(key); });
}

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
  /// bad meta flag) this counts the data block
  /// too, so it can exceed the input's size: the connection then swallows
  /// bytes until that many have gone by, as memcached does, and stays in step
  /// with the client. Where memcached cannot know the block's length (a
  /// length that is not a number, or negative) or does not swallow it (a key
  /// over key_max), only the line is counted, as memcached does.
  std::size_t consumed = 0;
  /// The full reply for an error, "\r\n" included: "ERROR\r\n",
  /// "CLIENT_ERROR bad data chunk\r\n", "SERVER_ERROR object too large for
  /// cache\r\n", ... exactly memcached 1.6's strings.
  std::string_view error_reply;
  /// After answering the error, close the connection (binary protocol, a
  /// line too long to be a command, ...), as memcached does. `consumed` is
  /// then 0: nothing after the error is read.
  bool close_connection = false;
  /// memcached sends nothing for this error: the classic command carried
  /// "noreply", or memcached closes at once (an HTTP request, a line too
  /// long). error_reply still names the error, for logs; do not send it.
  bool silent = false;
};

/// Parses the first request in `input` into `out` (cleared first).
parse_result parse_request(std::string_view input, const parser_limits& limits, request& out);

/// Whether `key` may be stored: 1 to key_max bytes (a key split from a line
/// holds no space, '\n' or NUL; other control bytes are kept, as memcached
/// keeps them).
bool valid_key(std::string_view key, const parser_limits& limits) noexcept;

/// Reads a decimal number as memcached's safe_strtoull does: optional leading
/// whitespace, an optional sign, digits, then the token's end or whitespace
/// (whatever follows is ignored). A negative number wraps as in C's strtoull
/// and is refused when the result is 2^63 or more ("-0" reads as 0, "-1" fails).
bool parse_unsigned_number(std::string_view token, std::uint64_t& out) noexcept;

/// Reads a decimal number as memcached's safe_strtoll does (64 bits).
bool parse_signed_number(std::string_view token, std::int64_t& out) noexcept;

}  // namespace gpuhash::server::protocol
