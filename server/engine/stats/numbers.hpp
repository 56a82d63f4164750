#pragma once
// A shard's numbers for `stats`, kept as numbers: each shard's batch takes
// them (only that thread may read its counters), the engine merges the
// shards' as numbers, and render.hpp writes memcached's text once, as
// memcached aggregates its threads' stats (threadlocal_stats_aggregate).

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/cache/cache.hpp"
#include "index/index_port.hpp"

namespace gpuhash::server::engine {

/// One size class's commands, as memcached's per-class slab_stats (`stats
/// slabs`): counted at the class of the item hit, or of the item a store
/// makes; and its read hits by the LRU segment the item was in (memcached's
/// lru_hits: `stats items`' hits_to_hot, hits_to_warm, hits_to_cold, hits_to_temp).
struct class_command_counts {
  std::uint64_t get_hits = 0, cmd_set = 0, delete_hits = 0, incr_hits = 0, decr_hits = 0;
  std::uint64_t cas_hits = 0, cas_badval = 0, touch_hits = 0;
  std::array<std::uint64_t, store::lru_segments> hits_to_segment{};
};

/// Counted by the commands (engine/commands/), on the shard's batch thread.
struct command_counts {
  std::uint64_t cmd_get = 0, cmd_set = 0, cmd_flush = 0, cmd_touch = 0, cmd_meta = 0;
  std::uint64_t get_hits = 0, get_misses = 0;
  std::uint64_t delete_hits = 0, delete_misses = 0;
  std::uint64_t incr_hits = 0, incr_misses = 0, decr_hits = 0, decr_misses = 0;
  std::uint64_t cas_hits = 0, cas_misses = 0, cas_badval = 0;
  std::uint64_t touch_hits = 0, touch_misses = 0;
  /// By size class (item::size_class; 0: a store too large for any class).
  std::array<class_command_counts, store::size_classes_max + 1> classes{};
};

/// Counted by whoever runs the shard's batches (engine/shard/).
struct batch_counts {
  /// Groups a busy batch thread kept from a batch to send during the next
  /// one's index wait, and how many it sent there (shard/reply_sender.hpp).
  std::uint64_t wait_groups_held = 0, wait_groups_sent = 0;
  /// Batches a submitter ran during another shard's round trip (a request
  /// over several idle shards: engine.cpp's later_shards).
  std::uint64_t batches_overlapped = 0;
};

/// One size class, as `stats items` shows it: the store's numbers, the
/// cache's, and the age of each LRU segment's tail at the shard's clock (0:
/// empty; COLD's is `age`, HOT's and WARM's age_hot and age_warm). Its
/// commands are in command_counts::classes, its chunks in the slab ledger's
/// numbers.
struct class_numbers {
  store::class_stats store;
  class_item_counts items;
  std::array<std::int64_t, store::lru_segments> age{};
};

struct shard_numbers {
  std::int64_t now = 0;  ///< the batch's clock
  command_counts commands;
  item_counts items;
  batch_counts batches;
  index::index_numbers index;
  std::string index_description;
  std::size_t index_overflow = 0;  ///< linked items the index refused (a signature had 16)
  /// The store's (item_store's numbers of the same names).
  struct store_numbers {
    std::size_t bytes = 0, curr_items = 0;
    std::uint64_t lru_juggles = 0;  ///< item_store::juggles: lru_maintainer_juggles
  } store;
  /// The store's temp_lru now (`lru temp_ttl` changes it): number_temp is
  /// shown with it, as memcached shows it.
  bool temp_lru = false;
  std::vector<class_numbers> classes;  ///< numbered from 1
  /// The slab ledger's, which all shards share: memcached's chunks, pages,
  /// total_malloced and limit (`stats slabs`, limit_maxbytes).
  store::slab_numbers slabs;

  /// Adds another shard's: counts add up, ages and the largest batch are
  /// the larger; the clock, temp_lru, the index's description and the slab
  /// ledger's numbers (the same ledger's) stay this shard's.
  void merge(const shard_numbers& other);
};

/// The numbers of a shard's cache and counts, at its batch's clock.
shard_numbers numbers_of(const cache& items, const command_counts& commands,
                         const batch_counts& batches);

}  // namespace gpuhash::server::engine
