// The per-device steps of a sharded batch on the CPU backend: the stable
// partition by shard (empty batches, every key to one shard, one shard) and
// the scatter of found values back into the caller's order.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/detail/sharded/steps.hpp"
#include "gpuhash/host_exchange.hpp"
#include "gpuhash/shard_placement.hpp"
#include "gpuhash/status.hpp"
#include "support/random.hpp"

namespace gpuhash::testing {
namespace {

using placement_32 = shard_placement<std::uint32_t>;
using steps_32 = detail::sharded::steps<cpu_backend, std::uint32_t, std::uint32_t, placement_32>;

/// Partitions `keys` and checks the result against the placement itself:
/// order is a permutation of the positions, grouped by shard in increasing
/// shard order, increasing within a shard (stable), with counts to match.
void expect_partitioned(const std::vector<std::uint32_t>& keys, const placement_32& placement) {
  const std::size_t n = keys.size();
  std::vector<std::size_t> order(n, ~std::size_t{0});
  std::vector<std::size_t> counts(placement.shards, 12345);
  cpu::thread_pool pool(2);
  steps_32::partition(keys.data(), n, placement, order.data(), counts.data(), cpu::stream{&pool});

  std::vector<std::size_t> expected_counts(placement.shards, 0);
  for (const std::uint32_t key : keys) ++expected_counts[placement(key)];
  EXPECT_EQ(counts, expected_counts);

  std::vector<bool> seen(n, false);
  std::size_t j = 0;
  for (std::uint32_t shard = 0; shard < placement.shards; ++shard) {
    for (std::size_t k = 0; k < counts[shard]; ++k, ++j) {
      ASSERT_LT(order[j], n);
      ASSERT_FALSE(seen[order[j]]) << "position " << order[j] << " twice";
      seen[order[j]] = true;
      ASSERT_EQ(placement(keys[order[j]]), shard) << "at " << j;
      if (k > 0) {
        ASSERT_LT(order[j - 1], order[j]) << "not stable at " << j;
      }
    }
  }
  EXPECT_EQ(j, n);
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
    for (const std::size_t n : {std::size_t{1}, std::size_t{5}, std::size_t{100000}})
      expect_partitioned(random_keys(random, n), placement);
  }
}

TEST(sharded_steps, partition_of_duplicates_keeps_their_order) {
  // Many copies of few keys: equal keys are one shard, kept in input order.
  seeded_random random;
  const auto pool = random_keys(random, 5);
  std::vector<std::uint32_t> keys(20000);
  for (auto& key : keys) key = pool[random.below(pool.size())];
  expect_partitioned(keys, placement_32{4});
}

TEST(sharded_steps, partition_of_an_empty_batch_counts_nothing) {
  std::vector<std::size_t> counts(3, 99);
  steps_32::partition(nullptr, 0, placement_32{3}, nullptr, counts.data(), cpu::stream{});
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
    expect_partitioned(keys, placement);
  }
}

TEST(sharded_steps, partition_onto_one_shard_is_the_identity) {
  seeded_random random;
  const auto keys = random_keys(random, 1000);
  std::vector<std::size_t> order(keys.size());
  std::size_t count = 0;
  steps_32::partition(keys.data(), keys.size(), placement_32{1}, order.data(), &count,
                      cpu::stream{});
  EXPECT_EQ(count, keys.size());
  std::vector<std::size_t> identity(keys.size());
  std::iota(identity.begin(), identity.end(), std::size_t{0});
  EXPECT_EQ(order, identity);
}

TEST(sharded_steps, scatter_found_writes_found_values_only) {
  // Results in sent order (here: reversed), put back through order.
  const std::size_t n = 6;
  const std::vector<std::size_t> order{5, 4, 3, 2, 1, 0};
  const std::vector<std::uint32_t> found_values{50, 40, 30, 20, 10, 0};
  const std::vector<status> statuses{status::found,     status::not_found, status::found,
                                     status::not_found, status::found,     status::invalid_key};
  std::vector<std::uint32_t> values(n, 7);
  steps_32::scatter_found(found_values.data(), statuses.data(), order.data(), n, values.data(),
                          cpu::stream{});
  EXPECT_EQ(values, (std::vector<std::uint32_t>{7, 10, 7, 30, 7, 50}));

  const bool found[] = {false, true, true, false, false, true};
  std::vector<std::uint32_t> flagged(n, 7);
  steps_32::scatter_found(found_values.data(), found, order.data(), n, flagged.data(),
                          cpu::stream{});
  EXPECT_EQ(flagged, (std::vector<std::uint32_t>{0, 7, 7, 30, 40, 7}));
}

}  // namespace
}  // namespace gpuhash::testing
