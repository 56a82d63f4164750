// A shard's queue of groups (engine/shard/group_queue.hpp): first in, first
// out, whatever the interleaving of pushes and pops, against std::deque.

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <deque>
#include <random>
#include <vector>

#include "engine/request_group.hpp"
#include "engine/shard/group_queue.hpp"

namespace gpuhash::server::engine {
namespace {

TEST(group_queue, is_first_in_first_out_against_a_deque) {
  std::array<request_group, 8> groups;
  const std::uint64_t seed = std::random_device{}();
  std::mt19937_64 random(seed);
  group_queue queue;
  std::deque<request_group*> model;
  for (int step = 0; step < 20000; ++step) {
    if (random() % 3 != 0) {
      // a submit of 1 to 3 groups
      std::vector<request_group*> submitted;
      for (std::size_t n = 1 + random() % 3; n > 0; --n)
        submitted.push_back(&groups[random() % groups.size()]);
      queue.push(submitted);
      model.insert(model.end(), submitted.begin(), submitted.end());
    } else {
      // a batch takes some or all
      for (std::size_t n = random() % 5; n > 0 && !model.empty(); --n) {
        ASSERT_EQ(queue.front(), model.front()) << "seed " << seed << ", step " << step;
        queue.pop_front();
        model.pop_front();
      }
    }
    ASSERT_EQ(queue.size(), model.size()) << "seed " << seed << ", step " << step;
    ASSERT_EQ(queue.empty(), model.empty());
  }
}

TEST(group_queue, empties_and_fills_again) {
  request_group first;
  request_group second;
  group_queue queue;
  EXPECT_TRUE(queue.empty());
  for (int round = 0; round < 3; ++round) {
    request_group* const both[] = {&first, &second};
    queue.push(both);
    EXPECT_EQ(queue.size(), 2u);
    EXPECT_EQ(queue.front(), &first);
    queue.pop_front();
    EXPECT_EQ(queue.front(), &second);
    queue.pop_front();
    EXPECT_TRUE(queue.empty());
  }
}

}  // namespace
}  // namespace gpuhash::server::engine
