// The placement hash: in range, balanced, seeded, consistent with a key
// type's equality, and independent of the hash the shards' tables use.

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gpuhash/hash.hpp"
#include "gpuhash/key_types.hpp"
#include "gpuhash/shard_placement.hpp"
#include "gpuhash/table_options.hpp"
#include "support/random.hpp"

namespace gpuhash::testing {
namespace {

/// How many of `keys` fall into each of `bins` bins of `bin_of`.
template <class Key, class BinOf>
std::vector<std::size_t> histogram(const std::vector<Key>& keys, std::size_t bins, BinOf bin_of) {
  std::vector<std::size_t> counts(bins, 0);
  for (const Key& key : keys) ++counts.at(bin_of(key));
  return counts;
}

/// Whether every bin is within 6 standard deviations of an even share.
::testing::AssertionResult evenly_spread(const std::vector<std::size_t>& counts,
                                         std::size_t total) {
  const double mean = static_cast<double>(total) / static_cast<double>(counts.size());
  const double spread = 6.0 * std::sqrt(mean);
  for (std::size_t b = 0; b < counts.size(); ++b)
    if (std::abs(static_cast<double>(counts[b]) - mean) > spread)
      return ::testing::AssertionFailure()
             << "bin " << b << " holds " << counts[b] << ", an even share is " << mean;
  return ::testing::AssertionSuccess();
}

std::vector<std::uint64_t> sequential_keys(std::size_t n) {
  std::vector<std::uint64_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = i + 1;  // the worst case for a weak mix
  return keys;
}

TEST(shard_placement, spreads_sequential_keys_evenly) {
  const auto keys = sequential_keys(200000);
  for (const std::uint32_t shards : {1U, 2U, 3U, 4U, 8U}) {
    SCOPED_TRACE(std::to_string(shards) + " shards");
    const shard_placement<std::uint64_t> placement{shards};
    EXPECT_TRUE(evenly_spread(histogram(keys, shards, placement), keys.size()));
  }
}

TEST(shard_placement, seeds_give_other_placements) {
  const auto keys = sequential_keys(10000);
  const shard_placement<std::uint64_t> a{4};
  const shard_placement<std::uint64_t> b{4, 12345};
  std::size_t same = 0;
  for (const auto key : keys) same += a(key) == b(key) ? 1 : 0;
  const double expected = static_cast<double>(keys.size()) / 4.0;
  EXPECT_NEAR(static_cast<double>(same), expected, 6.0 * std::sqrt(expected));
}

/// Where a table of the library puts a key among `bins` equal ranges of
/// its slots: MurmurHash3's fmix64 of the key's hash under the table's
/// seed, reduced onto the slots (linear probing's home, each bucketed
/// cuckoo choice's bucket).
std::size_t table_range(std::uint64_t key, std::size_t bins) {
  return reduce_range(murmur3_fmix64(key ^ table_options{}.seed), bins);
}

TEST(shard_placement, keys_of_one_shard_reach_every_part_of_its_table) {
  // The keys a shard holds must still spread over its whole table: the
  // placement's hash shares no structure with the table's.
  const auto keys = sequential_keys(400000);
  const shard_placement<std::uint64_t> placement{4, table_options{}.seed};  // even the same seed
  std::vector<std::uint64_t> shard_zero;
  for (const auto key : keys)
    if (placement(key) == 0) shard_zero.push_back(key);
  EXPECT_TRUE(
      evenly_spread(histogram(shard_zero, 4, [](std::uint64_t key) { return table_range(key, 4); }),
                    shard_zero.size()));
}

TEST(shard_placement, the_independence_check_sees_a_shared_hash) {
  // The same check on a placement built on the table's own mix fails:
  // shard 0's keys all land in the first quarter of each table.
  const auto keys = sequential_keys(100000);
  std::vector<std::uint64_t> shard_zero;
  for (const auto key : keys)
    if (table_range(key, 4) == 0) shard_zero.push_back(key);
  EXPECT_FALSE(
      evenly_spread(histogram(shard_zero, 4, [](std::uint64_t key) { return table_range(key, 4); }),
                    shard_zero.size()));
}

/// A key type whose equality looks at its id only (the tag is payload).
struct tagged_key {
  std::uint32_t id;
  std::uint32_t tag;
};
struct tagged_hash {
  GPUHASH_HD std::uint64_t operator()(const tagged_key& key) const { return key.id; }
};

TEST(shard_placement, follows_the_key_types_hash_policy) {
  // Keys the table calls equal (same id) go to one shard whatever their tags.
  const shard_placement<tagged_key, tagged_hash> placement{7};
  seeded_random random;
  for (int i = 0; i < 10000; ++i) {
    const auto id = static_cast<std::uint32_t>(random.next());
    const tagged_key a{id, static_cast<std::uint32_t>(random.next())};
    const tagged_key b{id, static_cast<std::uint32_t>(random.next())};
    ASSERT_EQ(placement(a), placement(b)) << "id " << id;
    ASSERT_LT(placement(a), 7U);
  }
}

}  // namespace
}  // namespace gpuhash::testing
