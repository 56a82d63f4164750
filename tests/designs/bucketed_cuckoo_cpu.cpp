#include <cstdint>
#include <utility>

#include "bucketed_cuckoo_tests.hpp"
#include "gpuhash/bucketed_cuckoo_map_impl.hpp"
#include "gpuhash/hash.hpp"

namespace gpuhash::testing {
/// The random-walk eviction policy is not compiled into the library (its
/// default is lookahead); its tests compile it here.
using random_walk_config = bucketed_cuckoo_config<32, 2, bucketed_cuckoo_eviction::random_walk>;
/// Two choices over the whole table, without a backyard.
using two_choice_config = bucketed_cuckoo_config<32, 2>;
}  // namespace gpuhash::testing

GPUHASH_INSTANTIATE_BUCKETED_CUCKOO_MAP(std::uint32_t, std::uint32_t, gpuhash::cpu_backend,
                                        gpuhash::testing::random_walk_config);
GPUHASH_INSTANTIATE_BUCKETED_CUCKOO_MAP(std::uint32_t, std::uint32_t, gpuhash::cpu_backend,
                                        gpuhash::testing::two_choice_config);

namespace gpuhash::testing {
using cpu_cuckoo_tables = ::testing::Types<
    bucketed_cuckoo_map<std::uint32_t, std::uint32_t, cpu_backend>,
    bucketed_cuckoo_map<std::uint64_t, std::uint64_t, cpu_backend>,
    bucketed_cuckoo_map_with<std::uint32_t, std::uint32_t, cpu_backend, random_walk_config>,
    bucketed_cuckoo_map_with<std::uint32_t, std::uint32_t, cpu_backend, two_choice_config>>;
INSTANTIATE_TYPED_TEST_SUITE_P(bucketed_cuckoo, bucketed_cuckoo, cpu_cuckoo_tables);

// For std::uint32_t and std::uint64_t keys under the default policies, the
// bucket of choice i is hash_family's member i (seeded_hash under the
// member's seed) reduced onto the buckets the choice draws from: the front
// (all buckets but the backyard) for choices 0 and 1, the backyard (the last
// backyard_sixteenths / 16 of them, none below 16 buckets) for the others.
// That is the placement the precompiled tables, the benchmarks' results and
// the tile find rely on. Checked through a table's own view, over random
// seeds, table sizes and keys, through views of 1, 15 and 16 buckets, and
// through a view of 2^40 buckets, where the reduction keeps the hash's
// high bits.
template <class K, std::uint32_t Choices, std::uint32_t BackyardSixteenths>
std::uint64_t expected_bucket(const hash_family<K>& family, K key, std::uint32_t choice,
                              std::uint64_t buckets) {
  static_assert(Choices >= 2);
  const std::uint64_t backyard = buckets < 16 ? 0 : buckets / 16 * BackyardSixteenths;
  const std::uint64_t front = buckets - backyard;
  if (choice < 2 || backyard == 0) return reduce_range(family(key, choice), front);
  return front + reduce_range(family(key, choice), backyard);
}

template <class Table>
void expect_buckets_of_the_hash_family(seeded_random& random) {
  using K = typename Table::key_type;
  using view_type = typename Table::engine_type::view_type;
  using engine_type = typename Table::engine_type;
  constexpr std::uint32_t choices = engine_type::choices;
  const auto expect = [&](const view_type& view, std::uint64_t buckets, std::uint64_t seed) {
    const hash_family<K> family{seed};
    for (int i = 0; i < 1000; ++i) {
      const auto key = static_cast<K>(random.next());
      for (std::uint32_t choice = 0; choice < choices; ++choice)
        ASSERT_EQ(view.bucket_index(key, choice),
                  (expected_bucket<K, choices, engine_type::backyard_sixteenths>(family, key,
                                                                                 choice, buckets)))
            << "buckets " << buckets << ", choice " << choice << ", seed " << seed;
    }
  };
  for (int round = 0; round < 20; ++round) {
    const std::uint64_t seed = random.next();
    Table table(table_options{1 + random.below(1 << 16), 0.0f, seed});
    expect(table.engine().view(), table.capacity() / view_type::slots_per_bucket, seed);
    for (const std::uint64_t buckets :
         {std::uint64_t{1}, std::uint64_t{15}, std::uint64_t{16}, std::uint64_t{1} << 40})
      expect(view_type(nullptr, buckets, seed), buckets, seed);
  }
}

// The default's backyard in numbers: 3/16 of the buckets in whole
// sixteenths, none below 16 buckets; choices 2 and 3 of every key land in
// it, choices 0 and 1 before it.
TEST(bucketed_cuckoo_hash, the_default_backyard_is_three_sixteenths_of_the_buckets) {
  using view_type = bucketed_cuckoo_map<std::uint32_t, std::uint32_t>::engine_type::view_type;
  const std::pair<std::uint64_t, std::uint64_t> sizes[] = {
      {1, 0}, {15, 0}, {16, 3}, {31, 3}, {32, 6}, {1000, 186}, {std::uint64_t{1} << 24, 3 << 20}};
  seeded_random random;
  for (const auto& [buckets, backyard] : sizes) {
    ASSERT_EQ(view_type::backyard_buckets(buckets), backyard) << buckets << " buckets";
    const view_type view(nullptr, buckets, random.next());
    for (int i = 0; i < 1000; ++i) {
      const auto key = static_cast<std::uint32_t>(random.next());
      for (std::uint32_t choice = 0; choice < 4; ++choice) {
        const std::uint64_t bucket = view.bucket_index(key, choice);
        ASSERT_LT(bucket, buckets);
        if (backyard != 0) {
          ASSERT_EQ(bucket >= buckets - backyard, choice >= 2)
              << buckets << " buckets, choice " << choice;
        }
      }
    }
  }
}

TEST(bucketed_cuckoo_hash, integer_keys_take_the_buckets_of_the_hash_family) {
  seeded_random random;
  expect_buckets_of_the_hash_family<bucketed_cuckoo_map<std::uint32_t, std::uint32_t>>(random);
  expect_buckets_of_the_hash_family<bucketed_cuckoo_map<std::uint64_t, std::uint64_t>>(random);
  expect_buckets_of_the_hash_family<
      bucketed_cuckoo_map_with<std::uint32_t, std::uint32_t, cpu_backend, two_choice_config>>(
      random);
}
}  // namespace gpuhash::testing
