// Tests of the item store's segmented LRU (memcached 1.6's HOT, WARM, COLD
// and TEMP per class, item_store.hpp): where new items go, the shares HOT
// and WARM keep, reads that make items active and move them, ages on the
// store's clock, dead items reclaimed at any tail, eviction from COLD, the
// juggles after deletes, reads and allocations, and TEMP's short-lived
// items, never moved nor evicted. The numbers expected are memcached's for
// the same steps, with its LRU maintainer's juggle run after each step.

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "store/item_store.hpp"

namespace gpuhash::server::store {
namespace {

constexpr std::size_t mib = std::size_t{1} << 20;
constexpr std::size_t hot = segment_index(lru_segment::hot);
constexpr std::size_t warm = segment_index(lru_segment::warm);
constexpr std::size_t cold = segment_index(lru_segment::cold);
constexpr std::size_t temp = segment_index(lru_segment::temp);
constexpr std::int64_t start_time = 1000;
using segment_keys = std::vector<std::vector<std::string>>;  // HOT, WARM, COLD, TEMP

/// A segmented store of small items with room for one page, at start_time;
/// with a temporary_ttl, memcached's temp_lru.
struct segmented_store {
  explicit segmented_store(std::optional<std::uint32_t> temporary_ttl = std::nullopt)
      : ledger(config_for(temporary_ttl)), store(ledger) {
    store.set_now(start_time);
  }
  static store_config config_for(std::optional<std::uint32_t> temporary_ttl) {
    store_config config;
    config.item_size_max = 1024;
    config.memory_limit = mib;
    config.lru.temp_lru = temporary_ttl.has_value();
    config.lru.temporary_ttl = temporary_ttl.value_or(61);
    return config;
  }

  /// Links an item "key<i>" of class 1 (all the same size) stored now,
  /// expiring at `expires_at` (0: never).
  location store_item(std::size_t i, std::int64_t expires_at = 0) {
    allocation_error error = allocation_error::none;
    const location where = store.allocate(key_of(i), 8, 0, error);
    EXPECT_EQ(error, allocation_error::none);
    store.at(where).accessed_at = store.now();  // as the engine links an item
    store.at(where).expires_at = expires_at;
    store.link(where);
    return where;
  }
  /// A get alone in its batch: the read, then the batch's end (where the
  /// juggle a read leaves runs).
  void read(location where) {
    store.bump(where);
    store.end_batch();
  }
  static std::string key_of(std::size_t i) {
    std::string key = std::to_string(i);
    return "key" + std::string(5 - key.size(), '0') + key;
  }

  class_stats first_class() const { return store.classes().front(); }
  /// The keys of each segment of class 1, each from its head to its tail.
  std::vector<std::vector<std::string>> segments() const {
    std::vector<std::vector<std::string>> keys(lru_segments);
    store.for_each_linked(
        [&](location, const item& it) { keys[segment_index(it.segment)].emplace_back(it.key()); });
    return keys;
  }

  slab_ledger ledger;
  item_store store;
};

std::vector<std::string> keys_of(std::initializer_list<std::size_t> numbers) {
  std::vector<std::string> keys;
  for (std::size_t i : numbers) keys.push_back(segmented_store::key_of(i));
  return keys;
}

TEST(segmented_lru, new_items_enter_hot_which_keeps_a_fifth_of_the_class_bytes) {
  segmented_store s;
  for (std::size_t i = 0; i < 10; ++i) s.store_item(i);
  // after each store HOT's tail goes to COLD while HOT holds more than 20%
  // of the class's bytes: the first four go at once, then one of two
  EXPECT_EQ(s.segments(),
            (segment_keys{keys_of({9, 8}), {}, keys_of({7, 6, 5, 4, 3, 2, 1, 0}), {}}));
  const class_stats stats = s.first_class();
  EXPECT_EQ(stats.segment_items, (std::array<std::size_t, lru_segments>{2, 0, 8, 0}));
  EXPECT_EQ(stats.linked_items, 10u);
  EXPECT_EQ(stats.moves_to_cold, 8u);
  EXPECT_EQ(stats.moves_to_warm, 0u);
  EXPECT_EQ(s.store.juggles(), 10u) << "one juggle after each store";
  // what memcached's cachedump lists: COLD, from its head
  std::vector<std::string> dumped;
  s.store.visit_class(1, [&](const item& it) {
    dumped.emplace_back(it.key());
    return true;
  });
  EXPECT_EQ(dumped, keys_of({7, 6, 5, 4, 3, 2, 1, 0}));
}

TEST(segmented_lru, a_second_read_moves_a_cold_item_to_warm) {
  segmented_store s;
  std::vector<location> items;
  for (std::size_t i = 0; i < 10; ++i) items.push_back(s.store_item(i));
  s.store.set_now(start_time + 100);  // (HOT's two, idle, go to COLD)
  s.read(items[1]);
  s.read(items[1]);  // 1 goes to WARM first, so that 0 will not be WARM's tail
  const item& first = s.store.at(items[0]);
  s.read(items[0]);
  EXPECT_TRUE(first.fetched);
  EXPECT_FALSE(first.active);
  EXPECT_EQ(first.segment, lru_segment::cold) << "the first read only marks it fetched";
  EXPECT_EQ(first.accessed_at, start_time);
  s.read(items[0]);
  EXPECT_EQ(first.segment, lru_segment::warm);
  EXPECT_FALSE(first.active) << "the move uses the mark up";
  EXPECT_EQ(first.accessed_at, start_time + 100);
  EXPECT_EQ(s.first_class().moves_to_warm, 2u);
  // a third read marks it active again, in WARM, with its time set
  s.store.set_now(start_time + 101);
  s.read(items[0]);
  EXPECT_TRUE(first.active);
  EXPECT_EQ(first.segment, lru_segment::warm);
  EXPECT_EQ(first.accessed_at, start_time + 101);
  s.store.set_now(start_time + 102);
  s.read(items[0]);  // an active item's reads change nothing
  EXPECT_EQ(first.accessed_at, start_time + 101);
  EXPECT_EQ(s.first_class().moves_to_warm, 2u);
  EXPECT_EQ(s.first_class().moves_within_lru, 0u);
  // an incr sets the time only
  s.store.update(items[2]);
  EXPECT_EQ(s.store.at(items[2]).accessed_at, start_time + 102);
  EXPECT_EQ(s.store.at(items[2]).segment, lru_segment::cold);
  EXPECT_FALSE(s.store.at(items[2]).fetched);
}

TEST(segmented_lru, warm_keeps_two_fifths_and_moves_its_active_tail_to_its_head) {
  segmented_store s;
  std::vector<location> items;
  for (std::size_t i = 0; i < 10; ++i) items.push_back(s.store_item(i));
  for (std::size_t i = 0; i < 8; ++i) {
    s.read(items[i]);
    s.read(items[i]);
  }
  // each read made WARM's tail go to COLD while WARM held more than 40%
  EXPECT_EQ(s.segments(),
            (segment_keys{keys_of({9, 8}), keys_of({7, 6, 5, 4}), keys_of({3, 2, 1, 0}), {}}));
  class_stats stats = s.first_class();
  EXPECT_EQ(stats.moves_to_warm, 8u);
  EXPECT_EQ(stats.moves_to_cold, 8u + 4u);
  // WARM's tail, made active, goes back to WARM's head in the juggle after the batch
  s.read(items[4]);  // read before: active
  EXPECT_EQ(s.segments()[warm], keys_of({4, 7, 6, 5}));
  EXPECT_EQ(s.first_class().moves_within_lru, 1u);
  EXPECT_FALSE(s.store.at(items[4]).active);
  s.read(items[2]);  // read before: active, so it moves to WARM, over its share
  EXPECT_EQ(s.segments(),
            (segment_keys{keys_of({9, 8}), keys_of({2, 4, 7, 6}), keys_of({5, 3, 1, 0}), {}}));
  stats = s.first_class();
  EXPECT_EQ(stats.moves_within_lru, 1u);
  EXPECT_EQ(stats.moves_to_cold, 8u + 4u + 1u);
}

TEST(segmented_lru, an_active_item_leaves_hot_for_warm_once_it_is_hots_tail) {
  segmented_store s;
  std::vector<location> items;
  for (std::size_t i = 0; i < 10; ++i) items.push_back(s.store_item(i));
  // 9 is HOT's head: made active, it stays until it is pulled from the tail
  s.read(items[9]);
  s.read(items[9]);
  EXPECT_TRUE(s.store.at(items[9]).active);
  EXPECT_EQ(s.store.at(items[9]).segment, lru_segment::hot);
  // HOT's tail (8, idle) goes to COLD, over HOT's share; then 9, active, to
  // WARM whatever the share (memcached rescues active items)
  const location ten = s.store_item(10);
  EXPECT_EQ(s.segments(),
            (segment_keys{keys_of({10}), keys_of({9}), keys_of({8, 7, 6, 5, 4, 3, 2, 1, 0}), {}}));
  EXPECT_FALSE(s.store.at(items[9]).active);
  EXPECT_EQ(s.first_class().moves_to_warm, 1u);
  // HOT's tail made active moves when its batch ends: the juggle then pulls it
  s.read(ten);
  s.read(ten);
  EXPECT_TRUE(s.segments()[hot].empty());
  EXPECT_EQ(s.segments()[warm], keys_of({10, 9}));
  EXPECT_EQ(s.first_class().moves_to_warm, 2u);
}

TEST(segmented_lru, idle_items_leave_hot_as_the_clock_passes_a_fifth_of_colds_age) {
  segmented_store s;
  for (std::size_t i = 0; i < 10; ++i) s.store_item(i);
  s.store.set_now(start_time);  // the same second: nothing moves
  EXPECT_EQ(s.first_class().segment_items[hot], 2u);
  // COLD's tail is 4 s old: HOT keeps items idle for 0.8 s, in whole seconds 0
  s.store.set_now(start_time + 4);
  EXPECT_EQ(s.first_class().segment_items, (std::array<std::size_t, lru_segments>{0, 0, 10, 0}));
  EXPECT_EQ(s.first_class().oldest_access[cold], start_time);
  // with COLD's tail 10 s old, an item 1 s idle stays in HOT; at 12 s, one 3 s idle goes
  segmented_store t;
  for (std::size_t i = 0; i < 10; ++i) t.store_item(i);
  t.store.set_now(start_time + 9);  // 9 and 8, 9 s idle, over 0.2 x 9 s: they go
  EXPECT_EQ(t.first_class().segment_items[hot], 0u);
  t.store_item(10);
  t.store.set_now(start_time + 10);
  t.store_item(11);
  EXPECT_EQ(t.segments()[hot], keys_of({11, 10}));
  t.store.set_now(start_time + 12);
  EXPECT_EQ(t.segments()[hot], keys_of({11})) << "10, 3 s idle, is over 2 s; 11, 2 s, is not";
}

TEST(segmented_lru, dead_items_are_reclaimed_at_any_tail_but_the_one_just_stored) {
  segmented_store s;
  s.store.on_dead_check([](const item& it) { return it.expires_at == 1; });
  std::vector<std::string> reclaimed;
  s.store.on_removal([&](location, const item& it, tail_removal why) {
    EXPECT_EQ(why, tail_removal::reclaimed);
    reclaimed.emplace_back(it.key());
  });
  std::vector<location> items;
  for (std::size_t i = 0; i < 10; ++i) items.push_back(s.store_item(i));
  s.store.at(items[8]).expires_at = 1;  // HOT's tail
  s.store.at(items[0]).expires_at = 1;  // COLD's tail
  const location fresh = s.store_item(10);
  EXPECT_EQ(reclaimed, keys_of({8, 0}));
  s.store.at(fresh).expires_at = 1;
  s.store.at(items[9]).expires_at = 1;
  s.store_item(11);
  EXPECT_EQ(reclaimed, keys_of({8, 0, 9, 10}));
  EXPECT_EQ(s.first_class().linked_items, 8u);
  // an item dead as it is stored is left to a later juggle (its store is not over)
  allocation_error error = allocation_error::none;
  const location stillborn = s.store.allocate(segmented_store::key_of(12), 8, 0, error);
  s.store.at(stillborn).expires_at = 1;
  s.store.at(stillborn).accessed_at = start_time;
  s.store.link(stillborn);
  EXPECT_TRUE(s.store.at(stillborn).linked);
  EXPECT_EQ(s.first_class().reclaimed, 4u);
  EXPECT_EQ(s.first_class().linked_items, 9u);
}

TEST(segmented_lru, a_full_class_evicts_colds_tail_and_spares_what_was_read_twice) {
  segmented_store s;
  std::vector<std::string> evicted;
  s.store.on_removal([&](location, const item& it, tail_removal why) {
    EXPECT_EQ(why, tail_removal::evicted);
    evicted.emplace_back(it.key());
  });
  const std::size_t chunks = s.ledger.classes().chunks_per_page(1);
  std::vector<location> items;
  for (std::size_t i = 0; i < chunks; ++i) items.push_back(s.store_item(i));
  for (std::size_t i : {0, 2}) {
    s.read(items[i]);
    s.read(items[i]);
  }
  s.read(items[1]);  // read once: fetched, still in COLD
  for (std::size_t i = chunks; i < chunks + 3; ++i) s.store_item(i);
  EXPECT_EQ(evicted, keys_of({1, 3, 4}));
  const class_stats stats = s.first_class();
  EXPECT_EQ(stats.evictions, 3u);
  EXPECT_EQ(stats.evicted_active, 0u) << "reads move active items at once";
  EXPECT_EQ(stats.linked_items, chunks);
  EXPECT_EQ(stats.segment_items[hot] + stats.segment_items[warm] + stats.segment_items[cold],
            chunks);
}

TEST(segmented_lru, stats_reset_zeroes_the_moves) {
  segmented_store s;
  for (std::size_t i = 0; i < 10; ++i) s.store_item(i);
  ASSERT_NE(s.first_class().moves_to_cold, 0u);
  s.store.reset_counts();
  EXPECT_EQ(s.first_class().moves_to_cold, 0u);
  EXPECT_EQ(s.store.juggles(), 0u);
  EXPECT_EQ(s.first_class().segment_items[cold], 8u) << "a reset drops counts, not items";
}

// ---- the juggles after a delete, a read, an allocation and a flush --------------

TEST(segmented_lru, a_delete_juggles_its_class) {
  segmented_store s;
  std::vector<location> items;
  for (std::size_t i = 0; i < 10; ++i) items.push_back(s.store_item(i));
  // with 9 items left, HOT's two are over a fifth: its tail goes to COLD
  s.store.unlink(items[0]);
  EXPECT_EQ(s.segments(), (segment_keys{keys_of({9}), {}, keys_of({8, 7, 6, 5, 4, 3, 2, 1}), {}}));
  EXPECT_EQ(s.first_class().moves_to_cold, 9u);
  for (std::size_t i = 1; i < 6; ++i) s.store.unlink(items[i]);
  EXPECT_EQ(s.segments(), (segment_keys{{}, {}, keys_of({9, 8, 7, 6}), {}}));
  EXPECT_EQ(s.first_class().moves_to_cold, 10u);
}

TEST(segmented_lru, a_store_in_another_class_juggles_the_class_of_the_item_it_replaces) {
  segmented_store s;
  std::vector<location> items;
  for (std::size_t i = 0; i < 10; ++i) items.push_back(s.store_item(i));
  allocation_error error = allocation_error::none;
  const location larger = s.store.allocate(segmented_store::key_of(0), 40, 0, error);
  ASSERT_EQ(error, allocation_error::none);
  ASSERT_NE(s.store.at(larger).size_class, 1u);
  s.store.link(larger, items[0]);
  EXPECT_EQ(s.first_class().linked_items, 9u);
  EXPECT_EQ(s.first_class().segment_items[hot], 1u) << "9 items: HOT keeps one";
  EXPECT_EQ(s.first_class().moves_to_cold, 9u);
}

TEST(segmented_lru, a_read_leaves_the_item_it_reads_to_the_juggle_at_its_batchs_end) {
  segmented_store s;
  s.store.on_dead_check([](const item& it) { return it.expires_at == 1; });
  std::vector<location> items;
  for (std::size_t i = 0; i < 10; ++i) items.push_back(s.store_item(i));
  s.store.bump(items[8]);               // HOT's tail: fetched
  s.store.at(items[8]).expires_at = 1;  // a touch made it dead
  s.store.bump(items[8]);               // active: its class is juggled when the batch ends
  EXPECT_TRUE(s.store.at(items[8]).linked);
  EXPECT_EQ(s.first_class().reclaimed, 0u);
  const std::uint64_t juggles = s.store.juggles();
  s.store.end_batch();  // that juggle reclaims it from HOT's tail
  EXPECT_FALSE(s.store.at(items[8]).linked);
  EXPECT_EQ(s.first_class().reclaimed, 1u);
  EXPECT_EQ(s.store.juggles(), juggles + 1);
}

TEST(segmented_lru, the_reads_of_one_batch_leave_one_juggle_to_its_end) {
  segmented_store s;
  std::vector<location> items;
  for (std::size_t i = 0; i < 10; ++i) items.push_back(s.store_item(i));
  const std::uint64_t juggles = s.store.juggles();
  for (std::size_t i = 0; i < 8; ++i) {  // COLD's eight, each made active
    s.store.bump(items[i]);
    s.store.bump(items[i]);
  }
  EXPECT_EQ(s.store.juggles(), juggles) << "no juggle within the batch";
  EXPECT_EQ(s.first_class().segment_items[warm], 8u) << "moved to WARM at once";
  s.store.end_batch();
  EXPECT_EQ(s.store.juggles(), juggles + 1);
  // the one juggle brings WARM back to two fifths, as a juggle after each
  // read did (warm_keeps_two_fifths_...), in the order the tails come
  EXPECT_EQ(s.segments(),
            (segment_keys{keys_of({9, 8}), keys_of({7, 6, 5, 4}), keys_of({3, 2, 1, 0}), {}}));
  s.store.end_batch();
  EXPECT_EQ(s.store.juggles(), juggles + 1) << "a batch with no read that moved leaves none";
}

TEST(segmented_lru, an_allocation_that_evicted_is_followed_by_a_juggle) {
  segmented_store s;
  s.store_item(0);  // COLD's tail, 60 s old below
  s.store.set_now(start_time + 50);
  const std::size_t chunks = s.ledger.classes().chunks_per_page(1);
  for (std::size_t i = 1; i < chunks; ++i) s.store_item(i);
  // HOT's items, 10 s idle, are within a fifth of COLD's 60 s
  s.store.set_now(start_time + 60);
  const std::size_t in_hot = s.first_class().segment_items[hot];
  ASSERT_GT(in_hot, 0u);
  // a store refused after its allocation evicted COLD's tail: the release
  // juggles the class, and COLD's tail is now 10 s old, which HOT's are over
  allocation_error error = allocation_error::none;
  const location refused = s.store.allocate("refused", 8, 0, error);
  ASSERT_EQ(error, allocation_error::none);
  EXPECT_EQ(s.first_class().evictions, 1u);
  EXPECT_EQ(s.first_class().segment_items[hot], in_hot) << "the allocation alone juggles nothing";
  const std::uint64_t moves_before = s.first_class().moves_to_cold;
  s.store.release(refused);
  EXPECT_EQ(s.first_class().segment_items[hot], 0u);
  EXPECT_EQ(s.first_class().moves_to_cold, moves_before + in_hot);
}

TEST(segmented_lru, juggling_every_class_reclaims_what_a_flush_made_dead) {
  segmented_store s;
  std::vector<location> items;
  for (std::size_t i = 0; i < 10; ++i) items.push_back(s.store_item(i));
  bool flushed = false;
  s.store.on_dead_check([&](const item&) { return flushed; });
  flushed = true;
  s.store.juggle_all();
  EXPECT_EQ(s.first_class().linked_items, 0u);
  EXPECT_EQ(s.first_class().reclaimed, 10u);
}

// ---- the `lru` command (item_store::set_lru) -----------------------------------------

TEST(lru_command, flat_mode_drains_hot_and_warm_into_cold_and_links_there) {
  segmented_store s;
  std::vector<location> items;
  for (std::size_t i = 0; i < 10; ++i) items.push_back(s.store_item(i));
  s.read(items[0]);
  s.read(items[0]);  // to WARM
  ASSERT_EQ(s.first_class().segment_items, (std::array<std::size_t, lru_segments>{2, 1, 7, 0}));
  lru_settings flat = s.store.lru();
  flat.segmented = false;
  s.store.set_lru(flat);  // juggles: HOT and WARM drain into COLD
  EXPECT_EQ(s.first_class().segment_items, (std::array<std::size_t, lru_segments>{0, 0, 10, 0}));
  EXPECT_EQ(s.store.at(s.store_item(10)).segment, lru_segment::cold) << "memcached's one LRU";
  // a read moves an item as without segments: to COLD's head once a minute
  s.store.set_now(start_time + 61);
  s.read(items[5]);
  EXPECT_EQ(s.segments()[cold].front(), segmented_store::key_of(5));
  EXPECT_EQ(s.store.at(items[5]).segment, lru_segment::cold);
  lru_settings segmented = flat;
  segmented.segmented = true;
  s.store.set_lru(segmented);
  EXPECT_EQ(s.store.at(s.store_item(11)).segment, lru_segment::hot);
}

TEST(lru_command, tune_changes_the_shares_the_juggles_keep) {
  segmented_store s;
  for (std::size_t i = 0; i < 10; ++i) s.store_item(i);
  ASSERT_EQ(s.first_class().segment_items[hot], 2u);
  lru_settings tuned = s.store.lru();
  tuned.hot_lru_pct = 50;
  tuned.warm_lru_pct = 30;
  s.store.set_lru(tuned);
  for (std::size_t i = 10; i < 20; ++i) s.store_item(i);
  EXPECT_EQ(s.first_class().segment_items[hot], 10u) << "HOT keeps half of 20 items";
}

TEST(lru_command, temp_ttl_sends_new_short_lived_items_to_temp_until_turned_off) {
  segmented_store s;
  EXPECT_NE(s.store.at(s.store_item(0, start_time + 5)).segment, lru_segment::temp);
  lru_settings with_temp = s.store.lru();
  with_temp.temp_lru = true;
  with_temp.temporary_ttl = 10;
  s.store.set_lru(with_temp);
  EXPECT_EQ(s.store.at(s.store_item(1, start_time + 5)).segment, lru_segment::temp);
  with_temp.temp_lru = false;
  s.store.set_lru(with_temp);
  EXPECT_NE(s.store.at(s.store_item(2, start_time + 5)).segment, lru_segment::temp);
  EXPECT_EQ(s.first_class().segment_items[temp], 1u) << "TEMP keeps what it holds";
}

// ---- TEMP (memcached's temp_lru) ---------------------------------------------------

TEST(temp_lru, items_expiring_within_temporary_ttl_enter_temp) {
  segmented_store s(10);
  const std::int64_t now = start_time;
  const location never = s.store_item(0);
  const location at_ttl = s.store_item(1, now + 10);
  const location past_ttl = s.store_item(2, now + 11);
  const location this_second = s.store_item(3, now);
  const location long_past = s.store_item(4, 1);
  const location a_second_ago = s.store_item(5, now - 1);
  EXPECT_EQ(s.store.at(at_ttl).segment, lru_segment::temp);
  EXPECT_EQ(s.store.at(this_second).segment, lru_segment::temp);
  for (const location other : {never, past_ttl, long_past, a_second_ago})
    EXPECT_NE(s.store.at(other).segment, lru_segment::temp);
  EXPECT_EQ(s.segments()[temp], keys_of({3, 1}));
  EXPECT_EQ(s.first_class().segment_items[temp], 2u);
  // without temp_lru, the same expiry goes to HOT (and on to COLD)
  segmented_store off;
  EXPECT_NE(off.store.at(off.store_item(0, now + 5)).segment, lru_segment::temp);
  // temporary_ttl 0: only an expiry of this very second
  segmented_store zero(0);
  EXPECT_EQ(zero.store.at(zero.store_item(0, now)).segment, lru_segment::temp);
  EXPECT_NE(zero.store.at(zero.store_item(1, now + 1)).segment, lru_segment::temp);
}

TEST(temp_lru, temp_items_never_move_and_count_in_no_share) {
  segmented_store s(100);
  std::vector<location> temporary;
  for (std::size_t i = 0; i < 10; ++i) temporary.push_back(s.store_item(i, start_time + 50));
  s.store.set_now(start_time + 20);  // a new second: every class juggled
  EXPECT_EQ(s.segments()[temp], keys_of({9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
  // a second read marks it active and sets its time; it stays in TEMP
  s.read(temporary[0]);
  s.read(temporary[0]);
  EXPECT_TRUE(s.store.at(temporary[0]).active);
  EXPECT_EQ(s.store.at(temporary[0]).accessed_at, start_time + 20);
  EXPECT_EQ(s.store.at(temporary[0]).segment, lru_segment::temp);
  // HOT keeps a fifth of HOT, WARM and COLD's bytes, TEMP's left out (with
  // them it would keep 4 of these 10)
  for (std::size_t i = 10; i < 20; ++i) s.store_item(i);
  EXPECT_EQ(s.first_class().segment_items, (std::array<std::size_t, lru_segments>{2, 0, 8, 10}));
  const class_stats stats = s.first_class();
  EXPECT_EQ(stats.moves_to_cold, 8u);
  EXPECT_EQ(stats.moves_to_warm + stats.moves_within_lru, 0u);
}

TEST(temp_lru, the_juggle_reclaims_temps_dead_tail_up_to_its_first_live_item) {
  segmented_store s(10);
  s.store.on_dead_check(
      [&](const item& it) { return it.expires_at != 0 && it.expires_at < s.store.now(); });
  s.store_item(0, start_time + 2);
  s.store_item(1, start_time + 5);
  s.store_item(2, start_time + 2);
  s.store.set_now(start_time + 3);  // 0 and 2 dead; 1, alive, stops the pull before 2
  EXPECT_EQ(s.segments()[temp], keys_of({2, 1}));
  EXPECT_EQ(s.first_class().reclaimed, 1u);
  s.store.set_now(start_time + 6);
  EXPECT_TRUE(s.segments()[temp].empty());
  EXPECT_EQ(s.first_class().reclaimed, 3u);
  EXPECT_EQ(s.first_class().linked_items, 0u);
}

TEST(temp_lru, eviction_passes_temp_by_and_fails_when_only_temp_is_left) {
  segmented_store s(100);
  std::vector<std::string> evicted;
  s.store.on_removal([&](location, const item& it, tail_removal why) {
    EXPECT_EQ(why, tail_removal::evicted);
    evicted.emplace_back(it.key());
  });
  const std::size_t chunks = s.ledger.classes().chunks_per_page(1);
  for (std::size_t i = 0; i < chunks / 2; ++i) s.store_item(i, start_time + 60);
  for (std::size_t i = chunks / 2; i < chunks + 3; ++i) s.store_item(i);
  EXPECT_EQ(evicted, keys_of({chunks / 2, chunks / 2 + 1, chunks / 2 + 2}));
  EXPECT_EQ(s.first_class().segment_items[temp], chunks / 2);
  // TEMP items take what the evictions free, until HOT and COLD are empty
  const std::size_t without_expiry = chunks + 3 - chunks / 2;
  for (std::size_t i = chunks + 3; i < chunks + 3 + (chunks - chunks / 2); ++i)
    s.store_item(i, start_time + 60);
  class_stats stats = s.first_class();
  EXPECT_EQ(stats.segment_items, (std::array<std::size_t, lru_segments>{0, 0, 0, chunks}));
  EXPECT_EQ(stats.evictions, without_expiry) << "every item without an expiry";
  EXPECT_EQ(stats.outofmemory, 0u);
  allocation_error error = allocation_error::none;
  EXPECT_EQ(s.store.allocate("one_more", 8, 0, error), no_location);
  EXPECT_EQ(error, allocation_error::out_of_memory);
  const std::uint64_t passes_before = stats.direct_reclaims;
  stats = s.first_class();
  EXPECT_EQ(stats.outofmemory, 1u);
  EXPECT_EQ(stats.direct_reclaims, passes_before + 10) << "memcached's 10 passes, all in vain";
  EXPECT_EQ(stats.evictions, without_expiry) << "every item without an expiry";
}

}  // namespace
}  // namespace gpuhash::server::store
