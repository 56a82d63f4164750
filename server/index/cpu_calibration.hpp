#pragma once
// The CPU index's cost of a key by its size, measured at start-up on a
// scratch index (--index=auto with a GPU: placement_rule.hpp needs it
// until a shard measures the CPU index on its own load).

#include <cstddef>

#include "index/placement_rule.hpp"

namespace gpuhash::server::index {

/// The least and the most entries calibrate_cpu_index measures at.
inline constexpr std::size_t calibration_least_entries = std::size_t{1} << 12;
inline constexpr std::size_t calibration_most_entries = std::size_t{1} << 22;

/// Fills a scratch CPU index up to `largest_entries` (at least the least,
/// at most the most above), and at each power of four on the way times
/// finds of entries it holds, in batches of 32 as a busy shard's, through
/// the index service the shards use (make_cpu_index). Well under a second
/// at the most entries; the scratch index is freed before it returns.
key_cost_curve calibrate_cpu_index(std::size_t largest_entries);

}  // namespace gpuhash::server::index
