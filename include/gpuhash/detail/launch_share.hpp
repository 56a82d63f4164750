#pragma once
// How many threads a batch kernel keeps in flight on a GPU.

#include <cstdint>

namespace gpuhash::detail {

/// A share of the blocks the GPU holds at once, in eighths, that a batch's
/// grid-stride kernel is launched with (exec's for_each_batch and
/// for_each_tally; the CPU backend ignores it). Full occupancy is not
/// always fastest: random read-then-CAS, the access of every insert and
/// erase, peaks at 3/8 of the resident blocks on the H200 and runs 14%
/// slower at 8/8, and the tables' own batches run up to 1.5 times faster
/// below it (docs/results/limits.md, "Threads in flight"). Each engine
/// passes the share measured best for its kernels.
struct launch_share {
  std::uint32_t eighths = 8;

  /// The blocks to launch of `resident` that the device holds at once.
  constexpr int of(int resident) const {
    const int blocks = static_cast<int>(static_cast<std::int64_t>(resident) * eighths / 8);
    return blocks < 1 ? 1 : blocks;
  }
};

}  // namespace gpuhash::detail
