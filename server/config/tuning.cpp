// The -o options of memcached's own machinery, recorded as memcached sets
// them (memcached.c's and storage.c's -o parsing) for `stats settings`
// (tuning.hpp).

#include "config/tuning.hpp"

#include <cstdint>
#include <string_view>

namespace gpuhash::server::config {
namespace {

/// memcached's slab page: -o no_chunked_items and no_modern set
/// slab_chunk_max to it.
constexpr std::int64_t slab_page_size = 1024 * 1024;

/// -o no_modern: memcached 1.6's older defaults, all at once (a
/// slab_chunk_max given before it stays).
void record_no_modern(tuning_settings& tuning) {
  if (!tuning.slab_chunk_max_given) tuning.slab_chunk_max = slab_page_size;
  tuning.slab_reassign = false;
  tuning.slab_automove = 0;
  tuning.maxconns_fast = false;
  tuning.lru_maintainer = false;
  tuning.lru_crawler = false;
  tuning.hash_algorithm = "jenkins";
}

/// The ext_* options; false for another name.
bool record_extstore(extstore_tuning& ext, std::string_view name, std::int64_t number,
                     double real) {
  const auto value = static_cast<std::uint32_t>(number);
  if (name == "ext_item_size") {
    ext.item_size = value;
  } else if (name == "ext_item_age") {
    ext.item_age = value;
  } else if (name == "ext_low_ttl") {
    ext.low_ttl = value;
  } else if (name == "ext_recache_rate") {
    ext.recache_rate = value;
  } else if (name == "ext_wbuf_size") {
    ext.wbuf_size = value * 1024 * 1024;  // megabytes
  } else if (name == "ext_compact_under") {
    ext.compact_under = value;
  } else if (name == "ext_drop_under") {
    ext.drop_under = value;
  } else if (name == "ext_max_sleep") {
    ext.max_sleep = value;
  } else if (name == "ext_max_frag") {
    ext.max_frag = real;
  } else if (name == "slab_automove_freeratio") {
    ext.slab_automove_freeratio = real;
  } else if (name == "ext_drop_unread") {
    ext.drop_unread = true;
  } else {
    return false;
  }
  return true;
}

/// The options that switch memcached's machinery on or off; false for another name.
bool record_switch(tuning_settings& tuning, std::string_view name) {
  if (name == "maxconns_fast" || name == "no_maxconns_fast") {
    tuning.maxconns_fast = name == "maxconns_fast";
  } else if (name == "slab_reassign" || name == "no_slab_reassign") {
    tuning.slab_reassign = name == "slab_reassign";
  } else if (name == "lru_crawler" || name == "no_lru_crawler") {
    tuning.lru_crawler = name == "lru_crawler";
  } else if (name == "lru_maintainer" || name == "no_lru_maintainer") {
    tuning.lru_maintainer = name == "lru_maintainer";
  } else if (name == "no_slab_automove") {
    tuning.slab_automove = 0;
  } else if (name == "no_chunked_items") {
    tuning.slab_chunk_max = slab_page_size;
  } else {
    return false;
  }
  return true;
}

}  // namespace

void record_tuning(tuning_settings& tuning, std::string_view name, std::int64_t number, double real,
                   std::string_view text) {
  if (record_switch(tuning, name) || record_extstore(tuning.extstore, name, number, real)) return;
  if (name == "no_modern") {
    record_no_modern(tuning);
  } else if (name == "hashpower") {
    tuning.hashpower_init = number;
  } else if (name == "hash_algorithm") {
    tuning.hash_algorithm = text;
  } else if (name == "slab_automove") {
    tuning.slab_automove = text.empty() ? 1 : number;
  } else if (name == "slab_automove_ratio") {
    tuning.slab_automove_ratio = real;
  } else if (name == "slab_automove_window") {
    tuning.slab_automove_window = number;
  } else if (name == "slab_chunk_max") {
    tuning.slab_chunk_max = number;
    tuning.slab_chunk_max_given = true;
  } else if (name == "tail_repair_time") {
    tuning.tail_repair_time = number;
  } else if (name == "lru_crawler_sleep") {
    tuning.lru_crawler_sleep = number;
  } else if (name == "lru_crawler_tocrawl") {
    tuning.lru_crawler_tocrawl = number;
  } else if (name == "hot_lru_pct") {
    tuning.hot_lru_pct = number;
  } else if (name == "warm_lru_pct") {
    tuning.warm_lru_pct = number;
  } else if (name == "hot_max_factor") {
    tuning.hot_max_factor = real;
  } else if (name == "warm_max_factor") {
    tuning.warm_max_factor = real;
  } else if (name == "temporary_ttl") {
    tuning.temporary_ttl = number;
  } else if (name == "idle_timeout") {
    tuning.idle_timeout = number;
  } else if (name == "watcher_logbuf_size") {
    tuning.watcher_logbuf_size = number * 1024;  // kilobytes
  } else if (name == "worker_logbuf_size") {
    tuning.worker_logbuf_size = number * 1024;
  }
}

}  // namespace gpuhash::server::config
