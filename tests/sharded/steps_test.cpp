// The per-device steps of a sharded batch on the CPU backend: the stable
// partition by shard with what it writes grouped (empty batches, every key
// to one shard, one shard; 32- and 64-bit positions; groups packed and
// aligned) and the scatters of results back into the caller's order.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/detail/sharded/steps.hpp"
#include "gpuhash/host_exchange.hpp"
#include "gpuhash/operation.hpp"
#include "gpuhash/shard_exchange.hpp"
#include "gpuhash/shard_placement.hpp"
#include "gpuhash/status.hpp"
#include "support/random.hpp"

namespace gpuhash::testing {
namespace {

using placement_32 = shard_placement<std::uint32_t>;
template <class Position>
using steps_32 =
    detail::sharded::steps<cpu_backend, std::uint32_t, std::uint32_t, placement_32, Position>;

/// Partitions `keys` (with values and operations derived from them), each
/// shard's group aligned to `align`, and checks the result against the
/// placement itself: order is a permutation of the positions, grouped by
/// shard in increasing shard order, each group where an exchange_plan of
/// that alignment puts it, increasing within a shard (stable), with counts
/// to match; what was sent at j is the key, value and operation at
/// order[j]; and nothing is written between groups.
template <class Position>
void expect_partitioned(const std::vector<std::uint32_t>& keys, const placement_32& placement,
                        std::size_t align = 1) {
  const std::size_t n = keys.size();
  std::vector<std::uint32_t> values(n);
  std::vector<operation> ops(n);
  for (std::size_t i = 0; i < n; ++i) {
    values[i] = keys[i] * 3 + 1;
    ops[i] = i % 3 == 0 ? operation::erase : operation::insert;
  }
  const std::size_t extent = n + placement.shards * (align - 1);
  const std::uint32_t untouched = 0xdeadbeefU;
  std::vector<Position> order(extent, ~Position{0});
  std::vector<std::uint32_t> sent_keys(extent, untouched), sent_values(extent, untouched);
  std::vector<operation> sent_ops(extent, operation::update);
  std::vector<std::size_t> counts(placement.shards, 12345);
  cpu::thread_pool pool(2);
  steps_32<Position>::partition(keys.data(), values.data(), ops.data(), n, placement, align,
                                order.data(), sent_keys.data(), sent_values.data(), sent_ops.data(),
                                counts.data(), cpu::stream{&pool});

  std::vector<std::size_t> expected_counts(placement.shards, 0);
  for (const std::uint32_t key : keys) ++expected_counts[placement(key)];
  EXPECT_EQ(counts, expected_counts);

  // Where the groups lie: as a plan of one source with these counts lays them out.
  std::vector<std::vector<std::size_t>> matrix(placement.shards,
                                               std::vector<std::size_t>(placement.shards, 0));
  matrix[0] = counts;
  const exchange_plan plan(matrix, align);
  std::vector<bool> in_a_group(extent, false);
  std::vector<bool> seen(n, false);
  std::size_t placed = 0;
  for (std::uint32_t shard = 0; shard < placement.shards; ++shard) {
    const std::size_t start = plan.send_offset(0, shard);
    ASSERT_EQ(start % align, 0U) << "shard " << shard;
    for (std::size_t k = 0, j = start; k < counts[shard]; ++k, ++j, ++placed) {
      in_a_group[j] = true;
      ASSERT_LT(order[j], n);
      ASSERT_FALSE(seen[order[j]]) << "position " << order[j] << " twice";
      seen[order[j]] = true;
      ASSERT_EQ(placement(keys[order[j]]), shard) << "at " << j;
      ASSERT_EQ(sent_keys[j], keys[order[j]]) << "at " << j;
      ASSERT_EQ(sent_values[j], values[order[j]]) << "at " << j;
      ASSERT_EQ(sent_ops[j], ops[order[j]]) << "at " << j;
      if (k > 0) {
        ASSERT_LT(order[j - 1], order[j]) << "not stable at " << j;
      }
    }
  }
  EXPECT_EQ(placed, n);
  for (std::size_t j = 0; j < extent; ++j)
    if (!in_a_group[j]) {
      ASSERT_EQ(order[j], ~Position{0}) << "written between groups at " << j;
      ASSERT_EQ(sent_keys[j], untouched) << "written between groups at " << j;
      ASSERT_EQ(sent_values[j], untouched) << "written between groups at " << j;
      ASSERT_EQ(sent_ops[j], operation::update) << "written between groups at " << j;
    }
}

std::vector<std::uint32_t> random_keys(seeded_random& random, std::size_t n) {
  std::vector<std::uint32_t> keys(n);
  for (auto& key : keys) key = static_cast<std::uint32_t>(random.next());
  return keys;
}

TEST(sharded_steps, partition_groups_keys_by_shard_stably) {
  seeded_random random;
  for (const std::uint32_t shards : {1U, 2U, 3U, 4U, 7U, 64U}) {
    SCOPED_TRACE(std::to_string(shards) + " shards");
    const placement_32 placement{shards};
    for (const std::size_t n : {std::size_t{1}, std::size_t{5}, std::size_t{100000}}) {
      const auto keys = random_keys(random, n);
      expect_partitioned<std::uint32_t>(keys, placement);
      expect_partitioned<std::uint64_t>(keys, placement);
    }
  }
}

TEST(sharded_steps, partition_aligns_each_group_as_the_exchange_plan_does) {
  seeded_random random;
  for (const std::size_t align : {std::size_t{2}, std::size_t{3}, std::size_t{256}}) {
    for (const std::uint32_t shards : {1U, 2U, 5U}) {
      SCOPED_TRACE(std::to_string(shards) + " shards, align " + std::to_string(align));
      const placement_32 placement{shards};
      for (const std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{1000}}) {
        const auto keys = random_keys(random, n);
        expect_partitioned<std::uint32_t>(keys, placement, align);
        expect_partitioned<std::uint64_t>(keys, placement, align);
      }
    }
  }
}

TEST(sharded_steps, partition_of_duplicates_keeps_their_order) {
  // Many copies of few keys: equal keys are one shard, kept in input order.
  seeded_random random;
  const auto pool = random_keys(random, 5);
  std::vector<std::uint32_t> keys(20000);
  for (auto& key : keys) key = pool[random.below(pool.size())];
  expect_partitioned<std::uint32_t>(keys, placement_32{4});
}

TEST(sharded_steps, partition_of_an_empty_batch_counts_nothing) {
  std::vector<std::size_t> counts(3, 99);
  steps_32<std::uint32_t>::partition(nullptr, nullptr, nullptr, 0, placement_32{3}, 256, nullptr,
                                     nullptr, nullptr, nullptr, counts.data(), cpu::stream{});
  EXPECT_EQ(counts, (std::vector<std::size_t>{0, 0, 0}));
}

TEST(sharded_steps, partition_with_every_key_on_one_shard) {
  // Shards before and after it are empty: their counts must be 0.
  seeded_random random;
  const placement_32 placement{4};
  for (std::uint32_t only = 0; only < 4; ++only) {
    SCOPED_TRACE("shard " + std::to_string(only));
    std::vector<std::uint32_t> keys;
    while (keys.size() < 3000) {
      const auto key = static_cast<std::uint32_t>(random.next());
      if (placement(key) == only) keys.push_back(key);
    }
    expect_partitioned<std::uint32_t>(keys, placement);
  }
}

TEST(sharded_steps, partition_onto_one_shard_is_the_identity) {
  // Keys alone (no values, no operations), as a find sends them.
  seeded_random random;
  const auto keys = random_keys(random, 1000);
  std::vector<std::uint32_t> order(keys.size());
  std::vector<std::uint32_t> sent_keys(keys.size());
  std::size_t count = 0;
  steps_32<std::uint32_t>::partition(keys.data(), nullptr, nullptr, keys.size(), placement_32{1},
                                     256, order.data(), sent_keys.data(), nullptr, nullptr, &count,
                                     cpu::stream{});
  EXPECT_EQ(count, keys.size());
  std::vector<std::uint32_t> identity(keys.size());
  std::iota(identity.begin(), identity.end(), std::uint32_t{0});
  EXPECT_EQ(order, identity);
  EXPECT_EQ(sent_keys, keys);
}

TEST(sharded_steps, scatter_found_writes_found_values_only) {
  // Results in sent order (here: reversed), put back through order.
  const std::size_t n = 6;
  const std::vector<std::uint32_t> order{5, 4, 3, 2, 1, 0};
  const std::vector<std::uint32_t> found_values{50, 40, 30, 20, 10, 0};
  const std::vector<status> statuses{status::found,     status::not_found, status::found,
                                     status::not_found, status::found,     status::invalid_key};
  std::vector<std::uint32_t> values(n, 7);
  steps_32<std::uint32_t>::scatter_found(found_values.data(), statuses.data(), order.data(), n,
                                         values.data(), cpu::stream{});
  EXPECT_EQ(values, (std::vector<std::uint32_t>{7, 10, 7, 30, 7, 50}));

  const bool found[] = {false, true, true, false, false, true};
  std::vector<std::uint32_t> flagged(n, 7);
  steps_32<std::uint32_t>::scatter_found(found_values.data(), found, order.data(), n,
                                         flagged.data(), cpu::stream{});
  EXPECT_EQ(flagged, (std::vector<std::uint32_t>{0, 7, 7, 30, 40, 7}));
}

TEST(sharded_steps, scatter_puts_results_in_the_callers_order) {
  // 64-bit positions, as a part of 2^32 keys or more has.
  const std::size_t n = 5;
  const std::vector<std::uint64_t> order{2, 0, 4, 1, 3};
  const std::vector<status> sent{status::inserted, status::exists, status::full,
                                 status::invalid_key, status::inserted};
  std::vector<status> statuses(n, status::not_found);
  steps_32<std::uint64_t>::scatter(sent.data(), order.data(), n, statuses.data(), cpu::stream{});
  EXPECT_EQ(statuses, (std::vector<status>{status::exists, status::invalid_key, status::inserted,
                                           status::inserted, status::full}));

  const bool flags[] = {true, false, false, true, true};
  bool placed[n] = {};
  steps_32<std::uint64_t>::scatter(flags, order.data(), n, placed, cpu::stream{});
  EXPECT_EQ(std::vector<bool>(placed, placed + n),
            (std::vector<bool>{false, true, true, true, false}));

  const std::vector<std::uint32_t> values{20, 0, 40, 10, 30};
  std::vector<std::uint32_t> back(n, 7);
  steps_32<std::uint64_t>::scatter_values(values.data(), order.data(), n, back.data(),
                                          cpu::stream{});
  EXPECT_EQ(back, (std::vector<std::uint32_t>{0, 10, 20, 30, 40}));
}

}  // namespace
}  // namespace gpuhash::testing
