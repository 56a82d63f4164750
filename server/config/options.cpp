// gpuhash-server's command line, read by GNU getopt_long's rules, which memcached 1.6.18 uses:
// short flags cluster ("-vvd"); a short flag's value is glued ("-p11211") or the next word, even
// one starting with '-'; a long flag's value follows '=' or is the next word; a long name may be
// cut to any unique prefix ("--memory-l"); "--" ends the flags; words that are not flags are
// skipped. Where memcached reads numbers with atoi (so "-p abc" is port 0), values are checked
// strictly here. A small parser rather than getopt_long itself: that one keeps global state and
// reorders argv.

#include "config/options.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

namespace gpuhash::server::config {
namespace {

using action = parse_outcome::action;

constexpr std::int64_t kilobyte = 1024;
constexpr std::int64_t megabyte = 1024 * kilobyte;
constexpr std::int64_t gigabyte = 1024 * megabyte;
constexpr std::int64_t int_min = std::numeric_limits<int>::min();
constexpr std::int64_t int_max = std::numeric_limits<int>::max();
constexpr std::int64_t uint32_max = std::numeric_limits<std::uint32_t>::max();

/// A command-line mistake; what() becomes parse_outcome::message.
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class argument : std::uint8_t { none, required, optional_long };

// Codes of gpuhash's flags, which have no short form.
constexpr int index_code = 256;
constexpr int batch_max_code = 257;
constexpr int batch_wait_code = 258;
constexpr int spin_code = 259;
constexpr int shards_code = 260;
constexpr int runner_code = 261;

struct flag_spec {
  int code;                 ///< the short letter, or one of the codes above
  const char* long_name;    ///< nullptr: short form only (-D)
  argument takes;           ///< optional_long: "--verbose=x" is allowed, "-v x" is not
  const char* value_name;   ///< for the help text
  const char* help;         ///< nullptr: an alias, left out of the help text
  const char* why_ignored;  ///< nullptr: honoured; else accepted without effect, and why
};

// memcached 1.6.18's shortopts and longopts (memcached.c), then gpuhash's own.
constexpr auto flags = std::to_array<flag_spec>({
    {'p', "port", argument::required, "<num>", "TCP port to listen on (0: none)", nullptr},
    {'U', "udp-port", argument::required, "<num>", "UDP port; not served: only 0 [refused]",
     nullptr},
    {'s', "unix-socket", argument::required, "<file>", "UNIX socket to listen on", nullptr},
    {'a', "unix-mask", argument::required, "<mask>", "UNIX socket access mask, octal", nullptr},
    {'A', "enable-shutdown", argument::none, "", "enable the ascii \"shutdown\" command", nullptr},
    {'l', "listen", argument::required, "<addr>", "interfaces to listen on, repeatable", nullptr},
    {'d', "daemon", argument::none, "", "run as a daemon",
     "daemon mode is not supported; gpuhash-server runs in the foreground"},
    {'r', "enable-coredumps", argument::none, "", "maximize core file limit",
     "the core file limit is left as it is"},
    {'u', "user", argument::required, "<user>", "assume identity of <user> (as root)", nullptr},
    {'m', "memory-limit", argument::required, "<num>", "item memory in megabytes", nullptr},
    {'M', "disable-evictions", argument::none, "", "error on memory exhausted", nullptr},
    {'c', "conn-limit", argument::required, "<num>", "max simultaneous connections", nullptr},
    {'k', "lock-memory", argument::none, "", "lock down all paged memory", "memory is not locked"},
    {'v', "verbose", argument::optional_long, "", "verbose; -vv, -vvv: more", nullptr},
    {'h', "help", argument::none, "", "print this help and exit", nullptr},
    {'i', "license", argument::none, "", "print the version and exit", nullptr},
    {'V', "version", argument::none, "", "print version and exit", nullptr},
    {'P', "pidfile", argument::required, "<file>", "save PID in <file>, only used with -d",
     "no pid file is written (it belongs to -d)"},
    {'f', "slab-growth-factor", argument::required, "<num>", "chunk size growth factor", nullptr},
    {'n', "slab-min-size", argument::required, "<bytes>", "min space for key+value+flags", nullptr},
    {'L', "enable-largepages", argument::none, "", "try to use large memory pages",
     "large memory pages are not requested"},
    {'D', nullptr, argument::required, "<char>", "key prefix delimiter for stats detail",
     "per-prefix statistics (stats detail) are not kept"},
    {'t', "threads", argument::required, "<num>", "number of threads to use", nullptr},
    {'R', "max-reqs-per-event", argument::required, "<num>", "max requests per event",
     "requests are batched across connections, not limited per event"},
    {'C', "disable-cas", argument::none, "", "disable use of CAS", nullptr},
    {'b', "listen-backlog", argument::required, "<num>", "backlog queue limit",
     "the listen backlog is gpuhash-server's own"},
    {'B', "protocol", argument::required, "<name>", "ascii, binary or auto",
     "only the text protocol (classic and meta commands) is served"},
    {'I', "max-item-size", argument::required, "<num>", "max item size, k/m/g (1k..1g, <= -m/2)",
     nullptr},
    {'S', "enable-sasl", argument::none, "", "turn on SASL authentication [refused]", nullptr},
    {'F', "disable-flush-all", argument::none, "", "disable the flush_all command", nullptr},
    {'X', "disable-dumping", argument::none, "", "disable lru_crawler metadump", nullptr},
    {'W', "disable-watch", argument::none, "", "disable watch commands",
     "watch is not served, so there is nothing to disable"},
    {'Y', "auth-file", argument::required, "<file>",
     "text protocol authentication, \"user:password\" lines", nullptr},
    {'e', "memory-file", argument::required, "<file>", "mmap a file for item memory",
     "items live in ordinary memory and do not survive a restart"},
    {'Z', "enable-ssl", argument::none, "", "enable TLS (-o ssl_chain_cert=...)", nullptr},
    {'o', "extended", argument::required, "<opts>", "comma separated options (below)", nullptr},
    {'N', "napi-ids", argument::required, "<num>", "number of napi ids",
     "NAPI ID thread selection is not supported"},
    // memcached's help says --napi_ids, but its getopt only knows --napi-ids.
    {'N', "napi_ids", argument::required, "", nullptr, "NAPI ID thread selection is not supported"},
    {index_code, "index", argument::required, "auto|gpu|cpu", "where the index lives", nullptr},
    {batch_max_code, "batch-max", argument::required, "<num>", "requests per index batch", nullptr},
    {batch_wait_code, "batch-wait-us", argument::required, "<num>",
     "longest wait to fill a batch, microseconds", nullptr},
    {spin_code, "spin-us", argument::required, "<num>", "poll before sleeping, us", nullptr},
    {runner_code, "batch-runner", argument::required, "auto|thread|workers", "who runs the batches",
     nullptr},
    {shards_code, "shards", argument::required, "<num>", "shards of the items and index", nullptr},
});

enum class sub_value : std::uint8_t { none, optional_integer, integer, real, text, hash_name };

// Why each group of -o options has no effect here. Only tuning is ignored: every option that
// changes who can connect or what they see is honoured (reason `honoured`) or refused.
constexpr const char* honoured = nullptr;
constexpr const char* hash_reason = "gpuhash-server's index sizes and hashes itself";
constexpr const char* slab_reason = "tunes memcached's slab mover and LRU threads, not kept here";
constexpr const char* conn_reason = "memcached's connection tuning is not implemented";
constexpr const char* log_reason = "live logging (watch) is not served";
constexpr const char* privilege_reason = "there is no seccomp sandbox to leave off";
constexpr const char* ext_reason = "external storage (extstore) is not supported";

struct suboption_group {
  const char* names;  ///< separated by spaces
  sub_value takes;
  double low;  ///< integers: inclusive; reals: exclusive (memcached checks "<= 0")
  double high;
  const char* reason;  ///< honoured (nullptr): applied by apply_suboption
};

constexpr double unbounded = std::numeric_limits<double>::infinity();
constexpr double u32 = uint32_max;

// memcached 1.6.18's -o tokens (memcached.c, built with TLS and sock_cookie_id; storage.c),
// grouped by the checks memcached makes on their values.
constexpr auto suboptions = std::to_array<suboption_group>({
    {"maxconns_fast no_maxconns_fast resp_obj_mem_limit inline_ascii_resp no_inline_ascii_resp",
     sub_value::none, 0, 0, conn_reason},
    {"idle_timeout", sub_value::integer, 0, int_max, conn_reason},
    {"read_buf_mem_limit", sub_value::integer, 0, 1u << 22, honoured},  // megabytes
    {"sock_cookie_id", sub_value::integer, 0, u32, conn_reason},
    {"hashpower", sub_value::integer, 12, 32, hash_reason},
    {"no_hashexpand", sub_value::none, 0, 0, hash_reason},
    {"hash_algorithm", sub_value::hash_name, 0, 0, hash_reason},
    {"slab_reassign no_slab_reassign no_slab_automove no_chunked_items lru_crawler no_lru_crawler "
     "lru_maintainer no_lru_maintainer track_sizes modern no_modern",
     sub_value::none, 0, 0, slab_reason},
    {"slab_automove", sub_value::optional_integer, 0, 2, slab_reason},
    {"slab_automove_ratio", sub_value::real, 0, 1, slab_reason},
    {"slab_automove_window", sub_value::integer, 3, int_max, slab_reason},
    {"slab_sizes", sub_value::text, 0, 0, slab_reason},
    {"slab_chunk_max", sub_value::integer, 1, int_max, slab_reason},
    {"tail_repair_time", sub_value::integer, 10, int_max, slab_reason},
    {"lru_crawler_sleep", sub_value::integer, 0, 1000000, slab_reason},
    {"lru_crawler_tocrawl", sub_value::integer, 0, u32, slab_reason},
    {"hot_lru_pct warm_lru_pct", sub_value::integer, 1, 79, slab_reason},
    {"hot_max_factor warm_max_factor", sub_value::real, 0, unbounded, slab_reason},
    {"temporary_ttl", sub_value::integer, int_min, int_max, slab_reason},
    {"watcher_logbuf_size worker_logbuf_size", sub_value::integer, 0, u32, log_reason},
    {"drop_privileges", sub_value::none, 0, 0, honoured},  // refused in apply_suboption
    {"no_drop_privileges", sub_value::none, 0, 0, privilege_reason},
    {"ssl_chain_cert ssl_key ssl_ciphers ssl_ca_cert", sub_value::text, 0, 0, honoured},
    {"ssl_verify_mode ssl_min_version", sub_value::integer, 0, 3, honoured},
    {"ssl_keyformat", sub_value::integer, 1, 2, honoured},         // PEM or DER (ASN1)
    {"ssl_wbuf_size", sub_value::integer, 1, 1u << 22, honoured},  // kilobytes
    {"ssl_session_cache ssl_kernel_tls", sub_value::none, 0, 0, honoured},
    {"ext_path", sub_value::text, 0, 0, ext_reason},
    {"ext_page_size ext_wbuf_size ext_threads ext_io_depth ext_item_size ext_item_age ext_low_ttl "
     "ext_recache_rate ext_compact_under ext_drop_under ext_max_sleep",
     sub_value::integer, 0, u32, ext_reason},
    {"ext_max_frag slab_automove_freeratio", sub_value::real, -unbounded, unbounded, ext_reason},
    {"ext_drop_unread", sub_value::none, 0, 0, ext_reason},
});

/// The entries of a list, split as getsubopt splits -o's: a trailing separator ends the list,
/// but an empty entry before another is kept (and -o rejects it).
std::vector<std::string_view> split(std::string_view list, char separator) {
  std::vector<std::string_view> entries;
  while (!list.empty()) {
    const std::size_t at = list.find(separator);
    entries.push_back(list.substr(0, at));
    if (at == std::string_view::npos) break;
    list.remove_prefix(at + 1);
  }
  return entries;
}

bool is_listed(std::string_view list, char separator, std::string_view entry) {
  const std::vector<std::string_view> entries = split(list, separator);
  return std::ranges::find(entries, entry) != entries.end();
}

std::string flag_name(const flag_spec& flag) {
  std::string name = flag.code < 256 ? std::string("-") + static_cast<char>(flag.code) : "";
  if (flag.long_name != nullptr) {
    name += (name.empty() ? "--" : "/--") + std::string(flag.long_name);
  }
  return name;
}

std::string quoted(std::string_view text) {
  return "\"" + std::string(text) + "\"";
}

std::string number_text(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

std::int64_t parse_integer(std::string_view text, std::int64_t low, std::int64_t high,
                           const std::string& flag, int base = 10) {
  const char* last = text.data() + text.size();
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), last, value, base);
  if (end == last && error == std::errc{} && low <= value && value <= high) return value;
  if (end == last && !text.empty() && error != std::errc::invalid_argument) {
    throw usage_error(flag + ": " + std::string(text) + " is out of range (" + std::to_string(low) +
                      ".." + std::to_string(high) + ")");
  }
  throw usage_error(flag + ": " + quoted(text) + (base == 8 ? " is not an octal" : " is not a") +
                    " number");
}

double parse_real(std::string_view text, const std::string& flag) {
  const char* last = text.data() + text.size();
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), last, value);
  if (error != std::errc{} || end != last || !std::isfinite(value)) {
    throw usage_error(flag + ": " + quoted(text) + " is not a number");
  }
  return value;
}

/// -I's value: bytes, or a count of k, m or g (memcached takes k and m only).
std::int64_t parse_item_size(std::string_view text, const std::string& flag) {
  std::int64_t unit = 1;
  std::string_view digits = text;
  constexpr std::string_view suffixes = "kKmMgG";
  if (const std::size_t at = text.empty() ? suffixes.npos : suffixes.find(text.back());
      at != suffixes.npos) {
    unit = kilobyte << (10 * (at / 2));
    digits.remove_suffix(1);
  }
  const char* last = digits.data() + digits.size();
  std::int64_t count = 0;
  const auto [end, error] = std::from_chars(digits.data(), last, count);
  if (end != last || digits.empty() || error == std::errc::invalid_argument) {
    throw usage_error(flag + ": " + quoted(text) + " is not a number");
  }
  // The first test keeps count * unit from overflowing.
  if (digits.front() != '-' && (error != std::errc{} || count > gigabyte / unit)) {
    throw usage_error(flag + ": " + std::string(text) + " is more than 1g");
  }
  if (digits.front() == '-' || count * unit < kilobyte) {
    throw usage_error(flag + ": " + std::string(text) + " is less than 1k");
  }
  return count * unit;
}

/// The position of `value` in `choices` (for --index, the order of index_kind's enumerators).
std::size_t one_of(std::string_view value, std::initializer_list<std::string_view> choices,
                   const std::string& flag) {
  if (const auto at = std::ranges::find(choices, value); at != choices.end()) {
    return static_cast<std::size_t>(at - choices.begin());
  }
  std::string listed;
  for (const std::string_view choice : choices) {
    listed += (listed.empty() ? "" : ", ") + std::string(choice);
  }
  throw usage_error(flag + ": " + quoted(value) + " is not one of " + listed);
}

std::string_view required_text(std::string_view value, const std::string& flag) {
  if (value.empty()) throw usage_error(flag + ": the value is empty");
  return value;
}

class command_line_parser {
 public:
  command_line_parser(server_options& options, int argc, const char* const* argv)
      : options_(options), argc_(argc), argv_(argv) {}

  /// Reads every word; stops early at -h, -i or -V, as memcached does.
  action parse() {
    while (next_word_ < argc_) {
      const std::string_view word = argv_[next_word_++];
      action what = action::run;
      if (word == "--") {
        while (next_word_ < argc_) skip_stray_word(argv_[next_word_++]);
      } else if (word.starts_with("--")) {
        what = parse_long(word);
      } else if (word.size() > 1 && word.front() == '-') {
        what = parse_short_cluster(word);
      } else {
        skip_stray_word(word);
      }
      if (what != action::run) return what;
    }
    return action::run;
  }

  /// memcached's checks after its getopt loop, on the flags taken together.
  void check_combinations() {
    if (napi_ids_ > options_.threads) {
      throw usage_error("-N/--napi-ids: " + std::to_string(napi_ids_) +
                        " NAPI IDs are more than the " + std::to_string(options_.threads) +
                        " threads of -t");
    }
    if (options_.item_size_max > options_.memory_limit_mb * megabyte / 2) {
      throw usage_error("-I/--max-item-size: " + std::to_string(options_.item_size_max) +
                        " bytes is more than half of -m (" +
                        std::to_string(options_.memory_limit_mb) + " megabytes)");
    }
    if (hot_lru_pct_ + warm_lru_pct_ > 80) {
      throw usage_error("-o/--extended: hot_lru_pct + warm_lru_pct cannot be more than 80");
    }
    if (temporary_ttl_given_ && !lru_maintainer_) {
      throw usage_error("-o/--extended: temporary_ttl requires lru_maintainer");
    }
    if (options_.udp_port != 0) {
      throw usage_error("-U/--udp-port " + std::to_string(options_.udp_port) +
                        ": UDP is not served; leave -U at 0 (memcached 1.6's default)");
    }
    check_tls();
    // A connection holding a largest request (its buffer up to twice -I)
    // must still find room for a largest reply: four times -I at least.
    const std::size_t least = 4 * options_.item_size_max;
    if (!connection_memory_limit_given_) {
      options_.connection_memory_limit =
          std::max<std::size_t>({options_.memory_limit_mb * megabyte / 4, 8 * megabyte, least});
    } else if (options_.connection_memory_limit != 0 && options_.connection_memory_limit < least) {
      throw usage_error("-o/--extended read_buf_mem_limit: " +
                        std::to_string(options_.connection_memory_limit / megabyte) +
                        " megabytes cannot hold a largest request and its reply (four times -I, " +
                        std::to_string(least) + " bytes); raise it or lower -I");
    }
  }

 private:
  std::optional<std::string_view> take_next_word() {
    if (next_word_ >= argc_) return std::nullopt;
    return std::string_view(argv_[next_word_++]);
  }

  action parse_long(std::string_view word) {
    const std::string_view body = word.substr(2);
    const std::size_t equals = body.find('=');
    const flag_spec& flag = find_long(body.substr(0, equals), word);
    const std::string written = "option '--" + std::string(flag.long_name) + "'";
    std::optional<std::string_view> value;
    if (equals != std::string_view::npos) {
      if (flag.takes == argument::none) throw usage_error(written + " doesn't allow an argument");
      value = body.substr(equals + 1);
    } else if (flag.takes == argument::required) {
      value = take_next_word();
      if (!value) throw usage_error(written + " requires an argument");
    }
    return apply(flag, value.value_or(""));
  }

  action parse_short_cluster(std::string_view word) {
    for (std::size_t at = 1; at < word.size(); ++at) {
      const auto flag = std::ranges::find(flags, word[at], &flag_spec::code);
      const std::string letter = std::string("-- '") + word[at] + "'";
      if (flag == flags.end()) throw usage_error("invalid option " + letter);
      if (flag->takes == argument::required) {
        const auto value = at + 1 < word.size() ? word.substr(at + 1) : take_next_word();
        if (!value) throw usage_error("option requires an argument " + letter);
        return apply(*flag, *value);
      }
      if (const action what = apply(*flag, ""); what != action::run) return what;
    }
    return action::run;
  }

  /// An exact long name, or the one flag whose long names start with `name` (GNU rules).
  static const flag_spec& find_long(std::string_view name, std::string_view word) {
    const flag_spec* match = nullptr;
    bool ambiguous = false;
    std::string candidates;
    for (const flag_spec& flag : flags) {
      const std::string_view long_name = flag.long_name != nullptr ? flag.long_name : "";
      if (long_name == name) return flag;
      if (long_name.empty() || !long_name.starts_with(name)) continue;
      ambiguous = ambiguous || (match != nullptr && match->code != flag.code);
      if (match == nullptr) match = &flag;
      candidates += " '--" + std::string(long_name) + "'";
    }
    const std::string written = "option '" + std::string(word) + "'";
    if (ambiguous) throw usage_error(written + " is ambiguous; possibilities:" + candidates);
    if (match == nullptr) throw usage_error("unrecognized " + written);
    return *match;
  }

  void ignore(std::string line) {
    if (std::ranges::find(options_.ignored, line) == options_.ignored.end()) {
      options_.ignored.push_back(std::move(line));
    }
  }

  void skip_stray_word(std::string_view word) {
    ignore(quoted(word) + ": not a flag; skipped, as memcached skips it");
  }

  /// Repeated -l flags add up (the first replaces the default); repeats are dropped.
  void add_listen_address(std::string_view address, const std::string& flag) {
    required_text(address, flag);
    if (!listen_given_) options_.listen_address.clear();
    listen_given_ = true;
    if (is_listed(options_.listen_address, ',', address)) return;
    options_.listen_address += (options_.listen_address.empty() ? "" : ",") + std::string(address);
  }

  action apply(const flag_spec& flag, std::string_view value) {
    const std::string name = flag_name(flag);
    const auto number = [&](auto& field, std::int64_t low, std::int64_t high) {
      field = static_cast<std::remove_reference_t<decltype(field)>>(
          parse_integer(value, low, high, name));
    };
    switch (flag.code) {
      case 'p': number(options_.tcp_port, 0, 65535); break;
      case 'U': number(options_.udp_port, 0, 65535); break;
      case 's': options_.unix_socket = required_text(value, name); break;
      case 'a':
        options_.unix_socket_mode =
            static_cast<std::uint32_t>(parse_integer(value, 0, 0777, name, 8));
        break;
      case 'A': options_.shutdown_command = true; break;
      case 'l': add_listen_address(value, name); break;
      case 'u': options_.run_as_user = required_text(value, name); break;
      case 'm': number(options_.memory_limit_mb, 1, int_max); break;
      case 'M': options_.evict = false; break;
      case 'c': number(options_.max_connections, 1, int_max); break;
      case 'v': ++options_.verbosity; break;  // memcached ignores --verbose's value too
      case 'h': return action::print_help;
      case 'i':  // memcached prints its license; gpuhash-server has no separate text for it
      case 'V': return action::print_version;
      case 'f':
        options_.growth_factor = parse_real(value, name);
        if (options_.growth_factor <= 1.0) throw usage_error(name + ": must be more than 1");
        break;
      case 'n': number(options_.chunk_size_min, 1, int_max); break;
      case 't': number(options_.threads, 1, int_max); break;
      case 'C': options_.cas_enabled = false; break;
      case 'I':
        options_.item_size_max = static_cast<std::size_t>(parse_item_size(value, name));
        break;
      case 'S':
        throw usage_error(name +
                          ": SASL authentication belongs to memcached's binary protocol, which "
                          "gpuhash-server does not speak; use -Y <authfile> (text protocol "
                          "authentication) or TLS client certificates (-Z -o ssl_verify_mode=2)");
      case 'Y': options_.auth_file = required_text(value, name); break;
      case 'Z': options_.tls.enabled = true; break;
      case 'F': options_.flush_enabled = false; break;
      case 'X': options_.dumping_enabled = false; break;
      case 'o':
        for (const std::string_view entry : split(value, ',')) apply_suboption(entry);
        break;
      // Ignored, but their values are checked as memcached checks them.
      case 'D': required_text(value, name); break;
      case 'R': parse_integer(value, 1, int_max, name); break;
      case 'b': parse_integer(value, 0, int_max, name); break;
      case 'B': one_of(value, {"auto", "binary", "ascii"}, name); break;
      case 'N': number(napi_ids_, 1, int_max); break;
      case index_code:
        options_.index = static_cast<index_kind>(one_of(value, {"auto", "gpu", "cpu"}, name));
        break;
      case batch_max_code: number(options_.batch_max, 1, 1048576); break;
      case batch_wait_code: number(options_.batch_wait_us, 0, 1000000); break;
      case spin_code: number(options_.spin_us, 0, 100000); break;
      case shards_code: number(options_.shards, 0, 64); break;
      case runner_code:
        options_.batch_runner =
            static_cast<batch_runner_kind>(one_of(value, {"auto", "thread", "workers"}, name));
        break;
      default: break;  // the switches that are only ignored
    }
    if (flag.why_ignored != nullptr) {
      const std::string shown = flag.takes == argument::required ? " " + std::string(value) : "";
      ignore("-" + std::string(1, static_cast<char>(flag.code)) + shown + ": " + flag.why_ignored);
    }
    return action::run;
  }

  void apply_suboption(std::string_view entry) {
    const std::size_t equals = entry.find('=');
    const std::string_view name = entry.substr(0, equals);
    const auto group = std::ranges::find_if(suboptions, [&](const suboption_group& known) {
      return is_listed(known.names, ' ', name);
    });
    if (group == suboptions.end()) {
      throw usage_error("-o/--extended: illegal suboption " + quoted(entry));
    }
    const std::string flag = "-o/--extended " + std::string(name);
    const std::optional<std::string_view> value =
        equals == std::string_view::npos ? std::nullopt : std::optional(entry.substr(equals + 1));
    const sub_value takes = group->takes;
    if (takes != sub_value::none && takes != sub_value::optional_integer &&
        value.value_or("").empty()) {
      throw usage_error(flag + ": a value is required");
    }
    std::int64_t number = 0;
    if (value && (takes == sub_value::integer || takes == sub_value::optional_integer)) {
      number = parse_integer(*value, static_cast<std::int64_t>(group->low),
                             static_cast<std::int64_t>(group->high), flag);
    }
    if (takes == sub_value::real) {
      if (const double real = parse_real(*value, flag); real <= group->low || real > group->high) {
        throw usage_error(flag + ": " + std::string(*value) + " is out of range (more than " +
                          number_text(group->low) + ", at most " + number_text(group->high) + ")");
      }
    }
    if (takes == sub_value::hash_name) one_of(*value, {"jenkins", "murmur3", "xxh3"}, flag);
    // State for memcached's checks of the options together.
    if (name == "hot_lru_pct") hot_lru_pct_ = number;
    if (name == "warm_lru_pct") warm_lru_pct_ = number;
    if (name == "temporary_ttl") temporary_ttl_given_ = true;
    if (name == "lru_maintainer") lru_maintainer_ = true;
    if (name == "no_lru_maintainer" || name == "no_modern") lru_maintainer_ = false;
    if (group->reason == honoured) {
      honour_suboption(name, value.value_or(""), number, flag);
    } else {
      ignore("-o " + std::string(entry) + ": " + group->reason);
    }
  }

  /// The -o options that gpuhash-server applies (suboption_group::reason is `honoured`).
  void honour_suboption(std::string_view name, std::string_view value, std::int64_t number,
                        const std::string& flag) {
    tls_options& tls = options_.tls;
    if (name == "read_buf_mem_limit") {
      options_.connection_memory_limit = static_cast<std::size_t>(number) * megabyte;
      connection_memory_limit_given_ = true;
    } else if (name == "drop_privileges") {
      throw usage_error(flag +
                        ": memcached's seccomp sandbox is not implemented; gpuhash-server "
                        "cannot drop those privileges (run it under a sandbox of your own)");
    } else if (name == "ssl_chain_cert") {
      tls.chain_cert = value;
    } else if (name == "ssl_key") {
      tls.key = value;
    } else if (name == "ssl_ca_cert") {
      tls.ca_cert = value;
    } else if (name == "ssl_ciphers") {
      tls.ciphers = value;
    } else if (name == "ssl_verify_mode") {
      tls.verify_mode = static_cast<int>(number);
    } else if (name == "ssl_min_version") {
      tls.min_version = static_cast<int>(number);
    } else if (name == "ssl_keyformat") {
      tls.keyformat = static_cast<int>(number);
    } else if (name == "ssl_wbuf_size") {
      tls.write_size = static_cast<std::uint32_t>(number) * kilobyte;
    } else if (name == "ssl_session_cache") {
      tls.session_cache = true;
    } else if (name == "ssl_kernel_tls") {
      tls.kernel_tls = true;
    }
    if (name.starts_with("ssl_")) tls_option_given_ = std::string(name);
  }

  /// TLS settings that cannot work together stop the server, as in memcached, rather than
  /// leave a connection unencrypted that was meant to be encrypted.
  void check_tls() {
    const tls_options& tls = options_.tls;
    bool plaintext_listener = false;
    for (const std::string_view address : split(options_.listen_address, ',')) {
      plaintext_listener = plaintext_listener || address.starts_with("notls:");
    }
    if (!tls.enabled) {
      if (!tls_option_given_.empty()) {
        throw usage_error("-o/--extended " + tls_option_given_ +
                          ": TLS options need -Z (--enable-ssl); without it nothing is encrypted");
      }
      if (plaintext_listener) {
        throw usage_error("-l/--listen: the 'notls' prefix is valid only when TLS is enabled (-Z)");
      }
      return;
    }
    if (tls.chain_cert.empty()) {
      throw usage_error(
          "-Z/--enable-ssl: no certificate: give -o ssl_chain_cert=<file> (and "
          "ssl_key=<file> unless the key is in that file)");
    }
    if (options_.tcp_port == 0) {
      throw usage_error("-Z/--enable-ssl: TLS needs a TCP port (-p is 0)");
    }
    if (!options_.unix_socket.empty()) {
      throw usage_error(
          "-Z/--enable-ssl with -s/--unix-socket: TLS is served on TCP only, and "
          "the UNIX socket would be plaintext; drop one of them");
    }
  }

  server_options& options_;
  int argc_;
  const char* const* argv_;
  int next_word_ = 1;
  bool listen_given_ = false;
  std::size_t napi_ids_ = 0;
  std::int64_t hot_lru_pct_ = 20;  // memcached's defaults
  std::int64_t warm_lru_pct_ = 40;
  bool lru_maintainer_ = true;
  bool temporary_ttl_given_ = false;
  bool connection_memory_limit_given_ = false;
  std::string tls_option_given_;  ///< the last ssl_* option given, for check_tls's message
};

std::string default_text(int code, const server_options& defaults) {
  char octal[16];
  switch (code) {
    case 'p': return std::to_string(defaults.tcp_port);
    case 'U': return "0, off";
    case 'a': std::snprintf(octal, sizeof octal, "%o", defaults.unix_socket_mode); return octal;
    case 'l': return defaults.listen_address;
    case 'm': return std::to_string(defaults.memory_limit_mb);
    case 'c': return std::to_string(defaults.max_connections);
    case 'f': return number_text(defaults.growth_factor);
    case 'n': return std::to_string(defaults.chunk_size_min);
    case 't': return std::to_string(defaults.threads);
    case 'R': return "20";
    case 'b': return "1024";
    case 'B': return "auto";
    case 'D': return ":";
    case 'I':
      return defaults.item_size_max % megabyte == 0
                 ? std::to_string(defaults.item_size_max / megabyte) + "m"
                 : std::to_string(defaults.item_size_max) + " bytes";
    case index_code: return "auto: the GPU when there is one";
    case batch_max_code: return std::to_string(defaults.batch_max) + "; 1..1048576";
    case batch_wait_code: return std::to_string(defaults.batch_wait_us) + "; 0..1000000";
    case spin_code: return std::to_string(defaults.spin_us) + "; 0..100000";
    case runner_code: return "auto: thread for a GPU";
    case shards_code: return "0: -t, <= -m / 8 MB; 0..64";
    default: return {};
  }
}

void append_flag_help(std::string& text, const flag_spec& flag, const server_options& defaults) {
  std::string left = flag.code < 256 ? std::string("-") + static_cast<char>(flag.code) : "  ";
  if (flag.long_name != nullptr) {
    left += (flag.code < 256 ? ", --" : "  --") + std::string(flag.long_name);
  }
  if (flag.takes == argument::required) {
    left += (flag.long_name != nullptr ? "=" : " ") + std::string(flag.value_name);
  }
  left.resize(std::max<std::size_t>(left.size() + 1, 32), ' ');
  text += left + flag.help;
  if (const std::string value = default_text(flag.code, defaults); !value.empty()) {
    text += " (default: " + value + ")";
  }
  text += flag.why_ignored != nullptr ? " [ignored]\n" : "\n";
}

}  // namespace

parse_outcome parse_command_line(int argc, const char* const* argv) {
  parse_outcome outcome;
  try {
    command_line_parser parser(outcome.options, argc, argv);
    outcome.what = parser.parse();
    if (outcome.what == action::run) parser.check_combinations();
  } catch (const usage_error& error) {
    outcome.what = action::error;
    outcome.message = error.what();
  }
  return outcome;
}

std::string help_text() {
  const server_options defaults;
  std::string text =
      "Usage: gpuhash-server [options]\n"
      "A memcached-compatible cache whose index lives on the GPU. It knows every flag of\n"
      "memcached 1.6: those marked [ignored] tune memcached's own machinery, have no effect\n"
      "here and are listed at startup with -v; those marked [refused] stop it with a message.\n"
      "Long names may be shortened to any unique prefix.\n\n"
      "memcached's options:\n";
  for (const flag_spec& flag : flags) {
    if (flag.help != nullptr && flag.code < 256) append_flag_help(text, flag, defaults);
  }
  text +=
      "\n-o options that apply:\n"
      "  read_buf_mem_limit=<mb>     memory of all connections' buffers together, 0: no limit\n"
      "                              (default: -m / 4, at least 8 and four times -I)\n"
      "  ssl_chain_cert=<file>       certificate chain, PEM (needs -Z)\n"
      "  ssl_key=<file>              private key, unless in ssl_chain_cert\n"
      "  ssl_keyformat=<1|2>         private key format: 1 PEM (default), 2 DER\n"
      "  ssl_verify_mode=<0-3>       client certificates: 0 not asked (default), 1 asked,\n"
      "                              2 required, 3 required once\n"
      "  ssl_ca_cert=<file>          CAs whose client certificates are accepted, PEM\n"
      "  ssl_ciphers=<list>          OpenSSL cipher list (TLS 1.2 and below)\n"
      "  ssl_min_version=<0-3>       oldest TLS accepted: 0 1.0, 1 1.1, 2 1.2 (default), 3 1.3\n"
      "  ssl_wbuf_size=<kb>          bytes encrypted per write (default: 16)\n"
      "  ssl_session_cache           server-side TLS session cache, for resumption\n"
      "  ssl_kernel_tls              kernel TLS offload where the kernel and OpenSSL have it\n"
      "  drop_privileges             [refused]: no seccomp sandbox is implemented\n"
      "\n-o options accepted and [ignored] (tuning of memcached's own machinery):\n";
  std::string line = " ";
  for (const suboption_group& group : suboptions) {
    if (group.reason == honoured) continue;
    for (const std::string_view name : split(group.names, ' ')) {
      if (line.size() + name.size() + 2 > 100) {
        text += line + "\n";
        line = " ";
      }
      line += " " + std::string(name) + ",";
    }
  }
  line.pop_back();
  text += line + "\n\ngpuhash-server's options:\n";
  for (const flag_spec& flag : flags) {
    if (flag.code >= 256) append_flag_help(text, flag, defaults);
  }
  return text;
}

}  // namespace gpuhash::server::config
