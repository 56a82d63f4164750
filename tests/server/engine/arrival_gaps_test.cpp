// Tests of arrival_gaps, which sets how long a shard's batch thread polls for
// groups after a batch: short while arrivals are sparse (a lone client, or a
// shard that starts idle), six mean gaps under a steady load up to the
// longest poll, and back to steady within a few dozen submits after an idle
// spell; submits that lock out of order count as no gap.

#include "engine/shard/arrival_gaps.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace gpuhash::server::engine::testing {
namespace {

constexpr std::uint64_t us = 1000;  // ns

/// Feeds `count` submits `gap_ns` apart, the first at `start_ns`; returns
/// the time of the last.
std::uint64_t feed(arrival_gaps& gaps, std::uint64_t start_ns, std::uint64_t gap_ns, int count) {
  std::uint64_t t = start_ns;
  for (int i = 0; i < count; ++i, t += gap_ns) gaps.arrived(t);
  return t - gap_ns;
}

TEST(ArrivalGaps, AShardStartsIdleAndAFewQuickSubmitsDoNotMakeALoad) {
  arrival_gaps gaps;
  EXPECT_EQ(gaps.mean_gap_ns(), 1'000'000u) << "a shard starts as if idle for 1 ms";
  EXPECT_EQ(gaps.poll_us(), arrival_gaps::short_poll_us);
  gaps.arrived(1 * us);
  gaps.arrived(101 * us);
  // one gap moves the mean by an eighth of the difference, exactly
  EXPECT_EQ(gaps.mean_gap_ns(), 1'000'000u - 125'000u + 12'500u);
  EXPECT_EQ(gaps.poll_us(), arrival_gaps::short_poll_us);
}

TEST(ArrivalGaps, ASteadyLoadIsPolledForSixMeanGaps) {
  arrival_gaps gaps;
  feed(gaps, 1 * us, 30 * us, 200);
  EXPECT_NEAR(static_cast<double>(gaps.mean_gap_ns()), 30.0 * us, 1.0 * us);
  EXPECT_NEAR(static_cast<double>(gaps.poll_us()), 180.0, 6.0);
}

TEST(ArrivalGaps, AVeryBusyShardStillPollsAtLeastTheShortPoll) {
  arrival_gaps gaps;
  feed(gaps, 1 * us, 500, 200);  // 0.5 us apart: six gaps are 3 us
  EXPECT_EQ(gaps.poll_us(), arrival_gaps::short_poll_us);
}

TEST(ArrivalGaps, SparseArrivalsPollShortRatherThanBurnACore) {
  arrival_gaps gaps;
  // 100 us apart: six gaps would be 600 us, past the longest poll
  feed(gaps, 1 * us, 100 * us, 200);
  EXPECT_EQ(gaps.poll_us(), arrival_gaps::short_poll_us);
  // a lone client, 2 ms apart
  feed(gaps, 30'000 * us, 2'000 * us, 50);
  EXPECT_EQ(gaps.poll_us(), arrival_gaps::short_poll_us);
}

TEST(ArrivalGaps, ALoadThatComesBackAfterAnIdleSpellIsSeenAsSteadySoon) {
  arrival_gaps gaps;
  const std::uint64_t last = feed(gaps, 1 * us, 20 * us, 200);
  ASSERT_GT(gaps.poll_us(), arrival_gaps::short_poll_us);
  // an idle minute, then 20 us apart again
  std::uint64_t t = last + 60'000'000 * us;
  gaps.arrived(t);
  EXPECT_EQ(gaps.poll_us(), arrival_gaps::short_poll_us);
  int submits = 0;
  while (gaps.poll_us() == arrival_gaps::short_poll_us && submits < 1000) {
    t += 20 * us;
    gaps.arrived(t);
    ++submits;
  }
  EXPECT_LE(submits, 40) << "an idle minute counts as 1 ms, not a minute";
  EXPECT_GT(submits, 5) << "one short gap after idling is not yet a steady load";
}

TEST(ArrivalGaps, SubmitsThatTookTheLockOutOfOrderCountAsNoGap) {
  arrival_gaps gaps;
  const std::uint64_t t = feed(gaps, 1 * us, 10 * us, 200);
  const std::uint64_t before = gaps.mean_gap_ns();
  gaps.arrived(t - 50 * us);  // read its clock well before the last submit did
  const std::uint64_t after = before - before / 8;  // a gap of 0, not 50 us or a wrap-around
  EXPECT_EQ(gaps.mean_gap_ns(), after);
  gaps.arrived(t + 10 * us);  // measured from the latest time seen, not the earlier one
  EXPECT_EQ(gaps.mean_gap_ns(), after - after / 8 + 10 * us / 8);
}

TEST(ArrivalGaps, MeanGapsOf50UsArePolledForTheLongestPollAnd51UsAreNot) {
  arrival_gaps gaps;
  feed(gaps, 1 * us, 50 * us, 400);
  EXPECT_EQ(gaps.poll_us(), arrival_gaps::longest_poll_us);
  feed(gaps, 30'000 * us, 51 * us, 400);
  EXPECT_EQ(gaps.poll_us(), arrival_gaps::short_poll_us);
}

}  // namespace
}  // namespace gpuhash::server::engine::testing
