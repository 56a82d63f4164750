// The net index changes of a shard's cache (engine/cache/pending_changes.hpp):
// randomized against std::map, with entries that cancel, tables that grow,
// and clears between rounds; the order kept is the order first queued.

#include "engine/cache/pending_changes.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <random>
#include <utility>
#include <vector>

namespace gpuhash::server::engine {
namespace {

std::vector<std::pair<std::uint64_t, int>> listed(const pending_changes& pending) {
  std::vector<std::pair<std::uint64_t, int>> changes;
  pending.for_each([&](std::uint64_t entry, int count) { changes.emplace_back(entry, count); });
  return changes;
}

TEST(pending_changes, AnInsertAndAnEraseOfOneEntryCancel) {
  pending_changes pending;
  EXPECT_TRUE(pending.empty());
  pending.add(7, +1);
  pending.add(9, -1);
  pending.add(7, -1);
  EXPECT_FALSE(pending.empty());
  EXPECT_EQ(listed(pending), (std::vector<std::pair<std::uint64_t, int>>{{9, -1}}));
  pending.add(9, +1);
  EXPECT_TRUE(pending.empty());
  EXPECT_TRUE(listed(pending).empty());
  pending.add(7, +1);  // back after cancelling: in its first place
  pending.add(5, +1);
  EXPECT_EQ(listed(pending), (std::vector<std::pair<std::uint64_t, int>>{{7, 1}, {5, 1}}));
}

// Rounds of random changes over few entries (many cancel) and many (the
// table grows), each checked against a std::map of net changes and against
// the order of first queueing, then cleared.
TEST(pending_changes, KeepsTheNetChangesInTheOrderFirstQueued) {
  const std::uint64_t seed = std::random_device{}();
  std::mt19937_64 random(seed);
  pending_changes pending;
  for (int round = 0; round < 200; ++round) {
    const std::size_t entries = round % 2 == 0 ? 8 : 1 + random() % 5000;
    const std::size_t changes = 1 + random() % (2 * entries);
    std::map<std::uint64_t, int> expected;
    std::vector<std::uint64_t> first_queued;
    for (std::size_t c = 0; c < changes; ++c) {
      // entries as the cache makes them: a signature above a location
      const std::uint64_t entry = (random() % entries) << 32 | (random() % 3);
      const int count = random() % 2 == 0 ? +1 : -1;
      if (expected.find(entry) == expected.end()) first_queued.push_back(entry);
      expected[entry] += count;
      pending.add(entry, count);
    }
    std::vector<std::pair<std::uint64_t, int>> wanted;
    for (const std::uint64_t entry : first_queued)
      if (expected[entry] != 0) wanted.emplace_back(entry, expected[entry]);
    ASSERT_EQ(listed(pending), wanted) << "seed " << seed << ", round " << round;
    ASSERT_EQ(pending.empty(), wanted.empty()) << "seed " << seed << ", round " << round;
    pending.clear();
    ASSERT_TRUE(pending.empty()) << "seed " << seed << ", round " << round;
    ASSERT_TRUE(listed(pending).empty()) << "seed " << seed << ", round " << round;
  }
}

}  // namespace
}  // namespace gpuhash::server::engine
