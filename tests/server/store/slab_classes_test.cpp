// Tests of memcached's slab classes and of the slab ledger: the class tables
// memcached 1.6.18 prints at -vv for the same settings, the class of an item
// by its size, the chunks of a chunked item (as memcached's `stats slabs`
// shows them), and the ledger's pages, chunks, limit and total_malloced.

#include <gtest/gtest.h>

#include <cstddef>
#include <stdexcept>
#include <thread>
#include <vector>

#include "store/slab_classes.hpp"
#include "store/slab_ledger.hpp"

namespace gpuhash::server::store {
namespace {

constexpr std::size_t mib = std::size_t{1} << 20;

/// The table's chunk sizes, class 1 first.
std::vector<std::size_t> chunk_sizes(const slab_classes& classes) {
  std::vector<std::size_t> sizes;
  for (std::size_t c = 1; c <= classes.largest(); ++c) sizes.push_back(classes.chunk_size(c));
  return sizes;
}

TEST(slab_classes, default_table_is_memcacheds) {
  // `memcached -vv` 1.6.18, default settings
  const std::vector<std::size_t> expected = {
      96,    120,    152,    192,    240,    304,    384,    480,    600,   752,
      944,   1184,   1480,   1856,   2320,   2904,   3632,   4544,   5680,  7104,
      8880,  11104,  13880,  17352,  21696,  27120,  33904,  42384,  52984, 66232,
      82792, 103496, 129376, 161720, 202152, 252696, 315872, 394840, 524288};
  const slab_classes classes{store_config{}};
  EXPECT_EQ(chunk_sizes(classes), expected);
  EXPECT_EQ(classes.chunks_per_page(1), 10922u);
  EXPECT_EQ(classes.chunks_per_page(38), 2u);
  EXPECT_EQ(classes.chunks_per_page(39), 2u);
}

TEST(slab_classes, follow_the_factor_the_smallest_chunk_and_slab_chunk_max) {
  store_config config;
  config.growth_factor = 2.0;  // memcached -f 2 -n 100
  config.chunk_size_min = 100;
  EXPECT_EQ(chunk_sizes(slab_classes{config}),
            (std::vector<std::size_t>{152, 304, 608, 1216, 2432, 4864, 9728, 19456, 38912, 77824,
                                      155648, 524288}));
  config = store_config{};
  config.slab_chunk_max = 16384;  // memcached -o slab_chunk_max=16384
  const slab_classes small_chunks{config};
  EXPECT_EQ(small_chunks.largest(), 23u);
  EXPECT_EQ(small_chunks.chunk_size(22), 11104u);
  EXPECT_EQ(small_chunks.chunk_size(23), 16384u);
  EXPECT_EQ(small_chunks.chunks_per_page(23), 64u);
  config = store_config{};
  config.slab_chunk_max = mib;  // memcached -o no_chunked_items
  const slab_classes whole_pages{config};
  EXPECT_EQ(whole_pages.largest(), 42u);
  EXPECT_EQ(whole_pages.chunk_size(39), 493552u);
  EXPECT_EQ(whole_pages.chunk_size(41), 771184u);
  EXPECT_EQ(whole_pages.chunk_size(42), mib);
}

TEST(slab_classes, truncate_as_memcached_and_stop_at_63) {
  store_config config;
  config.growth_factor = 1.01;  // 96 * 1.01 truncates to 96: memcached repeats the class
  const slab_classes classes{config};
  ASSERT_EQ(classes.largest(), 63u);
  for (std::size_t c = 1; c < 63; ++c) EXPECT_EQ(classes.chunk_size(c), 96u) << c;
  EXPECT_EQ(classes.chunk_size(63), 524288u);
  EXPECT_EQ(classes.class_for(90), 1u) << "the first of equal classes";
  config = store_config{};
  config.chunk_size_min = 600000;  // memcached -n 600000: the largest class alone
  const slab_classes one{config};
  EXPECT_EQ(chunk_sizes(one), std::vector<std::size_t>{524288});
}

TEST(slab_classes, refuse_settings_that_make_no_table) {
  store_config config;
  config.growth_factor = 1.0;
  EXPECT_THROW(slab_classes{config}, std::invalid_argument);
  config = store_config{};
  config.item_size_max = 0;
  EXPECT_THROW(slab_classes{config}, std::invalid_argument);
  config.item_size_max = (std::size_t{1} << 30) + 1;
  EXPECT_THROW(slab_classes{config}, std::invalid_argument);
  config = store_config{};
  for (const std::size_t chunk_max :
       {std::size_t{0}, std::size_t{48}, std::size_t{1000}, 2 * mib}) {
    config.slab_chunk_max = chunk_max;
    EXPECT_THROW(slab_classes{config}, std::invalid_argument) << chunk_max;
  }
}

TEST(slab_classes, an_item_goes_to_the_first_class_that_holds_memcacheds_size) {
  const slab_classes classes{store_config{}};
  EXPECT_EQ(classes.class_for(0), 0u);
  EXPECT_EQ(classes.class_for(1), 1u);
  EXPECT_EQ(classes.class_for(96), 1u);
  EXPECT_EQ(classes.class_for(97), 2u);
  EXPECT_EQ(classes.class_for(524288), 39u);
  EXPECT_EQ(classes.class_for(524289), 39u) << "a chunked item's LRU is the largest class's";
  EXPECT_EQ(classes.class_for(mib), 39u);
  EXPECT_EQ(classes.class_for(mib + 1), 0u) << "over -I";
  EXPECT_FALSE(classes.is_chunked(524288));
  EXPECT_TRUE(classes.is_chunked(524289));
  // "a" with a 10-byte value: 48 + 8 (CAS) + 2 (key, NUL) + 12 (value, "\r\n"); flags add 4
  EXPECT_EQ(reported_size(1, 10, 0, true), 70u);
  EXPECT_EQ(reported_size(1, 10, 5, true), 74u);
  EXPECT_EQ(reported_size(1, 10, 0, false), 62u);
}

TEST(slab_classes, class_holding_is_the_first_class_whose_chunk_holds_the_size) {
  store_config fine;  // many small classes
  fine.growth_factor = 1.05;
  fine.chunk_size_min = 5;
  store_config coarse;  // few, and a small slab_chunk_max
  coarse.growth_factor = 3.0;
  coarse.chunk_size_min = 200;
  coarse.slab_chunk_max = 16384;
  for (const store_config& config : {store_config{}, fine, coarse}) {
    const slab_classes classes{config};
    // every size of the small ones class_holding looks up in its table, and past them
    for (std::size_t bytes = 0; bytes <= 6000; ++bytes) {
      std::size_t first = 1;
      while (first < classes.largest() && classes.chunk_size(first) < bytes) ++first;
      ASSERT_EQ(classes.class_holding(bytes), first)
          << bytes << " bytes, factor " << config.growth_factor;
    }
  }
}

TEST(slab_classes, a_chunked_item_takes_memcacheds_chunks) {
  const slab_classes classes{store_config{}};
  // memcached's `stats slabs` after `set k 1 0 1048512`: a header chunk in
  // class 2 (48 + 2 + 4 + 48 + 8 = 110 bytes), two full chunks of class 39
  // (524240 bytes each past their headers) and 34 bytes left, in class 1.
  const chunked_layout layout = classes.layout_of(1, 1048512, 1);
  EXPECT_EQ(layout.header_class, 2u);
  EXPECT_EQ(layout.full_chunks, 2u);
  EXPECT_EQ(layout.tail_class, 1u);
  // 600000 bytes: one full chunk, then 75762 + 48 bytes in class 31 (82792)
  const chunked_layout smaller = classes.layout_of(3, 600000, 0);
  EXPECT_EQ(smaller.header_class, 2u);
  EXPECT_EQ(smaller.full_chunks, 1u);
  EXPECT_EQ(smaller.tail_class, 31u);
  // a value whose last part fills a largest chunk exactly needs no tail
  const chunked_layout exact = classes.layout_of(3, 2 * (524288 - 48) - 2, 0);
  EXPECT_EQ(exact.full_chunks, 2u);
  EXPECT_EQ(exact.tail_class, 0u);
}

TEST(slab_classes, a_page_costs_a_whole_megabyte_unless_memcached_counts_its_chunks) {
  store_config config;
  EXPECT_EQ(slab_classes{config}.page_cost(1), mib);
  config.slab_chunk_max = mib;  // no_chunked_items, slab_reassign still on
  EXPECT_EQ(slab_classes{config}.page_cost(1), mib);
  config.slab_reassign = false;  // no_modern: neither, so the chunks' bytes
  const slab_classes no_modern{config};
  EXPECT_EQ(no_modern.page_cost(1), 96u * 10922);
  EXPECT_EQ(no_modern.page_cost(no_modern.largest()), mib);
}

TEST(slab_ledger, takes_pages_as_the_chunks_of_a_class_run_out) {
  slab_ledger ledger{store_config{}};
  const std::size_t per_page = ledger.classes().chunks_per_page(39);
  for (std::size_t i = 0; i < 3; ++i) ASSERT_TRUE(ledger.take_chunk(39));
  ASSERT_TRUE(ledger.take_chunk(1));
  slab_numbers numbers = ledger.numbers();
  EXPECT_EQ(numbers.classes[38].pages, 2u) << per_page << " chunks a page";
  EXPECT_EQ(numbers.classes[38].used_chunks, 3u);
  EXPECT_EQ(numbers.classes[0].pages, 1u);
  EXPECT_EQ(numbers.classes[1].pages, 0u);
  EXPECT_EQ(numbers.total_malloced, 3 * mib);
  EXPECT_EQ(numbers.memory_limit, 64 * mib);
  ledger.give_back(39);
  ledger.give_back(39);
  ledger.give_back(39);
  ASSERT_TRUE(ledger.take_chunk(39));
  numbers = ledger.numbers();
  EXPECT_EQ(numbers.classes[38].pages, 2u) << "pages stay with their class";
  EXPECT_EQ(numbers.classes[38].used_chunks, 1u);
  EXPECT_EQ(numbers.classes[38].chunk_size, 524288u);
  EXPECT_EQ(numbers.classes[38].chunks_per_page, 2u);
  EXPECT_EQ(numbers.total_malloced, 3 * mib);
}

TEST(slab_ledger, grants_a_class_its_first_page_past_the_limit_and_no_more) {
  store_config config;
  config.memory_limit = 2 * mib;
  slab_ledger ledger{config};
  for (std::size_t i = 0; i < 4; ++i) ASSERT_TRUE(ledger.take_chunk(39));
  EXPECT_FALSE(ledger.take_chunk(39)) << "2 MB taken: the limit";
  ASSERT_TRUE(ledger.take_chunk(5)) << "a class's first page comes whatever the limit";
  EXPECT_EQ(ledger.numbers().total_malloced, 3 * mib);
  EXPECT_TRUE(ledger.take_chunk(39, true)) << "past_limit";
  EXPECT_EQ(ledger.numbers().classes[38].pages, 3u);
  ledger.set_memory_limit(8 * mib);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(ledger.take_chunk(39));
  EXPECT_EQ(ledger.numbers().memory_limit, 8 * mib);
  EXPECT_EQ(ledger.memory_limit(), 8 * mib);
  EXPECT_EQ(ledger.numbers().classes[38].used_chunks, 8u);
  ledger.set_memory_limit(mib);  // below what is taken: pages stay, no new ones
  EXPECT_FALSE(ledger.take_chunk(39));
  EXPECT_EQ(ledger.numbers().total_malloced, 5 * mib);
}

TEST(slab_ledger, counts_chunks_taken_by_several_threads) {
  slab_ledger ledger{store_config{}, 4};
  EXPECT_EQ(ledger.stores(), 4u);
  constexpr std::size_t per_thread = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&ledger] {
      for (std::size_t i = 0; i < per_thread; ++i) {
        ASSERT_TRUE(ledger.take_chunk(1));
        if (i % 2 == 0) ledger.give_back(1);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  const slab_numbers numbers = ledger.numbers();
  EXPECT_EQ(numbers.classes[0].used_chunks, 2 * per_thread);
  EXPECT_EQ(numbers.classes[0].pages, (2 * per_thread + 10921) / 10922);
}

TEST(slab_ledger, threads_filling_a_class_to_the_limit_take_every_chunk_and_no_more) {
  store_config config;
  config.memory_limit = 64 * mib;
  slab_ledger ledger{config, 4};
  // class 39 has 2 chunks a page: the threads add pages all the time, and
  // give chunks back, until the limit refuses them
  std::vector<std::size_t> held(4);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < held.size(); ++t) {
    threads.emplace_back([&ledger, &held, t] {
      for (std::size_t i = 0; ledger.take_chunk(39); ++i) {
        ++held[t];
        if (i % 3 == 0) {
          ledger.give_back(39);
          --held[t];
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  const slab_numbers numbers = ledger.numbers();
  std::size_t taken = 0;
  for (const std::size_t each : held) taken += each;
  EXPECT_EQ(numbers.classes[38].pages, 64u);
  EXPECT_EQ(numbers.classes[38].used_chunks, 128u) << "every chunk of the pages is in use";
  EXPECT_EQ(taken, 128u) << "and each by one thread";
  EXPECT_EQ(numbers.total_malloced, 64 * mib);
}

}  // namespace
}  // namespace gpuhash::server::store
