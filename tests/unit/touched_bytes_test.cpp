// The bytes a table's operations can touch, which the benchmark measures
// its limits over (bench/basic_ops.hpp, touched_bytes): a table's memory,
// but for DACHash its bucket heads and the pool's nodes in use.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "bench/basic_ops.hpp"
#include "gpuhash/gpuhash.hpp"
#include "support/random.hpp"
#include "support/table_helpers.hpp"

namespace gpuhash::testing {
namespace {

TEST(touched_bytes, of_a_table_without_a_node_pool_is_its_memory) {
  linear_probing_map<std::uint32_t, std::uint32_t> table(table_options{1 << 16});
  EXPECT_EQ(bench::touched_bytes(table, {}), table.memory_bytes());
}

TEST(touched_bytes, of_dachash_are_its_heads_and_the_nodes_in_use) {
  using map = dachash_map<std::uint32_t, std::uint32_t>;
  using engine = map::engine_type;
  seeded_random random;
  // Few buckets, so that chains take nodes from the pool.
  map table(table_options{1 << 12, 0.0f, random.next()});
  const std::size_t empty = bench::touched_bytes(table, {});
  EXPECT_EQ(empty, table.engine().buckets() * std::size_t{engine::node_bytes});
  EXPECT_LT(empty, table.memory_bytes());

  const auto keys = distinct_keys<map>(random, 20000);
  table.insert(keys, random_values<std::uint32_t>(random, keys.size()));
  const engine& e = table.engine();
  const std::size_t in_use = e.pool_nodes() - e.free_nodes({});
  EXPECT_GT(in_use, 0U) << "no chain grew into the pool: the test checks nothing";
  EXPECT_EQ(bench::touched_bytes(table, {}),
            (e.buckets() + in_use) * std::size_t{engine::node_bytes});
  EXPECT_LE(bench::touched_bytes(table, {}), table.memory_bytes());
}

}  // namespace
}  // namespace gpuhash::testing
