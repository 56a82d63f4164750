// Tables of large_table_bytes and more, whose batches run with their
// design's launch share of the GPU's blocks (detail/launch_share.hpp): the
// statuses and values of inserts, repeated inserts, finds of present and
// absent keys and erases against what a map must answer. The designs' other
// tests use tables under that size, which run at full occupancy.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/detail/launch_share.hpp"
#include "gpuhash/gpuhash.hpp"
#include "support/random.hpp"
#include "support/table_helpers.hpp"

namespace gpuhash::testing {
namespace {

template <class Table>
class dram_table : public table_test<Table> {};

using dram_tables =
    ::testing::Types<bucketed_cuckoo_map<std::uint32_t, std::uint32_t, cuda_backend>,
                     dachash_map<std::uint32_t, std::uint32_t, cuda_backend>,
                     linear_probing_map<std::uint32_t, std::uint32_t, cuda_backend>,
                     hashgraph_dynamic_map<std::uint32_t, std::uint32_t, cuda_backend>>;
TYPED_TEST_SUITE(dram_table, dram_tables);

/// The statuses of `statuses` that are not `expected`, as a message.
std::string unexpected(const std::vector<status>& statuses, status expected) {
  return first_failures(
      statuses.size(), [&](std::size_t i) { return statuses[i] == expected; },
      [&](std::size_t i) {
        return "at " + std::to_string(i) + ": " + std::string(to_string(statuses[i]));
      });
}

TYPED_TEST(dram_table, batches_at_the_launch_share_answer_as_a_map) {
  using K = typename TestFixture::key_type;
  using V = typename TestFixture::value_type;
  seeded_random random;
  // 2^25 slots of 8 bytes: 256 MiB, where every design's share applies.
  TypeParam table(table_options{std::size_t{1} << 25, 0.0f, random.next()});
  ASSERT_GE(table.engine().memory_bytes(), detail::large_table_bytes)
      << "the table is too small to run at its launch share";
  const std::size_t n = std::size_t{1} << 22;
  const auto all = distinct_keys<TypeParam>(random, 2 * n);
  const std::vector<K> keys(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n));
  const std::vector<K> absent(all.begin() + static_cast<std::ptrdiff_t>(n), all.end());
  const auto values = random_values<V>(random, n);

  EXPECT_EQ("", unexpected(table.insert(keys, values), status::inserted));
  EXPECT_EQ(table.size(), n);
  const std::vector<K> first_half(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(n / 2));
  const std::vector<V> other_values(n / 2, V{7});
  EXPECT_EQ("", unexpected(table.insert(first_half, other_values), status::exists));
  expect_all_found(table, keys, values);
  EXPECT_EQ("", unexpected(table.find(absent).statuses, status::not_found));

  EXPECT_EQ("", unexpected(table.erase(first_half), status::erased));
  EXPECT_EQ(table.size(), n - n / 2);
  const auto after = table.find(keys);
  EXPECT_EQ("", first_failures(
                    n,
                    [&](std::size_t i) {
                      if (i < n / 2) return after.statuses[i] == status::not_found;
                      return after.statuses[i] == status::found && after.values[i] == values[i];
                    },
                    [&](std::size_t i) {
                      return "key " + std::to_string(keys[i]) + " at " + std::to_string(i) + ": " +
                             std::string(to_string(after.statuses[i]));
                    }));
}

}  // namespace
}  // namespace gpuhash::testing
