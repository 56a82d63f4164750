// Tests of the server's item store: allocation in memcached's classes with
// the chunks counted by the slab ledger, chunked items in blocks of their
// own, the key/value layout, LRU order, memcached's pulls from the LRU tail
// (dead items reclaimed, live ones evicted; `keep`; -M), the memory limit,
// and a randomized differential test against a model made of std::list and
// std::unordered_map. These run one LRU per class (memcached without its
// LRU maintainer); segmented_lru_test.cpp tests HOT, WARM and COLD.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <list>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "store/item_store.hpp"
#include "tests/support/random.hpp"

namespace gpuhash::server::store {
namespace {

using gpuhash::testing::scaled;
using gpuhash::testing::seeded_random;

constexpr std::size_t mib = std::size_t{1} << 20;
constexpr std::size_t terminator = 2;

/// The stores' clock: items here are linked at time 0, so their first
/// read moves them (memcached moves an item read 60 s after its last move).
constexpr std::int64_t start_time = 1000000;

/// A store and the ledger it counts its chunks in.
struct store_with_ledger {
  explicit store_with_ledger(const store_config& config, std::size_t stores = 1)
      : ledger(config, stores), store(ledger) {
    store.set_now(start_time);
  }
  slab_ledger ledger;
  item_store store;
};

/// Small items, room for `pages` 1 MB pages, one LRU per class.
store_config config_with_pages(std::size_t pages, bool evict = true) {
  store_config config;
  config.item_size_max = 1024;
  config.memory_limit = pages * mib;
  config.evict = evict;
  config.lru.maintainer = false;
  config.lru.segmented = false;
  return config;
}

/// The value length that makes an item with `key` (flags 0) exactly
/// `total` bytes as memcached counts it.
std::size_t value_filling(std::size_t total, std::string_view key) {
  return total - reported_size(key.size(), 0, 0, true);
}

location allocate_ok(item_store& store, std::string_view key, std::size_t value_bytes,
                     location keep = no_location, std::uint32_t client_flags = 0) {
  allocation_error error = allocation_error::none;
  const location where = store.allocate(key, value_bytes, client_flags, error, keep);
  EXPECT_EQ(error, allocation_error::none) << "allocating " << key;
  EXPECT_NE(where, no_location);
  return where;
}

allocation_error allocate_error(item_store& store, std::string_view key, std::size_t value_bytes,
                                location keep = no_location) {
  allocation_error error = allocation_error::none;
  const location where = store.allocate(key, value_bytes, 0, error, keep);
  if (error != allocation_error::none) {
    EXPECT_EQ(where, no_location);
  }
  return error;
}

/// Linked items in the order for_each_linked visits them.
std::vector<location> visit_order(const item_store& store) {
  std::vector<location> order;
  store.for_each_linked([&](location where, const item&) { order.push_back(where); });
  return order;
}

/// One class of the ledger's numbers (numbered from 1).
slab_class_numbers slabs_of(const item_store& store, std::size_t size_class) {
  return store.ledger().numbers().classes[size_class - 1];
}

std::size_t total_pages(const item_store& store) {
  std::size_t pages = 0;
  for (const slab_class_numbers& each : store.ledger().numbers().classes) pages += each.pages;
  return pages;
}

/// Fills class 1 (one page) with linked items "key0", "key1", ...; the last is the most recent.
std::vector<location> fill_first_class(item_store& store) {
  std::vector<location> locations;
  const std::size_t chunks = store.ledger().classes().chunks_per_page(1);
  for (std::size_t i = 0; i < chunks; ++i) {
    locations.push_back(allocate_ok(store, "key" + std::to_string(i), 1));
    store.link(locations.back());
  }
  return locations;
}

TEST(item_store_allocate, picks_the_class_of_memcacheds_size) {
  store_config config;
  config.memory_limit = 256 * mib;
  store_with_ledger s{config};
  item_store& store = s.store;
  const slab_classes& classes = s.ledger.classes();
  const std::string key = "k";
  for (std::size_t c = 1; c < classes.largest(); ++c) {
    SCOPED_TRACE("class " + std::to_string(c));
    const std::size_t exact = value_filling(classes.chunk_size(c), key);
    EXPECT_EQ(store.at(allocate_ok(store, key, exact)).size_class, c);
    EXPECT_EQ(store.at(allocate_ok(store, key, exact + 1)).size_class, c + 1);
    EXPECT_EQ(store.class_for(key.size(), exact, 0), c);
    // client flags other than 0 take 4 bytes more, as in memcached
    EXPECT_EQ(store.class_for(key.size(), exact - 4, 1), c);
    EXPECT_EQ(store.class_for(key.size(), exact - 3, 1), c + 1);
  }
  const slab_numbers numbers = s.ledger.numbers();
  // each class but the first and the largest got an exact and a larger item
  EXPECT_EQ(numbers.classes.front().used_chunks, 1u);
  EXPECT_EQ(numbers.classes.back().used_chunks, 1u);
  for (std::size_t c = 2; c < classes.largest(); ++c) {
    EXPECT_EQ(numbers.classes[c - 1].used_chunks, 2u) << "class " << c;
  }
  for (const slab_class_numbers& each : numbers.classes) EXPECT_EQ(each.pages, 1u);
  EXPECT_EQ(numbers.total_malloced, classes.largest() * mib);
  EXPECT_EQ(store.pages_allocated(), classes.largest());
}

TEST(item_store_allocate, copies_the_key_and_flags_and_ends_the_value_with_crlf) {
  store_with_ledger s{config_with_pages(4)};
  item_store& store = s.store;
  const location where = allocate_ok(store, "answer", 5, no_location, 42);
  item& it = store.at(where);
  EXPECT_EQ(it.key(), "answer");
  EXPECT_EQ(it.client_flags, 42u);
  ASSERT_EQ(it.value().size(), 5u);
  std::copy_n("hello", 5, it.value().data());
  EXPECT_EQ(std::string_view(it.value().data(), 7), "hello\r\n");
  const item& read_only = store.at(where);
  EXPECT_EQ(std::string_view(read_only.value().data(), read_only.value().size()), "hello");
  EXPECT_EQ(read_only.key_bytes, 6u);
  EXPECT_EQ(read_only.value_bytes, 5u);
  EXPECT_FALSE(read_only.linked);

  const item& empty = store.at(allocate_ok(store, "empty", 0));
  EXPECT_EQ(std::string_view(empty.value().data(), 2), "\r\n");
}

TEST(item_store_allocate, zeroes_the_metadata_of_a_reused_chunk) {
  store_with_ledger s{config_with_pages(1)};
  item_store& store = s.store;
  const location first = allocate_ok(store, "first", 3, no_location, 7);
  item& it = store.at(first);
  it.expires_at = 11;
  it.stored_at = 12;
  it.accessed_at = 13;
  it.cas = 99;
  it.fetched = true;
  store.link(first);
  store.unlink(first);
  const location again = allocate_ok(store, "again", 4);
  ASSERT_EQ(again, first) << "the freed chunk is the first one handed out";
  const item& reused = store.at(again);
  EXPECT_EQ(reused.key(), "again");
  EXPECT_EQ(reused.value_bytes, 4u);
  EXPECT_EQ(reused.client_flags, 0u);
  EXPECT_EQ(reused.expires_at, 0);
  EXPECT_EQ(reused.stored_at, 0);
  EXPECT_EQ(reused.accessed_at, 0);
  EXPECT_EQ(reused.cas, 0u);
  EXPECT_FALSE(reused.fetched);
  EXPECT_FALSE(reused.linked);
  EXPECT_EQ(reused.lru_prev, no_location);
  EXPECT_EQ(reused.lru_next, no_location);
}

TEST(item_store_allocate, refuses_items_beyond_item_size_max_as_memcached_counts_them) {
  store_config config;
  config.item_size_max = 4096;
  config.memory_limit = 8 * mib;
  store_with_ledger s{config};
  item_store& store = s.store;
  const std::size_t largest_value = value_filling(4096, "k");
  const location largest = allocate_ok(store, "k", largest_value);
  EXPECT_EQ(store.reported_size(store.at(largest)), 4096u);
  EXPECT_EQ(allocate_error(store, "k", largest_value + 1), allocation_error::too_large);
  EXPECT_EQ(store.class_for(1, largest_value - 3, 1), 0u) << "flags take 4 bytes";
  EXPECT_EQ(allocate_error(store, std::string(256, 'k'), 0), allocation_error::too_large);
  EXPECT_EQ(allocate_error(store, "k", std::size_t{1} << 40), allocation_error::too_large);
  EXPECT_EQ(store.at(allocate_ok(store, std::string(255, 'k'), 0)).key().size(), 255u);
  EXPECT_EQ(slabs_of(store, store.class_for(1, 0, 0)).used_chunks, 0u) << "nothing taken";
}

TEST(item_store_allocate, release_gives_the_chunk_back) {
  store_with_ledger s{config_with_pages(1)};
  item_store& store = s.store;
  const location where = allocate_ok(store, "abandoned", 10);
  EXPECT_EQ(slabs_of(store, 1).used_chunks, 1u);
  store.release(where);
  EXPECT_EQ(slabs_of(store, 1).used_chunks, 0u);
  EXPECT_EQ(slabs_of(store, 1).pages, 1u);
  EXPECT_EQ(allocate_ok(store, "reused", 10), where);
}

TEST(item_store_allocate, without_cas_a_header_that_needs_more_takes_a_larger_chunk) {
  // Without -C's 8 bytes memcached's size is below what the item takes here
  // (its own header): the item counts in memcached's class and lives in
  // the next one's chunk.
  store_config config;
  config.cas_enabled = false;
  store_with_ledger s{config};
  item_store& store = s.store;
  const std::size_t value = 96 - reported_size(1, 0, 0, false);
  const location where = allocate_ok(store, "k", value);
  EXPECT_EQ(store.at(where).size_class, 1u);
  EXPECT_EQ(store.reported_size(store.at(where)), 96u);
  EXPECT_EQ(slabs_of(store, 1).used_chunks, 1u);
  EXPECT_EQ(slabs_of(store, 2).used_chunks, 0u);
  EXPECT_EQ(store.pages_allocated(), 1u) << "a page of class 2's chunks";
  store.link(where);
  EXPECT_EQ(store.classes()[0].linked_items, 1u);
  store.unlink(where);
  EXPECT_EQ(slabs_of(store, 1).used_chunks, 0u);
}

TEST(item_store_chunked, an_item_over_slab_chunk_max_takes_memcacheds_chunks_and_a_block) {
  store_config config;
  config.item_size_max = 2 * mib;
  store_with_ledger s{config};
  item_store& store = s.store;
  const slab_classes& classes = s.ledger.classes();
  const std::size_t value_bytes = 1048512;
  const location where = allocate_ok(store, "k", value_bytes, no_location, 1);
  EXPECT_NE(where & block_location, 0u);
  item& it = store.at(where);
  EXPECT_EQ(it.size_class, classes.largest()) << "its LRU is the largest class's";
  ASSERT_EQ(it.value().size(), value_bytes);
  std::fill_n(it.value().data(), value_bytes, 'v');
  EXPECT_EQ(std::string_view(it.value().data() + value_bytes - 1, 3), "v\r\n");
  store.link(where);
  // memcached's `stats slabs` for this item: class 2 (its header), two of
  // class 39, one of class 1; 3 MB malloced
  slab_numbers numbers = s.ledger.numbers();
  EXPECT_EQ(numbers.classes[0].used_chunks, 1u);
  EXPECT_EQ(numbers.classes[1].used_chunks, 1u);
  EXPECT_EQ(numbers.classes[38].used_chunks, 2u);
  EXPECT_EQ(numbers.total_malloced, 3 * mib);
  EXPECT_EQ(store.pages_allocated(), 0u) << "the bytes are in the block";
  EXPECT_EQ(store.blocks_in_use(), 1u);
  EXPECT_EQ(store.classes()[38].requested_bytes, reported_size(1, value_bytes, 1, true));
  EXPECT_EQ(visit_order(store), std::vector<location>{where});
  std::vector<location> visited;
  EXPECT_EQ(store.visit_linked_from(0,
                                    [&](location at, const item&) {
                                      visited.push_back(at);
                                      return true;
                                    }),
            no_location);
  EXPECT_EQ(visited, std::vector<location>{where});

  store.unlink(where);
  numbers = s.ledger.numbers();
  for (const std::size_t c : {1, 2, 39}) EXPECT_EQ(numbers.classes[c - 1].used_chunks, 0u) << c;
  EXPECT_EQ(store.blocks_in_use(), 0u);
  // a stale index entry may still read the freed item for a few batches
  EXPECT_FALSE(store.at(where).linked);
  for (int batch = 0; batch < 3; ++batch) store.end_batch();
  const location again = allocate_ok(store, "k2", 600000);
  EXPECT_EQ(again, where) << "the block's number is reused once its memory is freed";
}

TEST(item_store_lru, link_puts_at_the_head_and_bump_moves_there_after_a_minute) {
  store_with_ledger s{config_with_pages(1)};
  item_store& store = s.store;
  constexpr std::size_t cold = segment_index(lru_segment::cold);
  const location a = allocate_ok(store, "a", 1);
  const location b = allocate_ok(store, "b", 1);
  const location c = allocate_ok(store, "c", 1);
  store.at(a).accessed_at = 100;
  store.at(b).accessed_at = 200;
  store.at(c).accessed_at = 300;
  store.link(a);
  store.link(b);
  store.link(c);
  EXPECT_EQ(visit_order(store), (std::vector<location>{c, b, a}));
  EXPECT_EQ(store.classes().front().oldest_access[cold], 100);
  EXPECT_EQ(store.classes().front().segment_items[cold], 3u);
  // memcached's ITEM_UPDATE_INTERVAL: a read moves an item whose last move
  // is more than 60 s old, and sets its time
  store.set_now(160);
  store.bump(a);
  EXPECT_EQ(visit_order(store), (std::vector<location>{c, b, a}));
  EXPECT_EQ(store.at(a).accessed_at, 100);
  EXPECT_TRUE(store.at(a).fetched);
  store.set_now(161);
  store.bump(a);
  EXPECT_EQ(visit_order(store), (std::vector<location>{a, c, b}));
  EXPECT_EQ(store.at(a).accessed_at, 161);
  EXPECT_EQ(store.at(a).lru_prev, no_location);
  EXPECT_EQ(store.at(a).lru_next, c);
  EXPECT_EQ(store.at(c).lru_prev, a);
  EXPECT_EQ(store.at(c).lru_next, b);
  EXPECT_EQ(store.at(b).lru_prev, c);
  EXPECT_EQ(store.at(b).lru_next, no_location);
  EXPECT_EQ(store.classes().front().oldest_access[cold], 200);
  store.set_now(261);
  store.update(b);  // an incr: the same rule
  EXPECT_EQ(visit_order(store), (std::vector<location>{b, a, c}));
  EXPECT_FALSE(store.at(b).fetched) << "only a read marks an item fetched";
  store.unlink(c);
  EXPECT_EQ(visit_order(store), (std::vector<location>{b, a}));
  EXPECT_FALSE(store.at(c).linked);
  store.unlink(b);
  store.unlink(a);
  EXPECT_TRUE(visit_order(store).empty());
  EXPECT_EQ(store.classes().front().oldest_access[cold], 0);
  EXPECT_EQ(store.classes().front().segment_items[cold], 0u);
}

TEST(item_store_lru, visit_class_walks_one_class_from_the_head_until_refused) {
  store_with_ledger s{config_with_pages(4)};
  item_store& store = s.store;
  const location a = allocate_ok(store, "a", 1);
  const location b = allocate_ok(store, "b", 1);
  const location large = allocate_ok(store, "large", 900);
  for (const location where : {a, b, large}) store.link(where);
  const std::size_t small_class = store.at(a).size_class;
  ASSERT_NE(store.at(large).size_class, small_class);
  std::vector<std::string_view> keys;
  const auto collect = [&](const item& it) {
    keys.push_back(it.key());
    return true;
  };
  store.visit_class(small_class, collect);
  EXPECT_EQ(keys, (std::vector<std::string_view>{"b", "a"}));
  keys.clear();
  store.visit_class(small_class, [&](const item& it) {
    keys.push_back(it.key());
    return false;
  });
  EXPECT_EQ(keys, (std::vector<std::string_view>{"b"}));
  keys.clear();
  store.visit_class(store.at(large).size_class, collect);
  EXPECT_EQ(keys, (std::vector<std::string_view>{"large"}));
  keys.clear();
  store.visit_class(0, collect);  // no class 0, nor one past the table
  store.visit_class(s.ledger.classes().largest() + 1, collect);
  EXPECT_TRUE(keys.empty());
}

TEST(item_store_lru, counts_linked_items_and_their_bytes) {
  store_with_ledger s{config_with_pages(4)};
  item_store& store = s.store;
  const location small = allocate_ok(store, "small", 10);
  const location large = allocate_ok(store, "large", 900, no_location, 3);
  EXPECT_EQ(store.linked_items(), 0u);
  EXPECT_EQ(store.bytes_used(), 0u);
  store.link(small);
  store.link(large);
  EXPECT_EQ(store.linked_items(), 2u);
  // sizes as memcached reports them: its 48-byte header, the CAS, the key
  // and its NUL, the flags unless 0, the value and its "\r\n"
  EXPECT_EQ(reported_size(5, 10, 0, true), 48u + 8 + 5 + 1 + 10 + 2);
  EXPECT_EQ(reported_size(5, 10, 3, true), 48u + 8 + 5 + 1 + 4 + 10 + 2);
  EXPECT_EQ(reported_size(5, 10, 0, false), 48u + 5 + 1 + 10 + 2);
  EXPECT_EQ(store.bytes_used(), reported_size(5, 10, 0, true) + reported_size(5, 900, 3, true));
  EXPECT_EQ(store.reported_size(store.at(small)), reported_size(5, 10, 0, true));
  std::size_t linked_per_class = 0, requested = 0;
  for (const class_stats& size_class : store.classes()) {
    linked_per_class += size_class.linked_items;
    requested += size_class.requested_bytes;
  }
  EXPECT_EQ(linked_per_class, 2u);
  EXPECT_EQ(requested, store.bytes_used());
  store.unlink(large);
  EXPECT_EQ(store.linked_items(), 1u);
  EXPECT_EQ(store.bytes_used(), reported_size(5, 10, 0, true));
}

TEST(item_store_eviction, evicts_the_least_recently_used_and_tells_the_owner_first) {
  store_with_ledger s{config_with_pages(1)};
  item_store& store = s.store;
  const std::vector<location> items = fill_first_class(store);
  ASSERT_GE(items.size(), 3u);
  store.bump(items[0]);  // items[1] is now the least recently used
  std::vector<std::pair<location, std::string>> evicted;
  store.on_removal([&](location where, const item& it, tail_removal why) {
    EXPECT_EQ(why, tail_removal::evicted);
    EXPECT_EQ(&it, &store.at(where));
    EXPECT_FALSE(it.linked);
    EXPECT_EQ(it.lru_prev, no_location);
    EXPECT_EQ(it.lru_next, no_location);
    evicted.emplace_back(where, std::string(it.key()));  // the old key is still in the chunk
  });
  const location fresh = allocate_ok(store, "fresh", 1);
  ASSERT_EQ(evicted.size(), 1u);
  EXPECT_EQ(evicted[0], std::make_pair(items[1], std::string("key1")));
  EXPECT_EQ(fresh, items[1]) << "the evicted chunk is reused";
  EXPECT_EQ(store.at(fresh).key(), "fresh");
  EXPECT_EQ(store.evictions(), 1u);
  EXPECT_EQ(store.classes().front().evictions, 1u);
  EXPECT_EQ(store.classes().front().direct_reclaims, 1u) << "one pass found no chunk";
  EXPECT_EQ(store.linked_items(), items.size() - 1);
  EXPECT_EQ(slabs_of(store, 1).used_chunks, items.size());
  EXPECT_EQ(store.pages_allocated(), 1u);

  store.link(fresh);
  allocate_ok(store, "next", 1);
  ASSERT_EQ(evicted.size(), 2u);
  EXPECT_EQ(evicted[1].second, "key2");
}

TEST(item_store_eviction, never_evicts_keep) {
  store_with_ledger s{config_with_pages(1)};
  item_store& store = s.store;
  const std::vector<location> items = fill_first_class(store);
  std::vector<location> evicted;
  store.on_removal([&](location where, const item&, tail_removal) { evicted.push_back(where); });
  allocate_ok(store, "copy", 1, items[0]);
  ASSERT_EQ(evicted.size(), 1u);
  EXPECT_EQ(evicted[0], items[1]) << "the tail is kept, so the next one goes";
  EXPECT_TRUE(store.at(items[0]).linked);
  EXPECT_EQ(store.at(items[0]).key(), "key0");
}

TEST(item_store_eviction, fails_when_keep_is_the_only_linked_item) {
  store_with_ledger s{config_with_pages(1)};
  item_store& store = s.store;
  const std::size_t chunks = s.ledger.classes().chunks_per_page(1);
  const location kept = allocate_ok(store, "kept", 1);
  store.link(kept);
  for (std::size_t i = 1; i < chunks; ++i) allocate_ok(store, "unlinked" + std::to_string(i), 1);
  EXPECT_EQ(allocate_error(store, "copy", 1, kept), allocation_error::out_of_memory);
  EXPECT_TRUE(store.at(kept).linked);
  EXPECT_EQ(store.evictions(), 0u);
  EXPECT_EQ(store.classes().front().outofmemory, 1u);
}

TEST(item_store_eviction, without_eviction_a_full_store_refuses_and_loses_nothing) {
  store_with_ledger s{config_with_pages(1, false)};
  item_store& store = s.store;
  const std::vector<location> items = fill_first_class(store);
  bool called = false;
  store.on_removal([&](location, const item&, tail_removal) { called = true; });
  EXPECT_EQ(allocate_error(store, "more", 1), allocation_error::out_of_memory);
  EXPECT_FALSE(called);
  EXPECT_EQ(store.evictions(), 0u);
  EXPECT_EQ(store.linked_items(), items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    EXPECT_EQ(store.at(items[i]).key(), "key" + std::to_string(i));
  }
  store.unlink(items[5]);
  EXPECT_EQ(allocate_ok(store, "more", 1), items[5]) << "a freed chunk is usable again";
}

TEST(item_store_eviction, a_class_without_a_page_gets_one_past_the_limit) {
  // memcached's do_slabs_newslab: a class's first page is granted even when
  // the limit is reached, so a full store can still take every size.
  store_with_ledger s{config_with_pages(1)};
  item_store& store = s.store;
  fill_first_class(store);
  const location large = allocate_ok(store, "large", 900);
  EXPECT_EQ(total_pages(store), 2u);
  EXPECT_EQ(store.pages_allocated(), 2u);
  EXPECT_EQ(store.evictions(), 0u);
  // its second page is refused: the class evicts instead
  const std::size_t size_class = store.at(large).size_class;
  for (std::size_t i = 0; i < s.ledger.classes().chunks_per_page(size_class); ++i) {
    const location where = allocate_ok(store, "large" + std::to_string(i), 900);
    store.link(where);
  }
  EXPECT_EQ(total_pages(store), 2u);
  EXPECT_EQ(store.evictions(), 1u);
  EXPECT_EQ(s.ledger.numbers().total_malloced, 2 * mib);
}

TEST(item_store_eviction, shards_sharing_a_ledger_never_fail_for_want_of_their_own_items) {
  // Two stores, one ledger full of the first's items: the second, with
  // none of its own to evict, takes a page past the limit rather than fail.
  store_config config = config_with_pages(1);
  slab_ledger ledger{config, 2};
  item_store first{ledger};
  item_store second{ledger};
  fill_first_class(first);
  const location where = allocate_ok(second, "second", 1);
  EXPECT_EQ(first.evictions(), 0u);
  EXPECT_EQ(ledger.numbers().classes[0].pages, 2u);
  second.link(where);
  // with an item of its own, it evicts that one as memcached would evict any
  const std::size_t per_page = ledger.classes().chunks_per_page(1);
  for (std::size_t i = 0; i + 1 < per_page; ++i)
    second.link(allocate_ok(second, "s" + std::to_string(i), 1));
  allocate_ok(second, "one more", 1);
  EXPECT_EQ(second.evictions(), 1u);
  EXPECT_EQ(ledger.numbers().classes[0].pages, 2u);
}

/// A dead check for the tests: items whose expiry time is 1 are dead.
bool expires_at_one(const item& it) {
  return it.expires_at == 1;
}

TEST(item_store_reclaim, dead_items_at_the_tail_are_reclaimed_on_every_allocation) {
  // memcached without its LRU maintainer pulls the class's LRU tail before
  // each allocation: the dead items there (up to 5) are reclaimed, up to
  // the first live one, whether or not memory is short.
  store_with_ledger s{config_with_pages(4)};
  item_store& store = s.store;
  std::vector<std::pair<std::string, tail_removal>> removed;
  store.on_removal([&](location, const item& it, tail_removal why) {
    removed.emplace_back(std::string(it.key()), why);
  });
  store.on_dead_check(expires_at_one);
  std::vector<location> items;
  for (int i = 0; i < 9; ++i) {
    items.push_back(allocate_ok(store, "k" + std::to_string(i), 8));
    store.link(items.back());
  }
  for (int i : {0, 1, 3}) store.at(items[i]).expires_at = 1;
  allocate_ok(store, "x", 8);
  using enum tail_removal;
  EXPECT_EQ(removed, (std::vector<std::pair<std::string, tail_removal>>{{"k0", reclaimed},
                                                                        {"k1", reclaimed}}))
      << "k2, live, ends the walk before k3";
  for (int i = 4; i < 9; ++i) store.at(items[i]).expires_at = 1;
  store.bump(items[2]);
  removed.clear();
  allocate_ok(store, "y", 8);
  EXPECT_EQ(removed.size(), 5u) << "five looked at, all dead";
  EXPECT_EQ(store.reclaimed(), 7u);
  EXPECT_EQ(store.evictions(), 0u);
  EXPECT_EQ(store.classes().front().reclaimed, 7u);
  EXPECT_EQ(store.classes().front().direct_reclaims, 0u) << "the ledger always had a chunk";
  EXPECT_EQ(store.linked_items(), 2u);
  store.reset_counts();
  EXPECT_EQ(store.reclaimed(), 0u);
  EXPECT_EQ(store.linked_items(), 2u) << "a reset drops counts, not items";
}

TEST(item_store_reclaim, dead_items_are_reclaimed_even_without_eviction) {
  store_with_ledger s{config_with_pages(1, false)};
  item_store& store = s.store;
  std::vector<location> removed;
  store.on_removal([&](location where, const item&, tail_removal why) {
    EXPECT_EQ(why, tail_removal::reclaimed);
    removed.push_back(where);
  });
  store.on_dead_check(expires_at_one);
  const std::size_t per_page = s.ledger.classes().chunks_per_page(1);
  std::vector<location> items;
  for (std::size_t i = 0; i < per_page; ++i) {
    items.push_back(allocate_ok(store, "k" + std::to_string(i), 8));
    store.link(items.back());
  }
  EXPECT_EQ(allocate_error(store, "x", 8), allocation_error::out_of_memory);
  store.at(items[1]).expires_at = 1;  // dead, but behind a live tail
  EXPECT_EQ(allocate_error(store, "x", 8), allocation_error::out_of_memory);
  store.at(items[0]).expires_at = 1;
  const location reused = allocate_ok(store, "x", 8);
  EXPECT_EQ(removed, (std::vector<location>{items[0], items[1]}));
  EXPECT_EQ(reused, items[1]) << "the last chunk freed is the first handed out";
  const class_stats first = store.classes().front();
  EXPECT_EQ(first.reclaimed, 2u);
  EXPECT_EQ(first.outofmemory, 2u);
  EXPECT_EQ(first.evictions, 0u);
}

TEST(item_store_memory, pages_pass_the_limit_only_as_first_pages_of_classes) {
  store_config config = config_with_pages(0);
  config.memory_limit = 3 * mib + mib / 2;
  store_with_ledger s{config};
  item_store& store = s.store;
  const slab_classes& classes = s.ledger.classes();
  std::size_t used_classes = 0;
  for (std::size_t c = 1; c < classes.largest(); ++c) {
    if (classes.chunk_size(c) > store.item_size_max()) break;
    // every class gets its first page, whatever the limit
    EXPECT_EQ(allocate_error(store, "k", value_filling(classes.chunk_size(c), "k")),
              allocation_error::none)
        << "class " << c;
    ++used_classes;
  }
  EXPECT_GT(used_classes, 4u);
  EXPECT_EQ(total_pages(store), used_classes);
  EXPECT_EQ(s.ledger.numbers().total_malloced, used_classes * mib);
  // a class that has a page gets no second one past the limit (and its
  // unlinked items cannot be evicted)
  const std::size_t per_page = classes.chunks_per_page(1);
  for (std::size_t i = 0; i + 1 < per_page; ++i) allocate_ok(store, "s" + std::to_string(i), 8);
  EXPECT_EQ(allocate_error(store, "s", 8), allocation_error::out_of_memory);
  EXPECT_EQ(total_pages(store), used_classes);
}

TEST(item_store_memory, a_limit_below_one_page_still_gets_one) {
  store_config config = config_with_pages(0);
  config.memory_limit = 1;
  store_with_ledger s{config};
  item_store& store = s.store;
  const std::size_t per_page = s.ledger.classes().chunks_per_page(1);
  for (std::size_t i = 0; i < per_page; ++i) allocate_ok(store, "k" + std::to_string(i), 1);
  EXPECT_EQ(allocate_error(store, "k", 1), allocation_error::out_of_memory);
  EXPECT_EQ(store.pages_allocated(), 1u);
}

TEST(item_store_memory, a_store_filled_by_small_items_stays_within_the_limit) {
  store_with_ledger s{config_with_pages(3)};
  item_store& store = s.store;
  const std::size_t per_page = s.ledger.classes().chunks_per_page(1);
  std::set<location> seen;
  for (std::size_t i = 0; i < 4 * per_page; ++i) {
    const location where = allocate_ok(store, "k" + std::to_string(i), 8);
    ASSERT_NE(where, no_location);
    seen.insert(where);
    store.link(where);
  }
  EXPECT_EQ(store.pages_allocated(), 3u);
  EXPECT_EQ(seen.size(), 3 * per_page) << "every chunk of the 3 pages, then evicted ones reused";
  EXPECT_EQ(store.evictions(), per_page);
  EXPECT_EQ(store.linked_items(), 3 * per_page);
}

#ifndef NDEBUG
TEST(item_store_misuse, is_caught_by_assertions_in_debug_builds) {
  store_with_ledger s{config_with_pages(1)};
  item_store& store = s.store;
  const location where = allocate_ok(store, "k", 1);
  EXPECT_DEATH(store.unlink(where), "not linked");
  EXPECT_DEATH(store.bump(where), "not linked");
  store.link(where);
  EXPECT_DEATH(store.link(where), "already linked");
  EXPECT_DEATH(store.release(where), "unlink");
  store.unlink(where);
  EXPECT_DEATH(store.release(where), "already free");
}
#endif

// The model: per class, an LRU of locations (front: the most recent) and the
// chunks in use; per linked item, its key and the tag its value was filled
// from. Each allocation predicts whether it takes a free chunk, a new page,
// evicts (and which item) or fails.
class store_model {
 public:
  store_model(item_store& store, std::size_t max_pages, bool evict)
      : store_(store),
        classes_(store.ledger().classes()),
        max_pages_(max_pages),
        evict_(evict),
        lru_(classes_.largest()),
        used_(classes_.largest()),
        pages_(classes_.largest()) {
    store_.on_removal([this](location where, const item& it, tail_removal why) {
      EXPECT_EQ(why, tail_removal::evicted) << "no item is dead here";
      EXPECT_FALSE(it.linked);
      EXPECT_EQ(it.key(), linked_.at(where).key) << "the chunk is still the evicted item's";
      evicted_.push_back(where);
    });
  }

  void allocate(seeded_random& random, std::size_t class_index) {
    const std::string key = "key" + std::to_string(next_tag_) + std::string(random.below(40), 'x');
    // a size as memcached counts it, in the class
    const std::size_t smallest = reported_size(key.size(), 0, 0, true) - 1;
    const std::size_t above =
        class_index == 0 ? smallest : std::max(smallest, classes_.chunk_size(class_index));
    const std::size_t total =
        above + 1 + random.below(classes_.chunk_size(class_index + 1) - above);
    const std::size_t value_bytes = value_filling(total, key);
    const location keep =
        !order_.empty() && random.below(3) == 0 ? order_[random.below(order_.size())] : no_location;

    const std::optional<location> victim = predict(class_index, keep);
    allocation_error error = allocation_error::none;
    const location where = store_.allocate(key, value_bytes, 0, error, keep);
    if (!victim) {
      ASSERT_EQ(error, allocation_error::out_of_memory);
      ASSERT_TRUE(evicted_.empty());
      return;
    }
    ASSERT_EQ(error, allocation_error::none);
    ASSERT_NE(where, no_location);
    ASSERT_EQ(store_.at(where).size_class, class_index + 1);
    if (*victim != no_location) {
      ASSERT_EQ(evicted_, std::vector<location>{*victim});
      ASSERT_EQ(where, *victim);
      forget(*victim);
      ++evictions_;
    } else {
      ASSERT_TRUE(evicted_.empty());
      ASSERT_FALSE(linked_.contains(where)) << "a linked item's chunk was handed out";
      ++used_[class_index];
    }
    evicted_.clear();

    const std::uint64_t tag = next_tag_++;
    fill(store_.at(where), tag);
    if (random.below(10) == 0) {
      store_.release(where);
      --used_[class_index];
      return;
    }
    store_.link(where);
    lru_[class_index].push_front(where);
    linked_.emplace(where,
                    linked_item{key, tag, class_index, lru_[class_index].begin(), order_.size()});
    order_.push_back(where);
  }

  void unlink(seeded_random& random) {
    if (order_.empty()) return;
    const location where = order_[random.below(order_.size())];
    --used_[linked_.at(where).class_index];
    forget(where);
    store_.unlink(where);
  }

  void bump(seeded_random& random) {
    if (order_.empty()) return;
    const location where = order_[random.below(order_.size())];
    linked_item& entry = linked_.at(where);
    std::list<location>& lru = lru_[entry.class_index];
    lru.splice(lru.begin(), lru, entry.in_lru);
    store_.set_now(store_.now() + 61);  // a read moves an item whose last move is a minute old
    store_.bump(where);
  }

  /// Everything the store reports agrees with the model.
  void check() const {
    // Visited once each, class by class in LRU order: exactly the model's linked items.
    std::vector<std::vector<location>> order(classes_.largest());
    store_.for_each_linked(
        [&](location where, const item& it) { order[it.size_class - 1].push_back(where); });
    std::size_t bytes = 0;
    std::vector<std::size_t> requested(classes_.largest());
    for (const auto& [where, entry] : linked_) {
      const item& it = store_.at(where);
      ASSERT_TRUE(it.linked);
      ASSERT_EQ(it.key(), entry.key);
      expect_filled(it, entry.tag);
      bytes += reported_size(it.key_bytes, it.value_bytes, 0, true);
      requested[it.size_class - 1] += reported_size(it.key_bytes, it.value_bytes, 0, true);
    }
    ASSERT_EQ(store_.linked_items(), linked_.size());
    ASSERT_EQ(store_.bytes_used(), bytes);
    ASSERT_EQ(store_.evictions(), evictions_);
    ASSERT_EQ(store_.pages_allocated(), total_pages_);
    const std::vector<class_stats> stats = store_.classes();
    const slab_numbers slabs = store_.ledger().numbers();
    for (std::size_t c = 0; c < classes_.largest(); ++c) {
      SCOPED_TRACE("class " + std::to_string(c + 1));
      ASSERT_EQ(order[c], std::vector<location>(lru_[c].begin(), lru_[c].end()));
      ASSERT_EQ(stats[c].linked_items, lru_[c].size());
      ASSERT_EQ(stats[c].requested_bytes, requested[c]);
      ASSERT_EQ(slabs.classes[c].used_chunks, used_[c]);
      ASSERT_EQ(slabs.classes[c].pages, pages_[c]);
    }
  }

  std::uint64_t evictions() const { return evictions_; }

 private:
  struct linked_item {
    std::string key;
    std::uint64_t tag;
    std::size_t class_index;
    std::list<location>::iterator in_lru;
    std::size_t in_order;  ///< index in order_
  };

  /// What allocate should do: fail (nullopt), take a free chunk or a new page
  /// (no_location), or evict the item returned.
  std::optional<location> predict(std::size_t class_index, location keep) {
    if (used_[class_index] < pages_[class_index] * classes_.chunks_per_page(class_index + 1)) {
      return no_location;
    }
    if (total_pages_ < max_pages_ || pages_[class_index] == 0) {
      ++pages_[class_index];
      ++total_pages_;
      return no_location;
    }
    if (!evict_) return std::nullopt;
    auto tail = lru_[class_index].rbegin();
    if (tail != lru_[class_index].rend() && *tail == keep) ++tail;
    if (tail == lru_[class_index].rend()) return std::nullopt;
    return *tail;
  }

  static char fill_byte(std::uint64_t tag, std::size_t i) {
    return static_cast<char>((tag * 31 + i * 7) & 0xFF);
  }
  static void fill(item& it, std::uint64_t tag) {
    const std::span<char> value = it.value();
    for (std::size_t i = 0; i < value.size(); ++i) value[i] = fill_byte(tag, i);
  }
  static void expect_filled(const item& it, std::uint64_t tag) {
    const std::span<const char> value = it.value();
    std::size_t i = 0;
    while (i < value.size() && value[i] == fill_byte(tag, i)) ++i;
    ASSERT_EQ(i, value.size()) << "byte " << i << " of " << it.key() << "'s value was overwritten";
    ASSERT_EQ(std::string_view(value.data() + value.size(), terminator), "\r\n");
  }

  void forget(location where) {
    const linked_item& entry = linked_.at(where);
    lru_[entry.class_index].erase(entry.in_lru);
    const location moved = order_.back();
    order_[entry.in_order] = moved;
    linked_.at(moved).in_order = entry.in_order;
    order_.pop_back();
    linked_.erase(where);
  }

  item_store& store_;
  const slab_classes& classes_;
  std::size_t max_pages_;
  bool evict_;
  std::vector<std::list<location>> lru_;
  std::vector<std::size_t> used_;
  std::vector<std::size_t> pages_;
  std::size_t total_pages_ = 0;
  std::unordered_map<location, linked_item> linked_;
  std::vector<location> order_;  ///< the linked items, to draw from
  std::vector<location> evicted_;
  std::uint64_t evictions_ = 0;
  std::uint64_t next_tag_ = 0;
};

void run_against_model(bool evict) {
  seeded_random random;
  store_config config;
  config.item_size_max = 64 * 1024;
  config.memory_limit = 8 * mib;
  config.evict = evict;
  config.lru.maintainer = false;
  config.lru.segmented = false;
  store_with_ledger s{config};
  item_store& store = s.store;
  // Classes of at most 256 chunks per page, so that a few thousand items fill them.
  std::vector<std::size_t> drawn;
  const slab_classes& classes = s.ledger.classes();
  for (std::size_t c = 1; c < classes.largest(); ++c) {
    if (classes.chunks_per_page(c) <= 256 && classes.chunk_size(c) <= config.item_size_max &&
        drawn.size() < 6)
      drawn.push_back(c - 1);
  }
  ASSERT_GE(drawn.size(), 4u);
  store_model model(store, 8, evict);
  const std::size_t operations = scaled(40000);
  for (std::size_t step = 0; step < operations; ++step) {
    const std::uint64_t choice = random.below(10);
    if (choice < 5) {
      model.allocate(random, drawn[random.below(drawn.size())]);
    } else if (choice < 7) {
      model.unlink(random);
    } else {
      model.bump(random);
    }
    if (::testing::Test::HasFatalFailure()) return;
    if (step % 1000 == 0) {
      model.check();
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  model.check();
  if (evict) {
    EXPECT_GT(model.evictions(), 0u) << "the test should reach eviction";
  }
}

TEST(item_store_model, random_operations_with_eviction_match_the_model) {
  run_against_model(true);
}

TEST(item_store_model, random_operations_without_eviction_match_the_model) {
  run_against_model(false);
}

}  // namespace
}  // namespace gpuhash::server::store
