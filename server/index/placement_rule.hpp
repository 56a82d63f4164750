#pragma once
// --index=auto's rule: where one shard's index costs the fewer cores, the
// CPU or the GPU, judged from measured windows of the shard's batches
// (docs/designs/server.md, "The index by the load: --index=auto").
//
// The work of a batch outside the index (collect, resolve, replies) is the
// same wherever the index is; what differs is what the index costs the
// host's cores:
//   - the CPU index: its lookups, computed on the thread running the batch
//     (a submitting worker): keys x the cost of a key;
//   - the GPU index: the polls of its batch thread, which spins while the
//     GPU answers (a round trip, ~10 us whatever the batch holds) and
//     after each batch for the next groups (shard/arrival_gaps.hpp).
// The costs are compared as a core's nanoseconds per second of the window.
// The side the index is on is measured; the other is estimated from what
// was measured there before (or from a calibration at start-up), and the
// index moves when the other side is cheaper by a margin in several
// windows in a row, and not sooner than a dwell time after its last move.
//
// Pure: the clock is an argument (nanoseconds on any steady clock), so the
// rule is tested on synthetic load streams (tests/server/index/).

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gpuhash::server::index {

/// Where a shard's index is.
enum class index_site : std::uint8_t { cpu, gpu };

const char* site_name(index_site site) noexcept;

/// The CPU index's cost of one key (ns) by how many entries the index
/// holds: points measured at start-up (cpu_calibration.hpp), read linearly
/// in log2(entries) between them and flat beyond the first and last.
class key_cost_curve {
 public:
  /// A point; points come in increasing entries.
  void add(std::size_t entries, double ns_per_key);
  bool empty() const noexcept { return points_.empty(); }
  /// The cost at `entries` (0 with no points).
  double at(std::size_t entries) const noexcept;
  const std::vector<std::pair<std::size_t, double>>& points() const noexcept { return points_; }

 private:
  std::vector<std::pair<std::size_t, double>> points_;
};

/// One window of a shard's batches, as the shard measured them.
struct load_window {
  std::uint64_t wall_ns = 0;  ///< the window's length
  std::uint64_t batches = 0;  ///< index batches run
  std::uint64_t keys = 0;     ///< their finds, inserts and erases
  std::uint64_t groups = 0;   ///< request groups answered (a batch holds one at least)
  /// Time in the index, less the caller's own work done during a wait:
  /// the CPU index's lookups, or the GPU's round trips, polled.
  std::uint64_t index_ns = 0;
  std::uint64_t poll_ns = 0;  ///< the batch thread's polls for groups (GPU index only)
  std::uint64_t busy_ns = 0;  ///< time running batches, the index's included
  std::size_t entries = 0;    ///< the index's entries at the window's end
};

struct placement_rule_settings {
  std::uint64_t window_ns = 1'000'000'000;
  /// A window with fewer batches is idle: no evidence either way.
  std::uint64_t min_batches = 64;
  /// The other side must cost less than this side / margin.
  double margin = 1.25;
  /// Windows in a row that must favour a move.
  unsigned windows_to_move = 3;
  /// The least time between two moves; a move that comes within two dwells
  /// of the last doubles it (up to longest_dwell_ns), one that comes later
  /// sets it back.
  std::uint64_t dwell_ns = 10'000'000'000;
  std::uint64_t longest_dwell_ns = 320'000'000'000;
};

/// What the rule made of a window, with what it compared.
struct placement_decision {
  enum class verdict : std::uint8_t {
    idle,     ///< too few batches, or the first window after a move: no evidence
    stay,     ///< this side costs no more than the other (or the other is unknown)
    leaning,  ///< the other side is cheaper, but not for enough windows or not past the dwell
    move      ///< move to the other side now
  };
  verdict what = verdict::idle;
  index_site site = index_site::cpu;  ///< where the index was during the window
  /// The two costs, ns of a core per second of the window (1e9: a core):
  /// measured on the index's side, estimated for the other; 0: unknown.
  double cpu_ns_per_s = 0;
  double gpu_ns_per_s = 0;
  double keys_per_batch = 0;
  double cpu_ns_per_key = 0;    ///< the CPU index's cost of a key, at the index's size
  double gpu_ns_per_batch = 0;  ///< the GPU index's polls per batch (its last measure)
  std::uint64_t batches = 0, keys = 0;

  bool judged() const noexcept { return what != verdict::idle; }
  /// "the CPU index would spend ... where the GPU index polls ...", for -v.
  std::string explain() const;
};

/// The policy --index=auto follows: the rule below in the server, a scripted
/// one in tests (tests/server/support/), given to the index port.
class placement_policy {
 public:
  virtual ~placement_policy() = default;
  /// The window that ended at `now_ns`, on the index where it is now.
  virtual placement_decision judge(const load_window& window, std::uint64_t now_ns) = 0;
  /// The index moved to `to` at `now_ns` (by a verdict::move, or because
  /// the device failed).
  virtual void moved(index_site to, std::uint64_t now_ns) = 0;
  /// The device failed: the index never moves there again.
  virtual void device_lost() = 0;
  virtual std::uint64_t window_ns() const noexcept = 0;
};

/// The rule (see the top of this file).
class placement_rule final : public placement_policy {
 public:
  /// `key_cost`: the CPU index's cost of a key by size, until the shard
  /// measures it on the CPU (empty: unknown until then).
  placement_rule(placement_rule_settings settings, key_cost_curve key_cost, index_site start);

  placement_decision judge(const load_window& window, std::uint64_t now_ns) override;
  void moved(index_site to, std::uint64_t now_ns) override;
  void device_lost() override { device_usable_ = false; }
  std::uint64_t window_ns() const noexcept override { return settings_.window_ns; }

  index_site site() const noexcept { return site_; }
  std::uint64_t dwell_ns() const noexcept { return dwell_ns_; }
  /// The CPU index's cost of a key at `entries` (0: unknown): the last
  /// measure on the CPU, moved along the calibrated curve to `entries`.
  double cpu_ns_per_key(std::size_t entries) const noexcept;

 private:
  placement_decision costs_on_cpu(const load_window& window);
  placement_decision costs_on_gpu(const load_window& window);

  placement_rule_settings settings_;
  key_cost_curve key_cost_;
  index_site site_;
  bool device_usable_ = true;
  // the CPU index's cost of a key, measured on the CPU, and the entries then
  double measured_ns_per_key_ = 0;
  std::size_t measured_at_entries_ = 0;
  double gpu_ns_per_batch_ = 0;  // the GPU's polls per batch, measured there (0: never)
  unsigned favouring_ = 0;       // windows in a row that favoured a move
  bool has_moved_ = false;
  bool settling_ = false;  // the window after a move is not evidence
  std::uint64_t moved_at_ns_ = 0;
  std::uint64_t dwell_ns_;
};

}  // namespace gpuhash::server::index
