// Tests of the item store's segmented LRU (memcached 1.6's HOT, WARM and
// COLD per class, item_store.hpp): where new items go, the shares HOT and
// WARM keep, reads that make items active and move them, ages on the
// store's clock, dead items reclaimed at any tail, and eviction from COLD.
// The numbers expected are memcached's for the same steps, with its LRU
// maintainer's juggle run after each step.

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "store/item_store.hpp"

namespace gpuhash::server::store {
namespace {

constexpr std::size_t mib = std::size_t{1} << 20;
constexpr std::size_t hot = segment_index(lru_segment::hot);
constexpr std::size_t warm = segment_index(lru_segment::warm);
constexpr std::size_t cold = segment_index(lru_segment::cold);
constexpr std::int64_t start_time = 1000;

/// A segmented store of small items with room for one page, at start_time.
struct segmented_store {
  explicit segmented_store(std::size_t pages = 1) : ledger(config_for(pages)), store(ledger) {
    store.set_now(start_time);
  }
  static store_config config_for(std::size_t pages) {
    store_config config;
    config.item_size_max = 1024;
    config.memory_limit = pages * mib;
    return config;
  }

  /// Links an item "key<i>" of class 1 (all the same size) stored now.
  location store_item(std::size_t i) {
    allocation_error error = allocation_error::none;
    const location where = store.allocate(key_of(i), 8, 0, error);
    EXPECT_EQ(error, allocation_error::none);
    store.at(where).accessed_at = store.now();  // as the engine links an item
    store.link(where);
    return where;
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
  EXPECT_EQ(s.segments(), (std::vector<std::vector<std::string>>{
                              keys_of({9, 8}), {}, keys_of({7, 6, 5, 4, 3, 2, 1, 0})}));
  const class_stats stats = s.first_class();
  EXPECT_EQ(stats.segment_items, (std::array<std::size_t, 3>{2, 0, 8}));
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
  const item& first = s.store.at(items[0]);
  s.store.bump(items[0]);
  EXPECT_TRUE(first.fetched);
  EXPECT_FALSE(first.active);
  EXPECT_EQ(first.segment, lru_segment::cold) << "the first read only marks it fetched";
  EXPECT_EQ(first.accessed_at, start_time);
  s.store.bump(items[0]);
  EXPECT_EQ(first.segment, lru_segment::warm);
  EXPECT_FALSE(first.active) << "the move uses the mark up";
  EXPECT_EQ(first.accessed_at, start_time + 100);
  EXPECT_EQ(s.first_class().moves_to_warm, 1u);
  // a third read marks it active again, in WARM, with its time set
  s.store.set_now(start_time + 101);
  s.store.bump(items[0]);
  EXPECT_TRUE(first.active);
  EXPECT_EQ(first.segment, lru_segment::warm);
  EXPECT_EQ(first.accessed_at, start_time + 101);
  s.store.bump(items[0]);  // an active item's reads change nothing
  EXPECT_EQ(first.accessed_at, start_time + 101);
  EXPECT_EQ(s.first_class().moves_to_warm, 1u);
  // an incr sets the time only
  s.store.set_now(start_time + 102);
  s.store.update(items[1]);
  EXPECT_EQ(s.store.at(items[1]).accessed_at, start_time + 102);
  EXPECT_EQ(s.store.at(items[1]).segment, lru_segment::cold);
  EXPECT_FALSE(s.store.at(items[1]).fetched);
}

TEST(segmented_lru, warm_keeps_two_fifths_and_moves_its_active_tail_to_its_head) {
  segmented_store s;
  std::vector<location> items;
  for (std::size_t i = 0; i < 10; ++i) items.push_back(s.store_item(i));
  for (std::size_t i = 0; i < 8; ++i) {
    s.store.bump(items[i]);
    s.store.bump(items[i]);
  }
  // each read made WARM's tail go to COLD while WARM held more than 40%
  EXPECT_EQ(s.segments(), (std::vector<std::vector<std::string>>{
                              keys_of({9, 8}), keys_of({7, 6, 5, 4}), keys_of({3, 2, 1, 0})}));
  class_stats stats = s.first_class();
  EXPECT_EQ(stats.moves_to_warm, 8u);
  EXPECT_EQ(stats.moves_to_cold, 8u + 4u);
  // WARM's tail, active, goes back to WARM's head when WARM is juggled
  s.store.bump(items[4]);  // read before: active, and in WARM only that
  s.store.bump(items[2]);  // read before: active, so it moves to WARM, over its share
  EXPECT_EQ(s.segments(), (std::vector<std::vector<std::string>>{
                              keys_of({9, 8}), keys_of({4, 2, 7, 6}), keys_of({5, 3, 1, 0})}));
  stats = s.first_class();
  EXPECT_EQ(stats.moves_within_lru, 1u);
  EXPECT_FALSE(s.store.at(items[4]).active);
}

TEST(segmented_lru, an_active_item_leaves_hot_for_warm) {
  segmented_store s;
  std::vector<location> items;
  for (std::size_t i = 0; i < 10; ++i) items.push_back(s.store_item(i));
  s.store.bump(items[8]);
  s.store.bump(items[8]);
  EXPECT_TRUE(s.store.at(items[8]).active);
  EXPECT_EQ(s.store.at(items[8]).segment, lru_segment::hot) << "active, it stays until pulled";
  s.store_item(10);  // HOT's tail (8, active) goes to WARM; 10 and 9 are within HOT's share
  EXPECT_EQ(s.segments(), (std::vector<std::vector<std::string>>{
                              keys_of({10, 9}), keys_of({8}), keys_of({7, 6, 5, 4, 3, 2, 1, 0})}));
  EXPECT_FALSE(s.store.at(items[8]).active);
  EXPECT_EQ(s.first_class().moves_to_warm, 1u);
}

TEST(segmented_lru, idle_items_leave_hot_as_the_clock_passes_a_fifth_of_colds_age) {
  segmented_store s;
  for (std::size_t i = 0; i < 10; ++i) s.store_item(i);
  s.store.set_now(start_time);  // the same second: nothing moves
  EXPECT_EQ(s.first_class().segment_items[hot], 2u);
  // COLD's tail is 4 s old: HOT keeps items idle for 0.8 s, in whole seconds 0
  s.store.set_now(start_time + 4);
  EXPECT_EQ(s.first_class().segment_items, (std::array<std::size_t, 3>{0, 0, 10}));
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
    s.store.bump(items[i]);
    s.store.bump(items[i]);
  }
  s.store.bump(items[1]);  // read once: fetched, still in COLD
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

}  // namespace
}  // namespace gpuhash::server::store
