#include <cstdint>

#include "bucketed_cuckoo_tests.hpp"
#include "gpuhash/bucketed_cuckoo_map_impl.hpp"
#include "gpuhash/hash.hpp"

namespace gpuhash::testing {
/// The random-walk eviction policy is not compiled into the library (its
/// default is lookahead); its tests compile it here.
using random_walk_config = bucketed_cuckoo_config<32, 2, bucketed_cuckoo_eviction::random_walk>;
/// Four choices, the last two in a backyard of 2/16 of the buckets.
using backyard_config = bucketed_cuckoo_config<32, 4, bucketed_cuckoo_eviction::lookahead,
                                               bucketed_cuckoo_find_path::per_thread, 2>;
}  // namespace gpuhash::testing

GPUHASH_INSTANTIATE_BUCKETED_CUCKOO_MAP(std::uint32_t, std::uint32_t, gpuhash::cpu_backend,
                                        gpuhash::testing::random_walk_config);
GPUHASH_INSTANTIATE_BUCKETED_CUCKOO_MAP(std::uint32_t, std::uint32_t, gpuhash::cpu_backend,
                                        gpuhash::testing::backyard_config);

namespace gpuhash::testing {
using cpu_cuckoo_tables = ::testing::Types<
    bucketed_cuckoo_map<std::uint32_t, std::uint32_t, cpu_backend>,
    bucketed_cuckoo_map<std::uint64_t, std::uint64_t, cpu_backend>,
    bucketed_cuckoo_map_with<std::uint32_t, std::uint32_t, cpu_backend, random_walk_config>,
    bucketed_cuckoo_map_with<std::uint32_t, std::uint32_t, cpu_backend, backyard_config>>;
INSTANTIATE_TYPED_TEST_SUITE_P(bucketed_cuckoo, bucketed_cuckoo, cpu_cuckoo_tables);

// With a backyard, choices 0 and 1 take the hash family's buckets reduced
// onto the front (every bucket but the last 2/16), choices 2 and 3 onto the
// backyard; a table of fewer than 16 buckets has none.
TEST(bucketed_cuckoo_hash, backyard_choices_lie_in_the_last_buckets) {
  using table = bucketed_cuckoo_map_with<std::uint32_t, std::uint32_t, cpu_backend,
                                         backyard_config>;
  using view_type = table::engine_type::view_type;
  seeded_random random;
  for (const std::uint64_t buckets : {std::uint64_t{1}, std::uint64_t{15}, std::uint64_t{16},
                                      std::uint64_t{1000}, std::uint64_t{1} << 40}) {
    const std::uint64_t seed = random.next();
    const view_type view(nullptr, buckets, seed);
    const hash_family<std::uint32_t> family{seed};
    const std::uint64_t backyard = buckets < 16 ? 0 : buckets / 16 * 2;
    const std::uint64_t front = buckets - backyard;
    for (int i = 0; i < 1000; ++i) {
      const auto key = static_cast<std::uint32_t>(random.next());
      for (std::uint32_t choice = 0; choice < 4; ++choice) {
        const std::uint64_t expected =
            choice < 2 || backyard == 0
                ? reduce_range(family(key, choice), front)
                : front + reduce_range(family(key, choice), backyard);
        ASSERT_EQ(view.bucket_index(key, choice), expected)
            << "buckets " << buckets << ", choice " << choice << ", seed " << seed;
      }
    }
  }
}

// For std::uint32_t and std::uint64_t keys under the default policies, the
// bucket of choice i is hash_family's member i (seeded_hash under the
// member's seed) reduced onto the buckets: the placement that the
// precompiled tables, the benchmarks' results and the tile find rely on.
// Checked through a table's own view, over random seeds, table sizes and
// keys, and through a view of 2^40 buckets, where the reduction keeps the
// hash's high bits.
template <class Table>
void expect_buckets_of_the_hash_family(seeded_random& random) {
  using K = typename Table::key_type;
  using view_type = typename Table::engine_type::view_type;
  constexpr std::uint32_t choices = Table::engine_type::choices;
  for (int round = 0; round < 20; ++round) {
    const std::uint64_t seed = random.next();
    Table table(table_options{1 + random.below(1 << 16), 0.0f, seed});
    const std::uint64_t buckets = table.capacity() / view_type::slots_per_bucket;
    const view_type view = table.engine().view();
    const view_type wide_view(nullptr, std::uint64_t{1} << 40, seed);
    const hash_family<K> family{seed};
    for (int i = 0; i < 1000; ++i) {
      const auto key = static_cast<K>(random.next());
      for (std::uint32_t choice = 0; choice < choices; ++choice) {
        ASSERT_EQ(view.bucket_index(key, choice), reduce_range(family(key, choice), buckets));
        ASSERT_EQ(wide_view.bucket_index(key, choice),
                  reduce_range(family(key, choice), std::uint64_t{1} << 40));
      }
    }
  }
}

TEST(bucketed_cuckoo_hash, integer_keys_take_the_buckets_of_the_hash_family) {
  seeded_random random;
  expect_buckets_of_the_hash_family<bucketed_cuckoo_map<std::uint32_t, std::uint32_t>>(random);
  expect_buckets_of_the_hash_family<bucketed_cuckoo_map<std::uint64_t, std::uint64_t>>(random);
}
}  // namespace gpuhash::testing
