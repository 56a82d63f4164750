// launch_share (detail/launch_share.hpp): the blocks a batch kernel is
// launched with, and the size from which a table runs at its design's share.

#include <gtest/gtest.h>

#include <cstdint>

#include "gpuhash/detail/launch_share.hpp"

namespace gpuhash::testing {
namespace {

using detail::large_table_bytes;
using detail::launch_share;

TEST(launch_share, takes_its_eighths_of_the_resident_blocks) {
  EXPECT_EQ(launch_share{}.of(1056), 1056);
  EXPECT_EQ(launch_share{5}.of(1056), 660);
  EXPECT_EQ(launch_share{4}.of(1056), 528);
  EXPECT_EQ(launch_share{6}.of(1000), 750);
  EXPECT_EQ(launch_share{3}.of(7), 2);  // rounded down
}

TEST(launch_share, never_launches_fewer_than_one_block) {
  EXPECT_EQ(launch_share{1}.of(1), 1);
  EXPECT_EQ(launch_share{4}.of(0), 1);
}

TEST(launch_share, applies_to_tables_of_large_table_bytes_and_more) {
  constexpr launch_share share{5};
  EXPECT_EQ(share.for_table(large_table_bytes).eighths, 5U);
  EXPECT_EQ(share.for_table(std::uint64_t{1} << 40).eighths, 5U);
  EXPECT_EQ(share.for_table(large_table_bytes - 1).eighths, 8U);
  EXPECT_EQ(share.for_table(0).eighths, 8U);
  static_assert(launch_share{4}.for_table(large_table_bytes).of(800) == 400);
}

}  // namespace
}  // namespace gpuhash::testing
