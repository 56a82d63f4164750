#pragma once
// How long a shard's batch thread polls for groups after a batch, from how
// often groups arrive at the shard (shard/shard.cpp; docs/designs/server.md,
// "Batching policy").

#include <algorithm>
#include <cstdint>

namespace gpuhash::server::engine {

/// The mean gap between a shard's submits (a moving average over about the
/// last eight), and the poll it calls for. Not thread-safe: the shard keeps
/// it under its lock.
///
/// Under a steady load the batch thread polls for six mean gaps, so that it
/// seldom sleeps (for arrivals at random, a gap that long comes once in
/// about 400) and a submitter seldom finds the shard idle and runs its
/// groups on its own thread. Such a run costs that worker a GPU round trip,
/// four for a multi-get over four idle shards, during which its other
/// connections wait (measured: docs/results/server.md).
/// When arrivals are sparse, polling that long would only burn a core; the
/// thread polls short_poll_us and then sleeps, and a lone request is run by
/// its submitter at once.
class arrival_gaps {
 public:
  /// The poll when arrivals are sparse (and the least one).
  static constexpr std::uint64_t short_poll_us = 20;
  /// The longest poll. Past it (mean gaps over 50 us) the thread polls
  /// short_poll_us, not 300 us: the poll is cut off rather than capped, so
  /// that only a shard taking more than about 20,000 submits a second keeps
  /// its batch thread polling all the time. Under sparser arrivals a
  /// submitter finds the shard asleep more often and runs the batch on its
  /// own thread, which costs little while few connections wait behind it;
  /// a core polling for every shard costs more there.
  static constexpr std::uint64_t longest_poll_us = 300;
  /// Mean gaps a steady load is polled for.
  static constexpr std::uint64_t gaps_per_poll = 6;

  /// A submit at `now_ns` (steady clock, read before the shard's lock was
  /// taken: a submit that read it earlier but took the lock later than the
  /// last one counts as a gap of 0).
  void arrived(std::uint64_t now_ns) noexcept {
    if (last_ns_ != 0) {
      // An idle spell counts as at most 1 ms, so that a load that comes
      // back after it is seen as steady within a few dozen submits.
      const std::uint64_t gap = now_ns > last_ns_ ? now_ns - last_ns_ : 0;
      mean_ns_ = mean_ns_ - mean_ns_ / 8 + std::min(gap, longest_gap_ns) / 8;
    }
    last_ns_ = std::max(last_ns_, now_ns);
  }

  /// The mean gap so far (1 ms before any arrivals).
  std::uint64_t mean_gap_ns() const noexcept { return mean_ns_; }

  /// How long to poll after a batch: six mean gaps (at least short_poll_us)
  /// when that is at most longest_poll_us, else short_poll_us.
  std::uint64_t poll_us() const noexcept {
    const std::uint64_t steady = gaps_per_poll * mean_ns_ / 1000;
    return steady <= longest_poll_us ? std::max(steady, short_poll_us) : short_poll_us;
  }

 private:
  static constexpr std::uint64_t longest_gap_ns = 1'000'000;
  std::uint64_t last_ns_ = 0;
  std::uint64_t mean_ns_ = longest_gap_ns;  // a shard starts idle
};

}  // namespace gpuhash::server::engine
