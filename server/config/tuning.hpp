#pragma once
// memcached's settings for machinery gpuhash-server does not have (its LRU
// maintainer and crawler, slab mover, hash table, loggers, extstore, NAPI
// ids, warm restart) and for a choice it has only one answer to (-B):
// the flags and -o options that set them are accepted, each with a line at
// -v saying it has no effect, and their values are shown in `stats
// settings` as memcached shows them (app/settings_lines.cpp). Some of them
// decide which of memcached's optional counters `stats` shows, as they do in
// memcached. Defaults are memcached 1.6.18's.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpuhash::server::config {

/// The extstore options' values (memcached's storage.c; ext_path, accepted
/// without effect like the others, stores nothing on disk).
struct extstore_tuning {
  std::uint32_t item_size = 512;
  std::uint32_t item_age = 0xFFFFFFFFu;
  std::uint32_t low_ttl = 0;
  std::uint32_t recache_rate = 2000;
  std::uint32_t wbuf_size = 4u << 20;  ///< megabytes on the command line
  std::uint32_t compact_under = 0;
  std::uint32_t drop_under = 0;
  std::uint32_t max_sleep = 1000000;
  double max_frag = 0.8;
  double slab_automove_freeratio = 0.01;
  bool drop_unread = false;
};

struct tuning_settings {
  std::string binding_protocol = "auto-negotiate";  ///< -B ascii|auto (binary is refused)
  char stat_key_prefix = ':';                       ///< -D
  std::int64_t hashpower_init = 0;                  ///< hashpower (0: memcached sizes itself)
  bool maxconns_fast = true;
  bool slab_reassign = true;
  std::int64_t slab_automove = 1;
  double slab_automove_ratio = 0.8;
  std::int64_t slab_automove_window = 30;
  std::int64_t slab_chunk_max = 512 * 1024;
  bool slab_chunk_max_given = false;  ///< set by -o slab_chunk_max (-I and no_modern keep it)
  bool lru_crawler = true;
  std::int64_t lru_crawler_sleep = 100;
  std::int64_t lru_crawler_tocrawl = 0;
  std::int64_t tail_repair_time = 0;
  std::string hash_algorithm = "murmur3";
  bool lru_maintainer = true;  ///< lru_maintainer_thread and lru_segmented
  std::int64_t hot_lru_pct = 20;
  std::int64_t warm_lru_pct = 40;
  double hot_max_factor = 0.2;
  double warm_max_factor = 2.0;
  std::optional<std::int64_t> temporary_ttl;  ///< given: temp_lru (61 shown when not)
  std::int64_t idle_timeout = 0;
  std::int64_t watcher_logbuf_size = 256 * 1024;  ///< kilobytes on the command line
  std::int64_t worker_logbuf_size = 64 * 1024;    ///< kilobytes on the command line
  extstore_tuning extstore;
  std::string napi_ids;     ///< -N, as given (empty: not given)
  std::string memory_file;  ///< -e (empty: not given)
};

/// Records the value of the -o option `name` (one of flags.hpp's ignored
/// suboptions) as memcached would set it; `number` and `real` are its value
/// already checked (integer and real options), `text` as given.
void record_tuning(tuning_settings& tuning, std::string_view name, std::int64_t number, double real,
                   std::string_view text);

}  // namespace gpuhash::server::config
