// --index=auto's rule (index/placement_rule.hpp) on synthetic load streams:
// windows of batches as a shard measures them, on the GPU index and on the
// CPU index, with the clock the rule is given; and the start-up calibration
// of the CPU index's cost of a key (index/cpu_calibration.hpp).

#include "index/placement_rule.hpp"

#include <gtest/gtest.h>

#include "index/cpu_calibration.hpp"

#include <cstdint>
#include <string>

namespace gpuhash::server::index {
namespace {

using verdict = placement_decision::verdict;

constexpr std::uint64_t second = 1'000'000'000;

/// The rule's defaults: 1 s windows, 64 batches, a margin of 1.25, three
/// windows in a row, a dwell of 10 s (up to 320 s).
const placement_rule_settings settings;

/// The CPU index's cost of a key, the same at every size.
key_cost_curve flat_cost(double ns_per_key) {
  key_cost_curve curve;
  curve.add(1 << 12, ns_per_key);
  return curve;
}

/// A second on the GPU index: `batches` batches of `keys_per_batch` keys,
/// each polled `round_trip_ns` for its answer and `group_poll_ns` for the
/// groups of the next.
load_window on_gpu(std::uint64_t batches, std::uint64_t keys_per_batch, std::uint64_t round_trip_ns,
                   std::uint64_t group_poll_ns = 0, std::size_t entries = 100'000) {
  load_window window;
  window.wall_ns = second;
  window.batches = batches;
  window.keys = batches * keys_per_batch;
  window.groups = batches;
  window.index_ns = batches * round_trip_ns;
  window.poll_ns = batches * group_poll_ns;
  window.busy_ns = batches * round_trip_ns;
  window.entries = entries;
  return window;
}

/// A second on the CPU index: `groups` groups of `keys_per_group` keys, in
/// batches of `groups_per_batch` groups, each key costing `ns_per_key` in
/// the index and `work_ns_per_key` outside it.
load_window on_cpu(std::uint64_t groups, std::uint64_t keys_per_group, double ns_per_key,
                   std::uint64_t groups_per_batch = 1, double work_ns_per_key = 0,
                   std::size_t entries = 100'000) {
  load_window window;
  window.wall_ns = second;
  window.groups = groups;
  window.batches = groups / groups_per_batch;
  window.keys = groups * keys_per_group;
  window.index_ns = static_cast<std::uint64_t>(static_cast<double>(window.keys) * ns_per_key);
  window.busy_ns = window.index_ns +
                   static_cast<std::uint64_t>(static_cast<double>(window.keys) * work_ns_per_key);
  window.entries = entries;
  return window;
}

/// The rule fed one window after another, a second apart, moving the index
/// whenever it says so.
class load_stream {
 public:
  explicit load_stream(placement_rule& rule) : rule_(rule) {}

  placement_decision feed(const load_window& window) {
    now_ += window.wall_ns;
    const placement_decision decision = rule_.judge(window, now_);
    if (decision.what == verdict::move)
      rule_.moved(rule_.site() == index_site::cpu ? index_site::gpu : index_site::cpu, now_);
    return decision;
  }
  /// Feeds `window` until the rule moves the index (at most `most` times);
  /// how many windows that took (0: it never moved).
  int windows_to_move(const load_window& window, int most) {
    for (int n = 1; n <= most; ++n)
      if (feed(window).what == verdict::move) return n;
    return 0;
  }
  std::uint64_t now() const noexcept { return now_; }

 private:
  placement_rule& rule_;
  std::uint64_t now_ = 0;
};

// ---- the CPU index's cost of a key, by size ---------------------------------------------

TEST(KeyCostCurve, IsReadLinearlyInTheLogOfTheEntriesAndFlatBeyondItsPoints) {
  key_cost_curve curve;
  EXPECT_EQ(curve.at(1000), 0.0);  // no points: unknown
  curve.add(1 << 10, 50);
  curve.add(1 << 20, 200);
  EXPECT_DOUBLE_EQ(curve.at(1 << 10), 50);
  EXPECT_DOUBLE_EQ(curve.at(1 << 15), 125);  // halfway in log2
  EXPECT_DOUBLE_EQ(curve.at(1 << 20), 200);
  EXPECT_DOUBLE_EQ(curve.at(10), 50);
  EXPECT_DOUBLE_EQ(curve.at(1 << 24), 200);
}

TEST(CpuCalibration, TimesTheCpuIndexAtEachPowerOfFourUpToTheLargestSize) {
  const key_cost_curve curve = calibrate_cpu_index(std::size_t{1} << 15);
  ASSERT_EQ(curve.points().size(), 3u);
  EXPECT_EQ(curve.points()[0].first, calibration_least_entries);
  EXPECT_EQ(curve.points()[1].first, calibration_least_entries * 4);
  EXPECT_EQ(curve.points()[2].first, std::size_t{1} << 15);
  for (const auto& [entries, ns_per_key] : curve.points()) {
    EXPECT_GT(ns_per_key, 0.0) << entries;
    EXPECT_LT(ns_per_key, 100'000.0) << entries;  // a find, not a millisecond
  }
  // sizes past the bounds are taken to them
  EXPECT_EQ(calibrate_cpu_index(10).points().size(), 1u);
}

TEST(PlacementRule, AKeyMeasuredOnTheCpuFollowsTheCalibratedCurveToOtherSizes) {
  key_cost_curve curve;
  curve.add(1 << 10, 50);
  curve.add(1 << 20, 200);
  placement_rule rule(settings, curve, index_site::cpu);
  EXPECT_DOUBLE_EQ(rule.cpu_ns_per_key(1 << 20), 200);  // the calibration, until measured
  load_stream stream(rule);
  stream.feed(on_cpu(10'000, 1, 100, 1, 0, 1 << 10));  // twice the calibration at 1 K entries
  EXPECT_DOUBLE_EQ(rule.cpu_ns_per_key(1 << 10), 100);
  EXPECT_DOUBLE_EQ(rule.cpu_ns_per_key(1 << 20), 400);
}

// ---- from the GPU to the CPU ----------------------------------------------------------------

TEST(PlacementRule, SmallBatchesOnTheGpuMoveToTheCpuAfterThreeWindows) {
  // get90's shape: about a dozen keys a batch, a 9.5 us round trip and a
  // few microseconds' poll for groups: the GPU index polls 0.7 of a core
  // where the CPU index would spend 0.06 on lookups.
  placement_rule rule(settings, flat_cost(100), index_site::gpu);
  load_stream stream(rule);
  const load_window small = on_gpu(50'000, 12, 9'500, 5'000);
  const placement_decision first = stream.feed(small);
  EXPECT_EQ(first.what, verdict::leaning);
  EXPECT_DOUBLE_EQ(first.gpu_ns_per_s, 50'000 * 14'500.0);
  EXPECT_DOUBLE_EQ(first.cpu_ns_per_s, 600'000 * 100.0);
  EXPECT_DOUBLE_EQ(first.keys_per_batch, 12);
  EXPECT_DOUBLE_EQ(first.gpu_ns_per_batch, 14'500);
  EXPECT_EQ(stream.feed(small).what, verdict::leaning);
  EXPECT_EQ(stream.feed(small).what, verdict::move);  // no dwell before the first move
  EXPECT_EQ(rule.site(), index_site::cpu);
}

TEST(PlacementRule, LargeBatchesStayOnTheGpu) {
  // Multi-gets over a table too large for the caches: 2,000 keys a batch
  // at 250 ns each on the CPU, against a 30 us round trip.
  placement_rule rule(settings, flat_cost(250), index_site::gpu);
  load_stream stream(rule);
  const load_window large = on_gpu(2'000, 2'000, 30'000);
  for (int n = 0; n < 100; ++n) EXPECT_EQ(stream.feed(large).what, verdict::stay) << n;
}

TEST(PlacementRule, CostsWithinTheMarginStayWhereTheyAre) {
  // The CPU would cost 0.9 of what the GPU polls: less, but not by 1.25.
  placement_rule rule(settings, flat_cost(90), index_site::gpu);
  load_stream stream(rule);
  const load_window close = on_gpu(10'000, 100, 10'000);  // 0.1 s polled; 1M keys x 90 ns
  for (int n = 0; n < 20; ++n) EXPECT_EQ(stream.feed(close).what, verdict::stay) << n;
}

TEST(PlacementRule, WithoutTheCpusCostOfAKeyTheIndexStaysOnTheGpu) {
  placement_rule rule(settings, key_cost_curve{}, index_site::gpu);
  load_stream stream(rule);
  for (int n = 0; n < 10; ++n) {
    const placement_decision decision = stream.feed(on_gpu(50'000, 1, 10'000));
    EXPECT_EQ(decision.what, verdict::stay) << n;
    EXPECT_EQ(decision.cpu_ns_per_key, 0.0);
  }
}

// ---- windows that are no evidence ------------------------------------------------------

TEST(PlacementRule, IdleWindowsNeitherCountNorBreakAStreak) {
  placement_rule rule(settings, flat_cost(100), index_site::gpu);
  load_stream stream(rule);
  const load_window small = on_gpu(50'000, 12, 9'500);
  const load_window idle = on_gpu(63, 1, 9'500);  // under 64 batches
  EXPECT_EQ(stream.feed(small).what, verdict::leaning);
  for (int n = 0; n < 5; ++n) EXPECT_EQ(stream.feed(idle).what, verdict::idle);
  EXPECT_EQ(stream.feed(small).what, verdict::leaning);
  EXPECT_EQ(stream.feed(idle).what, verdict::idle);
  EXPECT_EQ(stream.feed(small).what, verdict::move);
}

TEST(PlacementRule, AWindowThatDisagreesStartsTheStreakAgain) {
  placement_rule rule(settings, flat_cost(100), index_site::gpu);
  load_stream stream(rule);
  const load_window small = on_gpu(50'000, 12, 9'500);
  const load_window large = on_gpu(2'000, 2'000, 30'000);
  EXPECT_EQ(stream.feed(small).what, verdict::leaning);
  EXPECT_EQ(stream.feed(small).what, verdict::leaning);
  EXPECT_EQ(stream.feed(large).what, verdict::stay);
  EXPECT_EQ(stream.windows_to_move(small, 10), 3);
}

TEST(PlacementRule, TheWindowAfterAMoveIsNoEvidence) {
  placement_rule rule(settings, flat_cost(100), index_site::gpu);
  load_stream stream(rule);
  ASSERT_EQ(stream.windows_to_move(on_gpu(50'000, 12, 9'500), 3), 3);
  EXPECT_EQ(stream.feed(on_cpu(100'000, 6, 100)).what, verdict::idle);
  EXPECT_NE(stream.feed(on_cpu(100'000, 6, 100)).what, verdict::idle);
}

// ---- on the CPU ------------------------------------------------------------------------

TEST(PlacementRule, TheLoadThatMovedTheIndexToTheCpuKeepsItThere) {
  placement_rule rule(settings, flat_cost(100), index_site::gpu);
  load_stream stream(rule);
  ASSERT_EQ(stream.windows_to_move(on_gpu(50'000, 12, 9'500, 5'000), 3), 3);
  // The same load on the CPU: 100,000 groups of 6 keys a second, at 100 ns a
  // key in the index and 400 ns outside it. Each group would cost the GPU up
  // to 14.5 us of polls, bounded by the 0.76 s the work leaves its thread.
  const load_window same = on_cpu(100'000, 6, 100, 2, 400);
  stream.feed(same);  // (the window after the move)
  for (int n = 0; n < 100; ++n) {
    const placement_decision decision = stream.feed(same);
    ASSERT_EQ(decision.what, verdict::stay) << n;
    EXPECT_DOUBLE_EQ(decision.cpu_ns_per_s, 600'000 * 100.0);
    EXPECT_DOUBLE_EQ(decision.gpu_ns_per_s, second - 600'000 * 400.0);
    EXPECT_DOUBLE_EQ(decision.cpu_ns_per_key, 100);
  }
}

TEST(PlacementRule, LookupsThatOutgrowThePollsMoveBackToTheGpuOnceTheDwellIsOver) {
  placement_rule rule(settings, flat_cost(100), index_site::gpu);
  load_stream stream(rule);
  ASSERT_EQ(stream.windows_to_move(on_gpu(50'000, 12, 9'500, 5'000), 3), 3);
  const std::uint64_t moved_at = stream.now();
  // Then multi-gets of 1,000 keys at 300 ns each: 0.6 s of lookups a second,
  // where 2,000 batches on the GPU would poll 0.03 s.
  const load_window heavy = on_cpu(2'000, 1'000, 300, 1, 100);
  EXPECT_EQ(stream.feed(heavy).what, verdict::idle);  // (the window after the move)
  int windows = 1;
  placement_decision decision;
  do {
    decision = stream.feed(heavy);
    ++windows;
    if (decision.what != verdict::move) {
      EXPECT_EQ(decision.what, verdict::leaning);
    }
  } while (decision.what != verdict::move && windows < 100);
  EXPECT_EQ(decision.what, verdict::move);
  EXPECT_EQ(stream.now() - moved_at, settings.dwell_ns);  // not a window sooner
  EXPECT_DOUBLE_EQ(decision.gpu_ns_per_s, 2'000 * 14'500.0);
  EXPECT_EQ(rule.site(), index_site::gpu);
}

TEST(PlacementRule, TheGpusPollsAreBoundedByWhatTheBatchesWorkLeavesItsThread) {
  placement_rule rule(settings, flat_cost(100), index_site::gpu);
  load_stream stream(rule);
  ASSERT_EQ(stream.windows_to_move(on_gpu(50'000, 12, 9'500, 5'000), 3), 3);
  stream.feed(on_cpu(100'000, 1, 100));
  // The batches' own work takes 0.9 s of each second: polls would fit in 0.1 s.
  const placement_decision decision = stream.feed(on_cpu(100'000, 1, 100, 1, 9'000));
  EXPECT_DOUBLE_EQ(decision.gpu_ns_per_s, 0.1 * second);
}

TEST(PlacementRule, WithoutAMeasureOfTheGpuTheIndexStaysOnTheCpu) {
  placement_rule rule(settings, flat_cost(100), index_site::cpu);
  load_stream stream(rule);
  for (int n = 0; n < 10; ++n) {
    const placement_decision decision = stream.feed(on_cpu(2'000, 1'000, 300));
    EXPECT_EQ(decision.what, verdict::stay) << n;
    EXPECT_EQ(decision.gpu_ns_per_s, 0.0);
  }
}

TEST(PlacementRule, ALostDeviceIsNeverChosenAgain) {
  placement_rule rule(settings, flat_cost(100), index_site::gpu);
  load_stream stream(rule);
  ASSERT_EQ(stream.windows_to_move(on_gpu(50'000, 12, 9'500), 3), 3);
  rule.device_lost();
  stream.feed(on_cpu(2'000, 1'000, 300));
  for (int n = 0; n < 50; ++n)
    EXPECT_EQ(stream.feed(on_cpu(2'000, 1'000, 300)).what, verdict::stay) << n;
}

// ---- the dwell ---------------------------------------------------------------------------

TEST(PlacementRule, MovesThatFollowEachOtherSoonDoubleTheDwellUpToTheLongest) {
  placement_rule rule(settings, flat_cost(100), index_site::gpu);
  EXPECT_EQ(rule.dwell_ns(), 10 * second);
  rule.moved(index_site::cpu, 5 * second);  // the first move
  EXPECT_EQ(rule.dwell_ns(), 10 * second);
  rule.moved(index_site::gpu, 20 * second);  // within two dwells of it
  EXPECT_EQ(rule.dwell_ns(), 20 * second);
  rule.moved(index_site::cpu, 45 * second);
  EXPECT_EQ(rule.dwell_ns(), 40 * second);
  std::uint64_t now = 45 * second;
  for (int n = 0; n < 5; ++n) {
    now += rule.dwell_ns();
    rule.moved(n % 2 == 0 ? index_site::gpu : index_site::cpu, now);
  }
  EXPECT_EQ(rule.dwell_ns(), settings.longest_dwell_ns);
  // A move long after the last sets it back.
  now += 2 * rule.dwell_ns();
  rule.moved(index_site::gpu, now);
  EXPECT_EQ(rule.dwell_ns(), settings.dwell_ns);
}

TEST(PlacementRule, ALoadThatSwingsAcrossTheBreakEvenMovesLessAndLessOften) {
  // Ten seconds of small batches, ten of large multi-gets, and again: each
  // move waits out a dwell that doubles while the moves keep coming.
  placement_rule rule(settings, flat_cost(300), index_site::gpu);
  load_stream stream(rule);
  const load_window small_on_gpu = on_gpu(50'000, 12, 9'500, 5'000);
  const load_window small_on_cpu = on_cpu(100'000, 6, 300, 2, 400);
  const load_window heavy_on_gpu = on_gpu(2'000, 1'000, 20'000);
  const load_window heavy_on_cpu = on_cpu(2'000, 1'000, 300, 1, 100);
  int moves = 0;
  for (int second_of_load = 0; second_of_load < 600; ++second_of_load) {
    const bool heavy = (second_of_load / 10) % 2 == 1;
    const bool on_the_gpu = rule.site() == index_site::gpu;
    const load_window& window = heavy ? (on_the_gpu ? heavy_on_gpu : heavy_on_cpu)
                                      : (on_the_gpu ? small_on_gpu : small_on_cpu);
    if (stream.feed(window).what == verdict::move) ++moves;
  }
  EXPECT_GE(moves, 2);
  EXPECT_LE(moves, 8);  // against 60 swings of the load
}

TEST(PlacementRule, ADecisionSaysWhatItCompared) {
  placement_rule rule(settings, flat_cost(100), index_site::gpu);
  load_stream stream(rule);
  const std::string told = stream.feed(on_gpu(50'000, 12, 9'500, 5'000)).explain();
  EXPECT_NE(told.find("the GPU index polls 725.0 ms a second (14.5 us a batch of 12.0 keys)"),
            std::string::npos)
      << told;
  EXPECT_NE(told.find("the CPU index would take 60.0 ms a second (100 ns a key)"),
            std::string::npos)
      << told;
}

}  // namespace
}  // namespace gpuhash::server::index
