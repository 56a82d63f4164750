#pragma once
// Where the server's index lives (--index), and what --index=auto needs
// besides.

#include <cstddef>
#include <cstdint>

#include "index/placement_rule.hpp"

namespace gpuhash::server::index {

enum class placement : std::uint8_t {
  automatic,  ///< on the GPU when there is one, moved to the CPU and back by the load
  gpu,        ///< on the GPU; the server refuses to start without one
  cpu
};

/// --index=auto's settings beyond the placement (placement_rule.hpp).
struct auto_settings {
  placement_rule_settings rule;
  /// The most entries a shard's index may hold (-m over the shards, in the
  /// smallest items): the largest size the CPU index's cost of a key is
  /// calibrated at (cpu_calibration.hpp).
  std::size_t shard_entries = std::size_t{1} << 20;
  bool log_moves = false;  ///< -v: each move logged with its reason
};

}  // namespace gpuhash::server::index
