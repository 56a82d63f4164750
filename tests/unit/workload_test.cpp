// gpuhash-bench's key generator: the benchmark's correctness rests on it
// (distinct keys, absent keys disjoint from present ones, a real Zipf skew).

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <unordered_set>
#include <vector>

#include "bench/workload.hpp"

namespace gpuhash::bench {
namespace {

template <class Key>
std::vector<Key> generate(const key_spec& spec, std::uint64_t first, std::size_t n) {
  std::vector<Key> keys(n);
  std::vector<Key> values(n);
  generate_keys<Key, Key>(cpu_backend{}, spec, first, n, keys.data(), values.data(), {});
  for (std::size_t i = 0; i < n; ++i)
    EXPECT_EQ(values[i], (key_generator<Key, Key>::value_for(keys[i])));
  return keys;
}

TEST(workload, uniform_keys_are_distinct_allowed_and_disjoint_from_absent_ones) {
  for (const std::uint64_t seed : {1ULL, 99ULL}) {
    key_spec spec{distribution::uniform, seed, 0.99, 0};
    const auto present = generate<std::uint32_t>(spec, 0, 200000);
    const auto absent = generate<std::uint32_t>(spec, 200000, 200000);
    std::unordered_set<std::uint32_t> seen(present.begin(), present.end());
    EXPECT_EQ(seen.size(), present.size()) << "duplicate keys";
    for (const auto key : absent)
      EXPECT_TRUE(seen.insert(key).second) << "absent key " << key << " is present";
    for (const auto key : seen) {
      EXPECT_NE(key, 0U);
      EXPECT_LE(key, key_permutation<std::uint32_t>::largest_allowed());
    }
  }
  const auto wide = generate<std::uint64_t>({distribution::uniform, 5, 0.99, 0}, 0, 100000);
  EXPECT_EQ(std::unordered_set<std::uint64_t>(wide.begin(), wide.end()).size(), wide.size());
  std::size_t high = 0;
  for (const auto key : wide) high += key >> 32 != 0;
  EXPECT_GT(high, 99000U) << "64-bit keys should use the whole key space";
}

TEST(workload, seeds_give_fresh_keys) {
  const auto a = generate<std::uint32_t>({distribution::uniform, 1, 0.99, 0}, 0, 10000);
  const auto b = generate<std::uint32_t>({distribution::uniform, 2, 0.99, 0}, 0, 10000);
  std::unordered_set<std::uint32_t> first(a.begin(), a.end());
  std::size_t shared = 0;
  for (const auto key : b) shared += first.contains(key);
  EXPECT_LT(shared, 10U);
}

TEST(workload, dense_keys_count_from_one) {
  const auto keys = generate<std::uint32_t>({distribution::dense, 1, 0.99, 0}, 10, 5);
  EXPECT_EQ(keys, (std::vector<std::uint32_t>{11, 12, 13, 14, 15}));
}

TEST(workload, zipf_ranks_follow_the_power_law) {
  const double s = 0.99;
  const std::uint64_t universe = 1000;
  const auto sampler = zipf_sampler::make(s, universe);
  std::vector<std::uint64_t> counts(universe + 1, 0);
  const std::uint64_t samples = 400000;
  for (std::uint64_t i = 0; i < samples; ++i) {
    const auto rank = sampler(7, i);
    ASSERT_GE(rank, 1U);
    ASSERT_LE(rank, universe);
    ++counts[rank];
  }
  double normalizer = 0;
  for (std::uint64_t k = 1; k <= universe; ++k) normalizer += std::pow(static_cast<double>(k), -s);
  for (const std::uint64_t k : {1ULL, 2ULL, 10ULL, 100ULL}) {
    const double expected = samples * std::pow(static_cast<double>(k), -s) / normalizer;
    EXPECT_NEAR(static_cast<double>(counts[k]), expected, 5 * std::sqrt(expected) + 0.02 * expected)
        << "rank " << k;
  }
}

}  // namespace
}  // namespace gpuhash::bench
