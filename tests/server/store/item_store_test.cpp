// Tests of the server's item store: the class table, allocation per class,
// the key/value layout, LRU order, eviction (order, the handler, `keep`,
// -M), the memory limit, and a randomized differential test against a model
// made of std::list and std::unordered_map.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <list>
#include <optional>
#include <set>
#include <stdexcept>
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
constexpr std::size_t header = sizeof(item);
constexpr std::size_t terminator = 2;

std::size_t round_up(std::size_t n, std::size_t multiple) {
  return (n + multiple - 1) / multiple * multiple;
}

/// Small items, 1 MB pages, room for `pages` of them.
store_config config_with_pages(std::size_t pages, bool evict = true) {
  store_config config;
  config.item_size_max = 1024;
  config.memory_limit = pages * mib;
  config.evict = evict;
  return config;
}

/// The value length that makes an item with `key` need exactly `chunk_size` bytes.
std::size_t value_filling(std::size_t chunk_size, std::string_view key) {
  return chunk_size - header - key.size() - terminator;
}

location allocate_ok(item_store& store, std::string_view key, std::size_t value_bytes,
                     location keep = no_location) {
  allocation_error error = allocation_error::none;
  const location where = store.allocate(key, value_bytes, error, keep);
  EXPECT_EQ(error, allocation_error::none) << "allocating " << key;
  EXPECT_NE(where, no_location);
  return where;
}

allocation_error allocate_error(item_store& store, std::string_view key, std::size_t value_bytes,
                                location keep = no_location) {
  allocation_error error = allocation_error::none;
  const location where = store.allocate(key, value_bytes, error, keep);
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

/// Fills class 1 (one page) with linked items "key0", "key1", ...; the last is the most recent.
std::vector<location> fill_first_class(item_store& store) {
  std::vector<location> locations;
  const std::size_t chunks = store.classes().front().chunks_per_page;
  for (std::size_t i = 0; i < chunks; ++i) {
    locations.push_back(allocate_ok(store, "key" + std::to_string(i), 1));
    store.link(locations.back());
  }
  return locations;
}

TEST(item_store_classes, default_table_grows_by_the_factor_up_to_a_whole_page) {
  const item_store store{store_config{}};
  const std::vector<class_stats> classes = store.classes();
  ASSERT_GE(classes.size(), 2u);
  EXPECT_LE(classes.size(), 63u) << "memcached's class numbers end at 63";
  EXPECT_GE(store.page_size(), mib);
  EXPECT_EQ(store.page_size() % 4096, 0u);
  EXPECT_GE(store.page_size(), header + store.item_size_max() + terminator);
  EXPECT_EQ(classes.front().chunk_size, round_up(header + 48, 8));
  for (std::size_t i = 1; i + 1 < classes.size(); ++i) {
    const double grown = std::ceil(static_cast<double>(classes[i - 1].chunk_size) * 1.25);
    EXPECT_EQ(classes[i].chunk_size, round_up(static_cast<std::size_t>(grown), 8)) << "class " << i;
  }
  for (const class_stats& size_class : classes) {
    EXPECT_EQ(size_class.chunk_size % 8, 0u);
    EXPECT_EQ(size_class.chunks_per_page, store.page_size() / size_class.chunk_size);
    EXPECT_EQ(size_class.pages, 0u) << "pages are taken lazily";
  }
  EXPECT_EQ(classes.back().chunk_size, store.page_size());
  EXPECT_EQ(classes.back().chunks_per_page, 1u);
  // The class after the last regular one was left out: its own successor would outgrow a page.
  const double after_last_regular =
      std::ceil(static_cast<double>(classes[classes.size() - 2].chunk_size) * 1.25);
  EXPECT_GT(static_cast<double>(round_up(static_cast<std::size_t>(after_last_regular), 8)) * 1.25,
            static_cast<double>(store.page_size()));
}

TEST(item_store_classes, follows_the_factor_and_the_smallest_chunk) {
  store_config config;
  config.growth_factor = 2.0;
  config.chunk_size_min = 100;
  config.item_size_max = 1024;
  const item_store store{config};
  EXPECT_EQ(store.page_size(), mib);
  const std::vector<class_stats> classes = store.classes();
  std::size_t expected = round_up(header + 100, 8);
  for (std::size_t i = 0; i + 1 < classes.size(); ++i, expected *= 2) {
    EXPECT_EQ(classes[i].chunk_size, expected) << "class " << i + 1;
  }
  EXPECT_GT(expected, mib / 2) << "the table ends where doubling leaves a page";
  EXPECT_EQ(classes.back().chunk_size, mib);
}

TEST(item_store_classes, a_large_item_size_max_makes_pages_larger) {
  store_config config;
  config.item_size_max = 3 * mib;
  config.memory_limit = 64 * mib;
  item_store store{config};
  EXPECT_EQ(store.page_size(), round_up(header + 3 * mib + terminator, 4096));
  const location where = allocate_ok(store, "big", 3 * mib - 3);
  EXPECT_EQ(store.at(where).size_class, store.classes().size());
}

TEST(item_store_classes, a_factor_close_to_one_stops_at_63_classes) {
  store_config config;
  config.growth_factor = 1.01;
  const item_store store{config};
  EXPECT_EQ(store.classes().size(), 63u);
  EXPECT_EQ(store.classes().back().chunk_size, store.page_size());
}

TEST(item_store_classes, rejects_settings_that_make_no_table) {
  store_config config;
  config.growth_factor = 1.0;
  EXPECT_THROW(item_store{config}, std::invalid_argument);
  config.growth_factor = 1.25;
  config.item_size_max = 0;
  EXPECT_THROW(item_store{config}, std::invalid_argument);
  config.item_size_max = (std::size_t{1} << 30) + 1;
  EXPECT_THROW(item_store{config}, std::invalid_argument);
}

TEST(item_store_allocate, picks_the_smallest_class_that_fits) {
  store_config config;
  config.memory_limit = 256 * mib;
  item_store store{config};
  const std::vector<class_stats> classes = store.classes();
  const std::string key = "k";
  for (std::size_t i = 0; i < classes.size(); ++i) {
    SCOPED_TRACE("class " + std::to_string(i + 1));
    const std::size_t exact =
        std::min(value_filling(classes[i].chunk_size, key), store.item_size_max() - key.size());
    EXPECT_EQ(store.at(allocate_ok(store, key, exact)).size_class, i + 1);
    if (i + 1 < classes.size()) {
      EXPECT_EQ(store.at(allocate_ok(store, key, exact + 1)).size_class, i + 2);
    }
  }
  const std::vector<class_stats> after = store.classes();
  EXPECT_EQ(after.front().used_chunks, 1u);
  for (std::size_t i = 1; i < after.size(); ++i) {
    EXPECT_EQ(after[i].used_chunks, 2u) << "class " << i + 1;
    EXPECT_EQ(after[i].pages * after[i].chunks_per_page,
              after[i].used_chunks + after[i].free_chunks);
  }
}

TEST(item_store_allocate, copies_the_key_and_ends_the_value_with_crlf) {
  item_store store{config_with_pages(4)};
  const location where = allocate_ok(store, "answer", 5);
  item& it = store.at(where);
  EXPECT_EQ(it.key(), "answer");
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
  item_store store{config_with_pages(1)};
  const location first = allocate_ok(store, "first", 3);
  item& it = store.at(first);
  it.client_flags = 7;
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

TEST(item_store_allocate, refuses_items_beyond_item_size_max) {
  store_config config;
  config.item_size_max = 4096;
  config.memory_limit = 8 * mib;
  item_store store{config};
  const location largest = allocate_ok(store, "k", 4095);
  EXPECT_GE(store.classes()[store.at(largest).size_class - 1].chunk_size,
            header + 4096 + terminator);
  EXPECT_EQ(allocate_error(store, "k", 4096), allocation_error::too_large);
  EXPECT_EQ(allocate_error(store, "", 4097), allocation_error::too_large);
  EXPECT_EQ(allocate_error(store, std::string(256, 'k'), 0), allocation_error::too_large);
  EXPECT_EQ(allocate_error(store, "k", std::size_t{1} << 40), allocation_error::too_large);
  EXPECT_EQ(store.at(allocate_ok(store, std::string(255, 'k'), 0)).key().size(), 255u);
}

TEST(item_store_allocate, release_gives_the_chunk_back) {
  item_store store{config_with_pages(1)};
  const location where = allocate_ok(store, "abandoned", 10);
  EXPECT_EQ(store.classes().front().used_chunks, 1u);
  store.release(where);
  EXPECT_EQ(store.classes().front().used_chunks, 0u);
  EXPECT_EQ(store.classes().front().free_chunks, store.classes().front().chunks_per_page);
  EXPECT_EQ(allocate_ok(store, "reused", 10), where);
}

TEST(item_store_lru, link_puts_at_the_head_and_bump_moves_there) {
  item_store store{config_with_pages(1)};
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
  EXPECT_EQ(store.classes().front().oldest_access, 100);
  store.bump(a);
  EXPECT_EQ(visit_order(store), (std::vector<location>{a, c, b}));
  EXPECT_EQ(store.at(a).lru_prev, no_location);
  EXPECT_EQ(store.at(a).lru_next, c);
  EXPECT_EQ(store.at(c).lru_prev, a);
  EXPECT_EQ(store.at(c).lru_next, b);
  EXPECT_EQ(store.at(b).lru_prev, c);
  EXPECT_EQ(store.at(b).lru_next, no_location);
  EXPECT_EQ(store.classes().front().oldest_access, 200);
  store.bump(a);
  EXPECT_EQ(visit_order(store), (std::vector<location>{a, c, b}));
  store.unlink(c);
  EXPECT_EQ(visit_order(store), (std::vector<location>{a, b}));
  EXPECT_FALSE(store.at(c).linked);
  store.unlink(b);
  store.unlink(a);
  EXPECT_TRUE(visit_order(store).empty());
  EXPECT_EQ(store.classes().front().oldest_access, 0);
}

TEST(item_store_lru, visit_class_walks_one_class_from_the_head_until_refused) {
  item_store store{config_with_pages(4)};
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
  store.visit_class(store.classes().size() + 1, collect);
  EXPECT_TRUE(keys.empty());
}

TEST(item_store_lru, counts_linked_items_and_their_bytes) {
  item_store store{config_with_pages(4)};
  const location small = allocate_ok(store, "small", 10);
  const location large = allocate_ok(store, "large", 900);
  EXPECT_EQ(store.linked_items(), 0u);
  EXPECT_EQ(store.bytes_used(), 0u);
  store.link(small);
  store.link(large);
  EXPECT_EQ(store.linked_items(), 2u);
  // sizes as memcached reports them: its 48-byte header, the CAS, the key
  // and its NUL, the value and its "\r\n"
  EXPECT_EQ(reported_size(5, 10, true), 48u + 8 + 5 + 1 + 10 + 2);
  EXPECT_EQ(reported_size(5, 10, false), 48u + 5 + 1 + 10 + 2);
  EXPECT_EQ(store.bytes_used(), reported_size(5, 10, true) + reported_size(5, 900, true));
  EXPECT_EQ(store.reported_size(store.at(small)), reported_size(5, 10, true));
  std::size_t linked_per_class = 0, requested = 0;
  for (const class_stats& size_class : store.classes()) {
    linked_per_class += size_class.linked_items;
    requested += size_class.requested_bytes;
  }
  EXPECT_EQ(linked_per_class, 2u);
  EXPECT_EQ(requested, store.bytes_used());
  store.unlink(large);
  EXPECT_EQ(store.linked_items(), 1u);
  EXPECT_EQ(store.bytes_used(), reported_size(5, 10, true));
}

TEST(item_store_eviction, evicts_the_least_recently_used_and_tells_the_owner_first) {
  item_store store{config_with_pages(1)};
  const std::vector<location> items = fill_first_class(store);
  ASSERT_GE(items.size(), 3u);
  store.bump(items[0]);  // items[1] is now the least recently used
  std::vector<std::pair<location, std::string>> evicted;
  store.on_eviction([&](location where, const item& it) {
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
  EXPECT_EQ(store.linked_items(), items.size() - 1);
  EXPECT_EQ(store.classes().front().used_chunks, items.size());
  EXPECT_EQ(store.pages_allocated(), 1u);

  store.link(fresh);
  allocate_ok(store, "next", 1);
  ASSERT_EQ(evicted.size(), 2u);
  EXPECT_EQ(evicted[1].second, "key2");
}

TEST(item_store_eviction, never_evicts_keep) {
  item_store store{config_with_pages(1)};
  const std::vector<location> items = fill_first_class(store);
  std::vector<location> evicted;
  store.on_eviction([&](location where, const item&) { evicted.push_back(where); });
  allocate_ok(store, "copy", 1, items[0]);
  ASSERT_EQ(evicted.size(), 1u);
  EXPECT_EQ(evicted[0], items[1]) << "the tail is kept, so the next one goes";
  EXPECT_TRUE(store.at(items[0]).linked);
  EXPECT_EQ(store.at(items[0]).key(), "key0");
}

TEST(item_store_eviction, fails_when_keep_is_the_only_linked_item) {
  item_store store{config_with_pages(1)};
  const std::size_t chunks = store.classes().front().chunks_per_page;
  const location kept = allocate_ok(store, "kept", 1);
  store.link(kept);
  for (std::size_t i = 1; i < chunks; ++i) allocate_ok(store, "unlinked" + std::to_string(i), 1);
  EXPECT_EQ(allocate_error(store, "copy", 1, kept), allocation_error::out_of_memory);
  EXPECT_TRUE(store.at(kept).linked);
  EXPECT_EQ(store.evictions(), 0u);
}

TEST(item_store_eviction, without_eviction_a_full_store_refuses_and_loses_nothing) {
  item_store store{config_with_pages(1, false)};
  const std::vector<location> items = fill_first_class(store);
  bool called = false;
  store.on_eviction([&](location, const item&) { called = true; });
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
  item_store store{config_with_pages(1)};
  fill_first_class(store);
  allocate_ok(store, "large", 900);
  EXPECT_EQ(store.pages_allocated(), 2u);
  EXPECT_EQ(store.evictions(), 0u);
  // its second page is refused: the class evicts instead
  const location probe = allocate_ok(store, "probe", 900);
  const std::size_t per_page = store.classes()[store.at(probe).size_class - 1u].chunks_per_page;
  store.release(probe);
  for (std::size_t i = 0; i < per_page; ++i) {
    const location where = allocate_ok(store, "large" + std::to_string(i), 900);
    store.link(where);
  }
  EXPECT_EQ(store.pages_allocated(), 2u);
  EXPECT_GT(store.evictions(), 0u);
}

TEST(item_store_eviction, dead_items_are_reclaimed_even_without_eviction) {
  store_config config = config_with_pages(1);
  config.evict = false;
  item_store store{config};
  std::vector<location> evicted;
  store.on_eviction([&](location where, const item&) { evicted.push_back(where); });
  store.on_dead_check([](const item& it) { return it.client_flags == 7; });
  const std::size_t per_page = store.classes().front().chunks_per_page;
  std::vector<location> items;
  for (std::size_t i = 0; i < per_page; ++i) {
    items.push_back(allocate_ok(store, "k" + std::to_string(i), 8));
    store.link(items.back());
  }
  EXPECT_EQ(allocate_error(store, "x", 8), allocation_error::out_of_memory);
  store.at(items[1]).client_flags = 7;  // dead, and near the LRU tail
  const location reused = allocate_ok(store, "x", 8);
  EXPECT_EQ(reused, items[1]);
  EXPECT_EQ(evicted, std::vector<location>{items[1]});
  EXPECT_EQ(store.reclaimed(), 1u);
  EXPECT_EQ(store.evictions(), 0u);
  // counted in the item's class, with the allocation that found nothing
  const class_stats first = store.classes().front();
  EXPECT_EQ(first.reclaimed, 1u);
  EXPECT_EQ(first.outofmemory, 1u);
  EXPECT_EQ(first.evictions, 0u);
  store.reset_counts();
  EXPECT_EQ(store.reclaimed(), 0u);
  EXPECT_EQ(store.classes().front().outofmemory, 0u);
  EXPECT_EQ(store.linked_items(), per_page - 1) << "a reset drops counts, not items";
}

TEST(item_store_classes, class_for_names_the_class_allocate_uses) {
  item_store store{config_with_pages(4)};
  for (const std::size_t value : {0, 1, 40, 100, 500, 1000}) {
    const location where = allocate_ok(store, "key", value);
    EXPECT_EQ(store.class_for(3, value), store.at(where).size_class) << value;
    store.release(where);
  }
  EXPECT_EQ(store.class_for(3, store.item_size_max()), 0u) << "too large for any class";
  EXPECT_EQ(store.class_for(256, 1), 0u) << "a key longer than 255 bytes";
}

TEST(item_store_memory, pages_pass_the_limit_only_as_first_pages_of_classes) {
  store_config config = config_with_pages(0);
  config.memory_limit = 3 * mib + mib / 2;
  item_store store{config};
  const std::vector<class_stats> classes = store.classes();
  std::size_t used_classes = 0;
  for (std::size_t i = 0; i + 1 < classes.size(); ++i) {
    const std::size_t value = value_filling(classes[i].chunk_size, "k");
    if (value > store.item_size_max() - 1) break;
    // every class gets its first page, whatever the limit
    EXPECT_EQ(allocate_error(store, "k", value), allocation_error::none) << "class " << i + 1;
    ++used_classes;
  }
  EXPECT_EQ(store.pages_allocated(), used_classes);
  // a class that has a page gets no second one past the limit (and its
  // unlinked items cannot be evicted)
  const std::size_t per_page = classes.front().chunks_per_page;
  for (std::size_t i = 0; i + 1 < per_page; ++i) allocate_ok(store, "s" + std::to_string(i), 8);
  EXPECT_EQ(allocate_error(store, "s", 8), allocation_error::out_of_memory);
  EXPECT_EQ(store.pages_allocated(), used_classes);
}

TEST(item_store_memory, a_limit_below_one_page_still_gets_one) {
  store_config config = config_with_pages(0);
  config.memory_limit = 1;
  item_store store{config};
  const std::size_t per_page = store.classes().front().chunks_per_page;
  for (std::size_t i = 0; i < per_page; ++i) allocate_ok(store, "k" + std::to_string(i), 1);
  EXPECT_EQ(allocate_error(store, "k", 1), allocation_error::out_of_memory);
  EXPECT_EQ(store.pages_allocated(), 1u);
}

TEST(item_store_memory, a_store_filled_by_small_items_stays_within_the_limit) {
  item_store store{config_with_pages(3)};
  const std::size_t per_page = store.classes().front().chunks_per_page;
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
  item_store store{config_with_pages(1)};
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
        classes_(store.classes()),
        max_pages_(max_pages),
        evict_(evict),
        lru_(classes_.size()),
        used_(classes_.size()),
        pages_(classes_.size()) {
    store_.on_eviction([this](location where, const item& it) {
      EXPECT_FALSE(it.linked);
      EXPECT_EQ(it.key(), linked_.at(where).key) << "the chunk is still the evicted item's";
      evicted_.push_back(where);
    });
  }

  void allocate(seeded_random& random, std::size_t class_index) {
    const std::string key = "key" + std::to_string(next_tag_) + std::string(random.below(40), 'x');
    const std::size_t smallest = class_index == 0 ? header : classes_[class_index - 1].chunk_size;
    const std::size_t needed =
        smallest + 1 + random.below(classes_[class_index].chunk_size - smallest);
    const std::size_t value_bytes = needed - header - key.size() - terminator;
    const location keep =
        !order_.empty() && random.below(3) == 0 ? order_[random.below(order_.size())] : no_location;

    const std::optional<location> victim = predict(class_index, keep);
    allocation_error error = allocation_error::none;
    const location where = store_.allocate(key, value_bytes, error, keep);
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
    store_.bump(where);
  }

  /// Everything the store reports agrees with the model.
  void check() const {
    // Visited once each, class by class in LRU order: exactly the model's linked items.
    std::vector<std::vector<location>> order(classes_.size());
    store_.for_each_linked(
        [&](location where, const item& it) { order[it.size_class - 1].push_back(where); });
    std::size_t bytes = 0;
    std::vector<std::size_t> requested(classes_.size());
    for (const auto& [where, entry] : linked_) {
      const item& it = store_.at(where);
      ASSERT_TRUE(it.linked);
      ASSERT_EQ(it.key(), entry.key);
      expect_filled(it, entry.tag);
      bytes += reported_size(it.key_bytes, it.value_bytes, true);
      requested[it.size_class - 1] += reported_size(it.key_bytes, it.value_bytes, true);
    }
    ASSERT_EQ(store_.linked_items(), linked_.size());
    ASSERT_EQ(store_.bytes_used(), bytes);
    ASSERT_EQ(store_.evictions(), evictions_);
    ASSERT_EQ(store_.pages_allocated(), total_pages_);
    const std::vector<class_stats> stats = store_.classes();
    for (std::size_t c = 0; c < classes_.size(); ++c) {
      SCOPED_TRACE("class " + std::to_string(c + 1));
      ASSERT_EQ(order[c], std::vector<location>(lru_[c].begin(), lru_[c].end()));
      ASSERT_EQ(stats[c].linked_items, lru_[c].size());
      ASSERT_EQ(stats[c].requested_bytes, requested[c]);
      ASSERT_EQ(stats[c].used_chunks, used_[c]);
      ASSERT_EQ(stats[c].pages, pages_[c]);
      ASSERT_EQ(stats[c].free_chunks, pages_[c] * stats[c].chunks_per_page - used_[c]);
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
    if (used_[class_index] < pages_[class_index] * classes_[class_index].chunks_per_page) {
      return no_location;
    }
    if (total_pages_ < max_pages_) {
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
  std::vector<class_stats> classes_;
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
  item_store store{config};
  // Classes of at most 256 chunks per page, so that a few thousand items fill them.
  std::vector<std::size_t> drawn;
  const std::vector<class_stats> classes = store.classes();
  for (std::size_t c = 0; c < classes.size(); ++c) {
    if (classes[c].chunks_per_page <= 256 &&
        classes[c].chunk_size <= header + config.item_size_max + terminator && drawn.size() < 6)
      drawn.push_back(c);
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
