#pragma once
// --index=auto for one shard's index port: the shard's batches cut into
// windows, each judged by the placement policy (placement_rule.hpp), and
// the move it wants. The port performs the move (index_port::move_to_*:
// the index rebuilt from the shard's linked items, as after a device
// failure) and tells it here. Only the thread running the shard's batch
// calls it, as the port.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "index/placement_rule.hpp"

namespace gpuhash::server::index {

/// The numbers of --index=auto for `stats`: its moves, and the last window
/// it judged (placement_decision's, as integers; shards add up).
struct placement_numbers {
  std::uint64_t moves_to_cpu = 0, moves_to_gpu = 0;
  std::uint64_t windows = 0;  ///< windows judged (not idle)
  std::uint64_t cpu_ns_per_s = 0, gpu_ns_per_s = 0;
  std::uint64_t keys = 0, batches = 0;
  std::uint64_t cpu_ns_per_key = 0, gpu_ns_per_batch = 0;
  std::uint64_t judged = 0;  ///< 1 once a window was judged (shards add up: the mean's divisor)
};

class auto_placement {
 public:
  using clock_type = std::chrono::steady_clock;

  /// `shard`: named in the lines logged at each move when `log_moves` (-v).
  auto_placement(std::unique_ptr<placement_policy> policy, index_site start, bool log_moves,
                 std::size_t shard);

  /// What a batch cost the index (its keys; the time in the index, less
  /// the caller's own work during a wait), and what it cost the engine
  /// (its groups; the time it took, index included).
  void count_index(std::uint64_t keys, std::uint64_t index_ns) noexcept {
    window_.batches += 1;
    window_.keys += keys;
    window_.index_ns += index_ns;
  }
  void count_batch(std::uint64_t groups, std::uint64_t busy_ns) noexcept {
    window_.groups += groups;
    window_.busy_ns += busy_ns;
  }
  /// The batch thread's poll for groups (GPU index).
  void count_poll(std::uint64_t poll_ns) noexcept { window_.poll_ns += poll_ns; }

  /// Before a batch: the move the policy wants now, if the window is over
  /// (and judged; a verdict::move). `entries`: the index's now.
  std::optional<index_site> wanted_move(std::size_t entries, clock_type::time_point now);
  /// The index moved (by wanted_move's verdict, or, with `device_failed`,
  /// to the CPU after the device failed: it never goes back there).
  void moved(index_site to, clock_type::time_point now, bool device_failed);
  /// A move wanted_move asked for could not be made (the device could not
  /// be had): the index stays, and never tries the device again.
  void move_failed(clock_type::time_point now);

  index_site site() const noexcept { return site_; }
  placement_numbers numbers() const noexcept { return numbers_; }

 private:
  std::uint64_t ns_since(clock_type::time_point then, clock_type::time_point now) const noexcept;
  void start_window(clock_type::time_point now) noexcept;

  std::unique_ptr<placement_policy> policy_;
  index_site site_;
  bool log_moves_;
  std::size_t shard_;
  clock_type::time_point epoch_;  // the policy's clock counts from here
  clock_type::time_point window_start_;
  load_window window_;
  placement_decision last_;  // the last judged window's
  placement_numbers numbers_;
};

}  // namespace gpuhash::server::index
