#include <gtest/gtest.h>

#include <cstdint>
#include <unordered_set>
#include <vector>

#include "gpuhash/hash.hpp"

namespace gpuhash {
namespace {

TEST(hash, murmur3_finalizers_match_reference_values) {
  // Values of MurmurHash3's fmix32/fmix64 as computed by the reference C code.
  EXPECT_EQ(murmur3_fmix32(0), 0U);
  EXPECT_EQ(murmur3_fmix32(1), 0x514e28b7U);
  EXPECT_EQ(murmur3_fmix64(0), 0ULL);
  EXPECT_EQ(murmur3_fmix64(1), 0xb456bcfc34c2cb2cULL);
}

TEST(hash, finalizers_are_bijections_on_a_sample) {
  std::unordered_set<std::uint32_t> seen32;
  std::unordered_set<std::uint64_t> seen64;
  for (std::uint32_t i = 0; i < 100000; ++i) {
    EXPECT_TRUE(seen32.insert(murmur3_fmix32(i)).second);
    EXPECT_TRUE(seen64.insert(murmur3_fmix64(i)).second);
  }
}

TEST(hash, seed_changes_the_hash) {
  const seeded_hash<std::uint32_t> a{1};
  const seeded_hash<std::uint32_t> b{2};
  int equal = 0;
  for (std::uint32_t k = 0; k < 1000; ++k) equal += a(k) == b(k);
  EXPECT_LT(equal, 2);
}

TEST(hash, family_members_are_independent) {
  const hash_family<std::uint64_t> family{42};
  int collisions = 0;
  for (std::uint64_t k = 0; k < 10000; ++k)
    collisions += (family(k, 0) % 1024) == (family(k, 1) % 1024);
  // Independent members agree on a bucket of 1024 about 10 times in 10^4.
  EXPECT_LT(collisions, 40);
}

TEST(hash, reduce_range_stays_in_range_and_spreads) {
  for (const std::uint64_t range : {1ULL, 7ULL, 1000ULL, (1ULL << 40) + 3}) {
    for (std::uint64_t k = 0; k < 1000; ++k)
      EXPECT_LT(reduce_range(murmur3_fmix64(k), range), range);
  }
  std::vector<int> counts(10, 0);
  for (std::uint64_t k = 0; k < 100000; ++k) ++counts[reduce_range(murmur3_fmix64(k), 10)];
  for (const int count : counts) EXPECT_NEAR(count, 10000, 500);
}

}  // namespace
}  // namespace gpuhash
