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
/// passes the share measured best for its kernels, for tables in DRAM
/// (for_table).
struct launch_share {
  std::uint32_t eighths = 8;

  /// The blocks to launch of `resident` that the device holds at once.
  constexpr int of(int resident) const {
    const int blocks = static_cast<int>(static_cast<std::int64_t>(resident) * eighths / 8);
    return blocks < 1 ? 1 : blocks;
  }

  /// This share for a table of `table_bytes` of at least large_table_bytes;
  /// full occupancy for a smaller one, whose accesses the L2 cache serves
  /// in part and whose batches ran slower at a reduced share (tables of 32
  /// to 150 MB on the H200: DACHash down to 0.79x, bucketed cuckoo's erases
  /// to 0.85x).
  constexpr launch_share for_table(std::uint64_t table_bytes) const;
};

/// The size from which a table counts as in DRAM for its launch share:
/// four times the L2 cache of an H100 or H200, rounded. The shares were
/// measured at 512 MB and more (better) and 150 MB and less (worse); sizes
/// between were not measured either way.
inline constexpr std::uint64_t large_table_bytes = std::uint64_t{256} << 20;

constexpr launch_share launch_share::for_table(std::uint64_t table_bytes) const {
  return table_bytes >= large_table_bytes ? *this : launch_share{};
}

}  // namespace gpuhash::detail
