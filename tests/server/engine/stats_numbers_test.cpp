// A shard's numbers for `stats`, merged over shards as numbers
// (engine/stats/numbers.hpp), and rendered once (engine/stats/render.hpp).

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>

#include "engine/stats/numbers.hpp"
#include "engine/stats/render.hpp"

namespace gpuhash::server::engine {
namespace {

/// A shard's numbers; `pages`: its view of the ledger all shards share.
shard_numbers shard_with(std::uint64_t gets, std::int64_t age, std::uint64_t largest_batch,
                         std::size_t pages = 1) {
  shard_numbers numbers;
  numbers.now = 1000;
  numbers.commands.cmd_get = gets;
  numbers.items.total_items = gets * 2;
  numbers.index.batches = 4;
  numbers.index.run_ns = 4000 * gets;
  numbers.index.max_operations = largest_batch;
  numbers.index_description = "cpu";
  numbers.store.curr_items = gets;
  numbers.classes.resize(2);
  numbers.classes[1].store.linked_items = gets;
  numbers.classes[1].store.segment_items = {1, 0, gets - 2, 1};  // HOT, WARM, COLD, TEMP
  numbers.classes[1].age = {age / 10, 0, age};
  numbers.classes[1].store.evictions = gets;
  numbers.classes[1].store.direct_reclaims = gets;
  numbers.classes[1].store.moves_to_cold = gets;
  numbers.store.lru_juggles = gets;
  numbers.slabs.classes.resize(2);
  numbers.slabs.classes[1] = {120, 8738, pages, 2 * gets};
  numbers.slabs.total_malloced = pages << 20;
  numbers.slabs.memory_limit = 64u << 20;
  numbers.classes[1].items.evicted_time = age;
  numbers.commands.classes[2].get_hits = gets;
  numbers.commands.classes[2].hits_to_segment = {0, 1, gets - 2, 1};
  return numbers;
}

TEST(StatsNumbers, CountsAddUpAgesAndTheLargestBatchAreTheLargest) {
  shard_numbers merged = shard_with(3, 50, 10);
  merged.merge(shard_with(5, 20, 40, 2));
  EXPECT_EQ(merged.commands.cmd_get, 8u);
  EXPECT_EQ(merged.items.total_items, 16u);
  EXPECT_EQ(merged.store.curr_items, 8u);
  EXPECT_EQ(merged.index.batches, 8u);
  EXPECT_EQ(merged.index.max_operations, 40u);
  EXPECT_EQ(merged.classes[1].store.linked_items, 8u);
  // the ledger's numbers are the one ledger's, not added up
  EXPECT_EQ(merged.slabs.classes[1].pages, 1u);
  EXPECT_EQ(merged.slabs.classes[1].used_chunks, 6u);
  EXPECT_EQ(merged.slabs.total_malloced, 1u << 20);
  EXPECT_EQ(merged.classes[1].age, (std::array<std::int64_t, store::lru_segments>{5, 0, 50, 0}));
  EXPECT_EQ(merged.classes[1].store.segment_items,
            (std::array<std::size_t, store::lru_segments>{2, 0, 4, 2}));
  EXPECT_EQ(merged.classes[1].store.moves_to_cold, 8u);
  EXPECT_EQ(merged.store.lru_juggles, 8u);
  EXPECT_EQ(merged.classes[1].store.evictions, 8u);
  EXPECT_EQ(merged.classes[1].items.evicted_time, 50);  // the longest
  EXPECT_EQ(merged.commands.classes[2].get_hits, 8u);
  EXPECT_EQ(merged.index_description, "cpu");
}

TEST(StatsNumbers, AreRenderedAsMemcachedsLines) {
  shard_numbers merged = shard_with(3, 50, 10);
  merged.merge(shard_with(5, 20, 40));
  server_stats server;
  std::string items;
  render_numbers("items", merged, server, items);
  // memcached's segmented LRU: the items and hits of each segment
  for (const char* line :
       {"STAT items:2:number 8\r\nSTAT items:2:number_hot 2\r\nSTAT items:2:number_warm 0\r\n"
        "STAT items:2:number_cold 4\r\nSTAT items:2:age_hot 5\r\nSTAT items:2:age_warm 0\r\n"
        "STAT items:2:age 50\r\n",
        "STAT items:2:evicted 8\r\n", "STAT items:2:evicted_time 50\r\n",
        "STAT items:2:moves_to_cold 8\r\n", "STAT items:2:hits_to_hot 0\r\n",
        "STAT items:2:hits_to_warm 2\r\nSTAT items:2:hits_to_cold 4\r\n"
        "STAT items:2:hits_to_temp 2\r\n",
        "STAT items:2:direct_reclaims 8\r\n"})
    EXPECT_NE(items.find(line), std::string::npos) << line;
  // with temp_lru, TEMP's items are shown after COLD's, as memcached shows them
  merged.temp_lru = true;
  items.clear();
  render_numbers("items", merged, server, items);
  EXPECT_NE(items.find("STAT items:2:number_cold 4\r\nSTAT items:2:number_temp 2\r\n"
                       "STAT items:2:age_hot 5\r\n"),
            std::string::npos);
  merged.temp_lru = false;
  std::string totals;
  render_numbers("", merged, server, totals);
  for (const char* line : {"STAT lru_maintainer_juggles 8\r\n", "STAT moves_to_cold 8\r\n",
                           "STAT direct_reclaims 8\r\n"})
    EXPECT_NE(totals.find(line), std::string::npos) << line;
  // without memcached's LRU maintainer, its fields are not shown, as memcached shows them
  server.shown.lru_maintainer = false;
  items.clear();
  render_numbers("items", merged, server, items);
  EXPECT_EQ(items,
            "STAT items:2:number 8\r\nSTAT items:2:age 50\r\nSTAT items:2:mem_requested 0\r\n"
            "STAT items:2:evicted 8\r\nSTAT items:2:evicted_nonzero 0\r\n"
            "STAT items:2:evicted_time 50\r\nSTAT items:2:outofmemory 0\r\n"
            "STAT items:2:tailrepairs 0\r\nSTAT items:2:reclaimed 0\r\n"
            "STAT items:2:expired_unfetched 0\r\nSTAT items:2:evicted_unfetched 0\r\n"
            "STAT items:2:crawler_reclaimed 0\r\nSTAT items:2:crawler_items_checked 0\r\n"
            "STAT items:2:lrutail_reflocked 0\r\nEND\r\n");
  std::string slabs;
  render_numbers("slabs", merged, server, slabs);
  EXPECT_TRUE(slabs.starts_with(
      "STAT 2:chunk_size 120\r\nSTAT 2:chunks_per_page 8738\r\nSTAT 2:total_pages 1\r\n"
      "STAT 2:total_chunks 8738\r\nSTAT 2:used_chunks 6\r\nSTAT 2:free_chunks 8732\r\n"
      "STAT 2:free_chunks_end 0\r\nSTAT 2:get_hits 8\r\n"))
      << slabs;
  EXPECT_TRUE(slabs.ends_with("STAT active_slabs 1\r\nSTAT total_malloced 1048576\r\nEND\r\n"));
  std::string general;
  render_numbers("", merged, server, general);
  EXPECT_NE(general.find("STAT cmd_get 8\r\n"), std::string::npos);
  EXPECT_NE(general.find("STAT evictions 8\r\n"), std::string::npos);
  EXPECT_NE(general.find("STAT limit_maxbytes 67108864\r\n"), std::string::npos);
  EXPECT_NE(general.find("STAT index_batch_mean_ns 4000\r\n"), std::string::npos);
  EXPECT_EQ(general.find("STAT direct_reclaims"), std::string::npos);
  EXPECT_TRUE(general.ends_with("END\r\n"));
}

}  // namespace
}  // namespace gpuhash::server::engine
