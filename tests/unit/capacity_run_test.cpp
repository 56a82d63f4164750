// sharded.scaling's capacity run (bench/sharded/capacity_run.hpp) on the
// CPU stand-in, host-thread shards: its batches cover every key once, and a
// run fills one map with n keys in batches, finds them all and reports each
// shard's table, so the run that a GPU machine makes at 2^32 keys has had
// its logic checked without a GPU.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "bench/basic_ops.hpp"
#include "bench/sharded/capacity_run.hpp"
#include "gpuhash/bucketed_cuckoo_map.hpp"
#include "gpuhash/sharded_map.hpp"

namespace gpuhash::bench {
namespace {

using sharded_scaling::capacity_batches;
using sharded_scaling::index_range;
using sharded_scaling::run_capacity;

TEST(capacity_run, batches_cover_every_index_once_in_order) {
  for (const std::uint64_t n : {1, 7, 4096, 10000}) {
    for (const std::uint64_t batch : {1, 3, 4096, 100000}) {
      SCOPED_TRACE("n " + std::to_string(n) + ", batch " + std::to_string(batch));
      const std::vector<index_range> batches = capacity_batches(n, batch);
      EXPECT_EQ(batches.size(), (n + batch - 1) / batch);
      std::uint64_t next = 0;
      for (const index_range& range : batches) {
        EXPECT_EQ(range.first, next);
        EXPECT_GE(range.count, 1U);
        EXPECT_LE(range.count, batch);
        next += range.count;
      }
      EXPECT_EQ(next, n);
    }
  }
  EXPECT_THROW(capacity_batches(10, 0), std::invalid_argument);
}

using table_64 = bucketed_cuckoo_map<std::uint64_t, std::uint64_t>;

sweep_point capacity_point(std::uint64_t n) {
  sweep_point point;
  point.n = n;
  point.load_factor = 0.8;
  point.repetitions = 2;
  point.warmups = 1;
  return point;
}

TEST(capacity_run, fills_one_map_in_uneven_batches_and_finds_every_key) {
  const sweep_point point = capacity_point(10000);
  sharded_map<table_64> map(3, options_for(point));
  const scaling_row row = run_capacity(map, point, 3000);

  EXPECT_EQ(map.size(), point.n) << "the last repetition's keys stay in the map";
  EXPECT_EQ(row.inputs, "capacity");
  EXPECT_EQ(row.shards, 3U);
  EXPECT_EQ(row.n, point.n);
  EXPECT_EQ(row.batch, 3000U);
  EXPECT_EQ(row.batches, 4U);
  ASSERT_EQ(row.ops.size(), 3U);
  for (const scaling_op& op : row.ops) {
    EXPECT_EQ(op.ms.size(), 2U) << op.name << ": one time per repetition, warm-up dropped";
    for (const double ms : op.ms) EXPECT_GT(ms, 0) << op.name;
  }
  EXPECT_EQ(row.ops[0].keys, 0U) << "insert: over the row's n";
  EXPECT_EQ(row.ops[1].keys, 0U) << "find_hit: over the row's n";
  EXPECT_EQ(row.ops[2].keys, 3000U) << "find_miss: one batch of absent keys";

  ASSERT_EQ(row.shard_memory_bytes.size(), 3U);
  EXPECT_EQ(std::accumulate(row.shard_memory_bytes.begin(), row.shard_memory_bytes.end(),
                            std::uint64_t{0}),
            row.memory_bytes);
  EXPECT_EQ(row.memory_bytes, map.memory_bytes());
  EXPECT_EQ(row.capacity, map.capacity());
  for (const std::uint64_t bytes : row.shard_memory_bytes)
    EXPECT_GE(bytes, point.n / 3 * sizeof(std::uint64_t) * 2) << "a shard holds its share";
}

TEST(capacity_run, a_batch_larger_than_n_is_one_batch_of_n) {
  const sweep_point point = capacity_point(2000);
  sharded_map<table_64> map(2, options_for(point));
  const scaling_row row = run_capacity(map, point, 1 << 20);
  EXPECT_EQ(row.batch, point.n);
  EXPECT_EQ(row.batches, 1U);
  EXPECT_EQ(row.ops[2].keys, point.n);
  EXPECT_EQ(map.size(), point.n);
}

}  // namespace
}  // namespace gpuhash::bench
