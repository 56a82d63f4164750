// The index port (index/index_port.hpp) over the CPU index, with its
// statuses given at once and one batch late (index_doubles.hpp): the finds'
// locations, the settled inserts and erases with their entries, the move to
// the CPU after a failure, and the counts for `stats`.

#include "index/index_port.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "index/index_factory.hpp"
#include "index_doubles.hpp"

namespace gpuhash::server::index {
namespace {

constexpr std::uint64_t seed = 0x5eed;

std::unique_ptr<index_port> cpu_port(bool late_statuses) {
  return test_doubles::cpu_index_factory(seed, late_statuses)(0);
}

std::vector<location_type> found(const index_port& port, std::size_t n) {
  std::vector<location_type> locations;
  for (std::size_t k = 0; k < port.match_count(n); ++k) locations.push_back(port.match(n, k));
  std::sort(locations.begin(), locations.end());
  return locations;
}

class IndexPort : public ::testing::TestWithParam<bool> {};
std::string statuses_name(const ::testing::TestParamInfo<bool>& param) {
  return param.param ? "StatusesLate" : "StatusesAtOnce";
}
INSTANTIATE_TEST_SUITE_P(, IndexPort, ::testing::Bool(), statuses_name);

TEST_P(IndexPort, FindsWhatWasInsertedAndSettlesEachChangeWithItsEntry) {
  const bool late = GetParam();
  const auto port = cpu_port(late);
  const signature_type a = port->signature("a");
  const signature_type b = port->signature("b");
  EXPECT_NE(a, 0u);
  port->clear();
  port->insert(a, 7);
  port->insert(b, 8);
  port->run(nullptr);
  // Given late, this batch's statuses come with the next batch that has
  // inserts or erases.
  EXPECT_EQ(port->settled().size(), late ? 0u : 2u);
  port->clear();
  port->find(a);
  port->find(b);
  port->erase(a, 7);
  port->run(nullptr);
  EXPECT_EQ(port->finds(), 2u);
  EXPECT_EQ(found(*port, 0), std::vector<location_type>{7});
  EXPECT_EQ(found(*port, 1), std::vector<location_type>{8});
  const settled_changes settled = port->settled();
  ASSERT_EQ(settled.size(), late ? 2u : 1u);
  if (late) {
    EXPECT_EQ(settled.change(0).op, operation::insert);
    EXPECT_EQ(settled.change(0).signature, a);
    EXPECT_EQ(settled.change(0).location, 7u);
    EXPECT_EQ(settled.status_of(0), status::inserted);
    EXPECT_EQ(settled.change(1).location, 8u);
  } else {
    EXPECT_EQ(settled.change(0).op, operation::erase);
    EXPECT_EQ(settled.status_of(0), status::erased);
  }
  const index_numbers numbers = port->numbers();
  EXPECT_EQ(numbers.batches, 2u);
  EXPECT_EQ(numbers.operations, 5u);
  EXPECT_EQ(numbers.max_operations, 3u);
  port->reset_counts();
  EXPECT_EQ(port->numbers().batches, 0u);
}

TEST_P(IndexPort, AnIndexOnTheCpuNeedsNoUpkeep) {
  const auto port = cpu_port(GetParam());
  EXPECT_FALSE(port->upkeep_at().has_value());
  EXPECT_FALSE(port->on_device());
  EXPECT_EQ(port->has_wait(), GetParam());  // the late one waits as a device would
}

TEST(IndexPortFailover, MovesToTheCpuWithTheEntriesGivenAndAnswersTheFailedFinds) {
  auto port = std::make_unique<index_port>(
      test_doubles::make_failing_index(make_cpu_index(initial_capacity, seed), 1), seed);
  const signature_type a = port->signature("a");
  port->clear();
  port->find(a);
  port->insert(a, 1);
  EXPECT_THROW(port->run(nullptr), std::runtime_error);
  EXPECT_EQ(port->numbers().batches, 1u);  // a failed batch counts too
  // Seventeen entries under one signature: the CPU index takes sixteen.
  std::vector<entry_change> entries;
  for (location_type where = 10; where < 27; ++where)
    entries.push_back({operation::insert, a, where});
  const std::vector<entry_change> refused = port->move_to_cpu(entries);
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(port->description(), "cpu");
  EXPECT_EQ(port->match_count(0), max_matches);  // the failed batch's find, answered
  EXPECT_EQ(port->settled().size(), 0u);
}

}  // namespace
}  // namespace gpuhash::server::index
