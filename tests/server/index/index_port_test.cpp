// The index port (index/index_port.hpp) over the CPU index, with its
// statuses given at once and one batch late (index_doubles.hpp): the finds'
// locations, the settled inserts and erases with their entries, the move to
// the CPU after a failure, the moves of --index=auto between the CPU and a
// (pretend) device, and the counts for `stats`.

#include "index/index_port.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuhash/signature_index.hpp"
#include "index/index_factory.hpp"
#include "index_doubles.hpp"

namespace gpuhash::server::index {
namespace {

constexpr std::uint64_t seed = 0x5eed;

std::unique_ptr<index_port> cpu_port(bool late_statuses) {
  return test_doubles::cpu_index_factory(seed, late_statuses)(0);
}

/// A key's signature, as the port's caller hashes it.
signature_type signature(std::string_view key) {
  static const signature_index<> hasher(index_options{.seed = seed});
  return hasher.signature(key);
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
  const signature_type a = signature("a");
  const signature_type b = signature("b");
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
  const signature_type a = signature("a");
  port->clear();
  port->find(a);
  port->insert(a, 1);
  EXPECT_THROW(port->run(nullptr), std::runtime_error);
  EXPECT_EQ(port->numbers().batches, 1u);  // a failed batch counts too
  // Seventeen entries under one signature: the CPU index takes sixteen.
  std::vector<entry_change> entries;
  for (location_type where = 10; where < 27; ++where)
    entries.push_back({operation::insert, a, where});
  const std::vector<entry_change> refused = port->move_to_cpu(entries, true);
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(port->description(), "cpu");
  EXPECT_EQ(port->match_count(0), max_matches);  // the failed batch's find, answered
  EXPECT_EQ(port->settled().size(), 0u);
}

// ---- moves between the CPU and a device (--index=auto) ---------------------------

/// A port on the CPU under `seed` that moves to a pretend device (the CPU
/// index saying it is on one, its statuses late) when asked; its policy
/// wants no move of its own.
std::unique_ptr<index_port> movable_port(device_index_maker make_device) {
  automatic_placement moving;
  moving.make_device = std::move(make_device);
  moving.policy = test_doubles::make_alternating_policy(index_site::cpu, 1, 0);
  return std::make_unique<index_port>(make_cpu_index(initial_capacity, seed), seed,
                                      std::move(moving));
}

/// `count` entries under distinct signatures, then seventeen under the
/// signature of "crowded" (the index takes sixteen).
std::vector<entry_change> entries_with_one_too_many(std::size_t count) {
  std::vector<entry_change> entries;
  for (location_type where = 0; where < count; ++where)
    entries.push_back({operation::insert, signature("k" + std::to_string(where)), where});
  for (location_type where = 0; where < 17; ++where)
    entries.push_back(
        {operation::insert, signature("crowded"), static_cast<location_type>(count + where)});
  return entries;
}

TEST(IndexPortMoves, ToADeviceAndBackEveryEntryMovesAndTheFindsAreAnswered) {
  const auto port = movable_port(test_doubles::make_pretend_device_index);
  ASSERT_TRUE(port->moves_by_load());
  ASSERT_TRUE(port->may_move_to_device());
  // More entries than one batch of a rebuild takes: the device's statuses
  // of each part come with the next (the last part's with an empty batch).
  const std::vector<entry_change> entries = entries_with_one_too_many(70'000);
  const signature_type crowded = signature("crowded");
  const signature_type last = signature("k69999");
  port->clear();
  port->find(crowded);
  port->find(last);
  port->insert(signature("not moved"), 1);  // the linked items' entries hold the batch's
  const std::vector<entry_change> refused = port->move_to_device(entries);
  EXPECT_TRUE(port->on_device());
  EXPECT_EQ(port->description(), "pretend device");
  EXPECT_EQ(port->match_count(0), max_matches);
  EXPECT_EQ(found(*port, 1), std::vector<location_type>{69'999});
  EXPECT_EQ(refused.size(), 1u);  // every part's statuses in, the last one's too
  EXPECT_EQ(port->settled().size(), 0u);
  EXPECT_EQ(port->numbers().entries, 70'016u);

  std::vector<entry_change> held;
  for (const entry_change& entry : entries)
    if (entry.signature != crowded || entry.location < 70'016) held.push_back(entry);
  port->clear();
  port->find(last);
  EXPECT_TRUE(port->move_to_cpu(held, false).empty());
  EXPECT_FALSE(port->on_device());
  EXPECT_EQ(port->description(), "cpu");
  EXPECT_EQ(found(*port, 0), std::vector<location_type>{69'999});
  EXPECT_EQ(port->settled().size(), 0u);
  const index_numbers numbers = port->numbers();
  EXPECT_EQ(numbers.entries, 70'016u);
  EXPECT_EQ(numbers.placement.moves_to_gpu, 1u);
  EXPECT_EQ(numbers.placement.moves_to_cpu, 1u);
  EXPECT_EQ(numbers.on_device, 0u);
  EXPECT_TRUE(port->may_move_to_device());  // a move by the load keeps the device
}

TEST(IndexPortMoves, AMoveWithNoFindsIsWholeAtOnce) {
  // A device gives statuses and counts entries a batch late; the move asks
  // for them with an empty batch, so its refusals and its entries are known
  // before the next batch (as with finds to answer).
  const auto port = movable_port(test_doubles::make_pretend_device_index);
  const std::vector<entry_change> entries = entries_with_one_too_many(10);
  port->clear();
  const std::vector<entry_change> refused = port->move_to_device(entries);
  EXPECT_TRUE(port->on_device());
  ASSERT_EQ(refused.size(), 1u);  // the seventeenth entry under one signature
  EXPECT_EQ(port->settled().size(), 0u);
  EXPECT_EQ(port->numbers().entries, entries.size() - 1);
  port->clear();
  port->find(signature("k3"));
  port->run(nullptr);
  EXPECT_EQ(port->settled().size(), 0u);
  EXPECT_EQ(found(*port, 0), std::vector<location_type>{3});
}

TEST(IndexPortMoves, ADeviceThatCannotBeHadLeavesThePortAsItWas) {
  const auto port = movable_port([](std::size_t, std::uint64_t) -> std::unique_ptr<index_service> {
    throw std::runtime_error("no device here");
  });
  const signature_type a = signature("a");
  port->clear();
  port->insert(a, 5);
  port->run(nullptr);
  port->clear();
  port->find(a);
  port->insert(signature("b"), 6);
  EXPECT_THROW(port->move_to_device({}), std::runtime_error);
  port->device_unusable();
  EXPECT_FALSE(port->may_move_to_device());
  EXPECT_EQ(port->wanted_move(), std::nullopt);
  port->run(nullptr);  // the batch runs where the index is, as it was queued
  EXPECT_EQ(found(*port, 0), std::vector<location_type>{5});
  EXPECT_EQ(port->settled().size(), 1u);
  EXPECT_EQ(port->numbers().entries, 2u);
}

TEST(IndexPortMoves, ADeviceThatFailsOnTheMovesFindsSendsTheIndexBackToTheCpu) {
  // Filled by its first two batches (the rebuild, then the empty one that
  // settles it), the device index fails on its third, the batch's finds,
  // once it has taken the service's place.
  const auto port = movable_port([](std::size_t capacity, std::uint64_t s) {
    return test_doubles::make_failing_index(test_doubles::make_pretend_device_index(capacity, s),
                                            3);
  });
  const std::vector<entry_change> entries = entries_with_one_too_many(10);
  port->clear();
  port->find(signature("k3"));
  const std::vector<entry_change> refused = port->move_to_device(entries);
  EXPECT_FALSE(port->on_device());
  EXPECT_EQ(port->description(), "cpu");
  EXPECT_EQ(refused.size(), 1u);  // the CPU rebuild's seventeenth entry under one signature
  EXPECT_EQ(found(*port, 0), std::vector<location_type>{3});
  EXPECT_FALSE(port->may_move_to_device());
  EXPECT_EQ(port->wanted_move(), std::nullopt);
  EXPECT_EQ(port->numbers().placement.moves_to_gpu, 0u);
  EXPECT_EQ(port->numbers().entries, 26u);
}

TEST(IndexPortMoves, AFailedDeviceIsNeverUsedAgain) {
  const auto port = movable_port(test_doubles::make_pretend_device_index);
  port->clear();
  port->move_to_cpu({}, true);
  EXPECT_FALSE(port->may_move_to_device());
  EXPECT_THROW(port->move_to_device({}), std::logic_error);
}

TEST(IndexPortMoves, ThePolicyIsAskedBeforeEachBatch) {
  automatic_placement moving;
  moving.make_device = test_doubles::make_pretend_device_index;
  moving.policy = test_doubles::make_alternating_policy(index_site::cpu, 2);
  const auto port =
      std::make_unique<index_port>(make_cpu_index(initial_capacity, seed), seed, std::move(moving));
  EXPECT_EQ(port->wanted_move(), std::nullopt);
  EXPECT_EQ(port->wanted_move(), index_site::gpu);
  port->clear();
  port->move_to_device({});
  EXPECT_EQ(port->wanted_move(), std::nullopt);
  EXPECT_EQ(port->wanted_move(), index_site::cpu);
}

TEST(IndexPortMoves, APortWithoutAPolicyNeverMoves) {
  const auto port = cpu_port(false);
  EXPECT_FALSE(port->moves_by_load());
  EXPECT_FALSE(port->may_move_to_device());
  EXPECT_EQ(port->wanted_move(), std::nullopt);
  EXPECT_EQ(port->numbers().placement.windows, 0u);
}

}  // namespace
}  // namespace gpuhash::server::index
