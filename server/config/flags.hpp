#pragma once
// The flags gpuhash-server knows (memcached 1.6.18's, then gpuhash's own)
// and memcached's -o suboptions: one table each, read by the parser
// (options.cpp) and the help text (help.cpp).

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace gpuhash::server::config::detail {

constexpr std::int64_t kilobyte = 1024;
constexpr std::int64_t megabyte = 1024 * kilobyte;
constexpr std::int64_t gigabyte = 1024 * megabyte;
constexpr std::int64_t int_min = std::numeric_limits<int>::min();
constexpr std::int64_t int_max = std::numeric_limits<int>::max();
constexpr std::int64_t uint32_max = std::numeric_limits<std::uint32_t>::max();

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
    {'p', "port", argument::required, "<num>", "TCP port (0: none, -1: the kernel picks)", nullptr},
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
    {'R', "max-reqs-per-event", argument::required, "<num>", "max requests per event", nullptr},
    {'C', "disable-cas", argument::none, "", "disable use of CAS", nullptr},
    {'b', "listen-backlog", argument::required, "<num>", "backlog queue limit", nullptr},
    {'B', "protocol", argument::required, "<name>", "ascii or auto (text only; binary refused)",
     nullptr},
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
constexpr const char* slab_mover_reason =
    "memcached's slab mover and LRU threads are not kept here (the slab classes, page "
    "accounting and LRU segments it sets are)";
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
    {"no_slab_automove lru_crawler no_lru_crawler track_sizes", sub_value::none, 0, 0, slab_reason},
    {"lru_maintainer no_lru_maintainer", sub_value::none, 0, 0, honoured},  // the segmented LRU
    {"slab_reassign no_slab_reassign modern no_modern", sub_value::none, 0, 0, slab_mover_reason},
    {"no_chunked_items", sub_value::none, 0, 0, honoured},  // slab_chunk_max: a page
    {"slab_automove", sub_value::optional_integer, 0, 2, slab_reason},
    {"slab_automove_ratio", sub_value::real, 0, 1, slab_reason},
    {"slab_automove_window", sub_value::integer, 3, int_max, slab_reason},
    {"slab_sizes", sub_value::text, 0, 0, slab_reason},
    {"slab_chunk_max", sub_value::integer, 1, int_max, honoured},  // the largest class's chunk
    {"tail_repair_time", sub_value::integer, 10, int_max, slab_reason},
    {"lru_crawler_sleep", sub_value::integer, 0, 1000000, slab_reason},
    {"lru_crawler_tocrawl", sub_value::integer, 0, u32, slab_reason},
    {"hot_lru_pct warm_lru_pct", sub_value::integer, 1, 79, honoured},
    {"hot_max_factor warm_max_factor", sub_value::real, 0, unbounded, honoured},
    // from 0: memcached keeps a negative TTL as 2^32 minus it, which sends even items that never
    // expire to TEMP once its own clock reads past that minus; that is not followed here
    {"temporary_ttl", sub_value::integer, 0, int_max, honoured},  // the segmented LRU's TEMP
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
inline std::vector<std::string_view> split(std::string_view list, char separator) {
  std::vector<std::string_view> entries;
  while (!list.empty()) {
    const std::size_t at = list.find(separator);
    entries.push_back(list.substr(0, at));
    if (at == std::string_view::npos) break;
    list.remove_prefix(at + 1);
  }
  return entries;
}

inline bool is_listed(std::string_view list, char separator, std::string_view entry) {
  const std::vector<std::string_view> entries = split(list, separator);
  return std::ranges::find(entries, entry) != entries.end();
}

inline std::string flag_name(const flag_spec& flag) {
  std::string name = flag.code < 256 ? std::string("-") + static_cast<char>(flag.code) : "";
  if (flag.long_name != nullptr) {
    name += (name.empty() ? "--" : "/--") + std::string(flag.long_name);
  }
  return name;
}

inline std::string quoted(std::string_view text) {
  return "\"" + std::string(text) + "\"";
}

inline std::string number_text(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

}  // namespace gpuhash::server::config::detail
