#pragma once
// The index as a shard's cache sees it: memcached's assoc (find, insert,
// delete) in batches. The caller hashes a key once (signature) and names an
// item by its location; a batch holds finds, then inserts and erases of
// (signature, location) entries, and runs as one. The finds never wait for
// the batch's own inserts and erases: they may see them or not (the cache
// keeps the items whose entries are in flight on the host). The index grows
// by itself (signature_index rebuilds itself larger), as memcached's assoc
// expands itself.
//
// Everything about how a batch reaches the index stays behind the port, in
// the index service it drives (index_service.hpp: on the GPU or the CPU):
// the memory the batch is written in (page-locked for the GPU, so that the
// device reads it in place), statuses of inserts and erases that come one
// batch late (the GPU runs them behind its answer), the wait a device round
// trip leaves the calling thread (wait_work), and the upkeep the GPU's
// resident kernel needs between batches (renewal before it ages out).
//
// With --index=auto the port also moves its index between the CPU and the
// GPU as the load calls for (auto_placement.hpp, placement_rule.hpp): the
// way a device failure moves it to the CPU, rebuilt from the shard's linked
// items.
//
// One thread at a time uses a port: the one running its shard's batch.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "index/auto_placement.hpp"
#include "index/index_service.hpp"
#include "index/placement_rule.hpp"

namespace gpuhash::server::index {

/// An insert or erase of an entry.
struct entry_change {
  operation op;
  signature_type signature;
  location_type location;
};

/// The inserts and erases whose outcome the index has given in the last
/// run(): change(j) got status_of(j).
struct settled_changes {
  std::span<const entry_change> changes;
  const status* statuses = nullptr;

  std::size_t size() const noexcept { return changes.size(); }
  const entry_change& change(std::size_t j) const noexcept { return changes[j]; }
  status status_of(std::size_t j) const noexcept { return statuses[j]; }
};

/// The index's numbers for `stats` (index_*).
struct index_numbers {
  std::size_t entries = 0;
  std::size_t capacity = 0;
  std::size_t memory_bytes = 0;
  std::size_t rebuilds = 0;
  std::uint64_t batches = 0;     ///< batches run
  std::uint64_t operations = 0;  ///< finds, inserts and erases over all batches
  std::uint64_t max_operations = 0;
  /// Time in run() (the round trips), all batches; with the caller's work
  /// done during the wait where that took longer.
  std::uint64_t run_ns = 0;
  std::uint64_t renewals = 0;   ///< upkeep that renewed a device kernel
  std::uint64_t indexes = 1;    ///< 1 (shards add up)
  std::uint64_t on_device = 0;  ///< 1 while the index is on a device (shards add up)
  placement_numbers placement;  ///< --index=auto's (all 0 without it)
};

/// Makes the index on a device for a move there (--index=auto): room for
/// `capacity` entries, its bucket hashes under `seed`. Throws when it
/// cannot.
using device_index_maker =
    std::function<std::unique_ptr<index_service>(std::size_t capacity, std::uint64_t seed)>;

/// What a port needs to move its index as the load calls for (--index=auto).
struct automatic_placement {
  device_index_maker make_device;
  /// The rule (placement_rule), or a test's; none: the index stays where it is.
  std::unique_ptr<placement_policy> policy;
  bool log_moves = false;  ///< -v: each move is logged with its reason
  std::size_t shard = 0;   ///< named in those lines
};

class index_port {
 public:
  /// Drives `service`, whose bucket hashes are under `seed` (kept for the
  /// index a move makes); with `automatic`, moves it as the load calls for.
  index_port(std::unique_ptr<index_service> service, std::uint64_t seed,
             automatic_placement automatic = {});
  ~index_port();
  index_port(const index_port&) = delete;
  index_port& operator=(const index_port&) = delete;

  /// "cpu" or "gpu (NVIDIA H200)".
  std::string description() const { return service_->description(); }
  /// Whether the index lives on a device (the engine then runs batches on a
  /// batch thread, which gathers the next batch during a round trip).
  bool on_device() const noexcept { return service_->on_device(); }
  /// Whether run() waits for a device and gives its wait_work steps there.
  bool has_wait() const noexcept { return service_->takes_wait_work(); }

  // ---- one batch --------------------------------------------------------------

  /// Starts a batch (what the last one found is then gone).
  void clear() { batch_.clear(); }
  /// Queues a find (they come before every insert and erase); its results
  /// are matches(n) for the n-th find of the batch.
  void find(signature_type signature) { batch_.add(operation::search, signature, 0); }
  /// Queues a find for each signature, in order.
  void find(std::span<const signature_type> signatures) { batch_.add_searches(signatures); }
  void insert(signature_type signature, location_type location) {
    batch_.add(operation::insert, signature, location);
  }
  void erase(signature_type signature, location_type location) {
    batch_.add(operation::erase, signature, location);
  }
  std::size_t size() const noexcept { return batch_.size(); }
  std::size_t finds() const noexcept { return batch_.searches(); }
  /// The signature the n-th find of the batch looked for (until clear()).
  signature_type find_signature(std::size_t n) const noexcept { return batch_.signatures[n]; }

  /// Runs the batch, doing `while_waiting`'s steps while a device works on
  /// it. Throws on a device failure: the caller then calls move_to_cpu.
  void run(wait_work* while_waiting);
  /// The n-th find's locations, valid until the next run.
  std::uint32_t match_count(std::size_t n) const noexcept { return results_.count(n); }
  location_type match(std::size_t n, std::size_t k) const noexcept { return results_.match(n, k); }
  /// The inserts and erases the last run() settled: its own, or those of an
  /// earlier batch when the index gives statuses late.
  settled_changes settled() const noexcept { return settled_; }

  // ---- moves ---------------------------------------------------------------------

  /// Whether the port moves its index as the load calls for (--index=auto).
  bool moves_by_load() const noexcept { return placement_ != nullptr; }
  /// Whether it may move it to a device (--index=auto, and the device has
  /// not failed).
  bool may_move_to_device() const noexcept { return placement_ && make_device_; }
  /// --index=auto: where the index should go before the batch queued now
  /// runs, when its window of batches is over and the rule says so.
  std::optional<index_site> wanted_move();
  /// A move: in place of running the batch queued now, the index moves,
  /// holding `entries` (the linked items', which reflect every insert and
  /// erase sent so far and not yet settled), and answers the batch's finds
  /// there; its inserts and erases are not run (`entries` holds them). The
  /// entries the new index refused (a 17th under one signature) are
  /// returned, also from an index that gives statuses late (the move waits
  /// for them), and the new index counts every entry (entries) at once.
  ///
  /// To the CPU: after run() threw (`device_failed`: the device is never
  /// used again), or as --index=auto wants.
  std::vector<entry_change> move_to_cpu(std::span<const entry_change> entries, bool device_failed);
  /// To the device, as --index=auto wants. Throws when the device index
  /// cannot be made or filled, with nothing changed: the batch then runs
  /// where the index is, and the device is not tried again. A device index
  /// that fails on the batch's finds, once in the service's place, is
  /// dropped as after a failed run(): the index is rebuilt on the CPU,
  /// answers the finds there, and the device is never called again.
  std::vector<entry_change> move_to_device(std::span<const entry_change> entries);
  /// A move to the device failed (see move_to_device).
  void device_unusable();
  /// What the engine measured of its last batch and of the batch thread's
  /// poll for it, for --index=auto (auto_placement::count_batch, count_poll).
  void count_batch(std::uint64_t groups, std::uint64_t busy_ns) noexcept {
    if (placement_) placement_->count_batch(groups, busy_ns);
  }
  void count_poll(std::uint64_t poll_ns) noexcept {
    if (placement_) placement_->count_poll(poll_ns);
  }

  // ---- between batches ----------------------------------------------------------

  /// When the index wants upkeep() (none: never), called by the thread that
  /// runs the batches while it has none to run. The GPU's resident kernel
  /// ages out, and the batch that finds it ended pays for the next one's
  /// launch: while batches come (one in the last second) the kernel is
  /// renewed before it ages out; on an idle shard it is let end.
  std::optional<std::chrono::steady_clock::time_point> upkeep_at();
  /// The upkeep, if due; by the thread that owns the port, between batches.
  void upkeep();

  index_numbers numbers() const;
  /// Zeroes the counts of batches and renewals (`stats reset`).
  void reset_counts() noexcept;

 private:
  void count_run(std::chrono::steady_clock::time_point start, std::uint64_t caller_ns) noexcept;
  bool upkeep_due(std::chrono::steady_clock::time_point now) const;
  /// Puts `next` in place of the service, filled with `entries`, and runs
  /// the queued batch's finds there (move_to_cpu, move_to_device).
  std::vector<entry_change> move_to(std::unique_ptr<index_service> next,
                                    std::span<const entry_change> entries);

  std::unique_ptr<index_service> service_;
  std::uint64_t seed_;
  device_index_maker make_device_;             // --index=auto, until the device fails
  std::unique_ptr<auto_placement> placement_;  // --index=auto
  index_batch batch_;  // in the memory the first service asked for (it outlives every service)
  index_results results_;
  // This batch's inserts and erases, and those whose statuses the service
  // has not given yet (index_service::defers_mutations).
  std::vector<entry_change> sent_;
  std::vector<entry_change> unsettled_;
  settled_changes settled_;
  index_numbers counts_;
  // upkeep: counts_.batches when last looked at, and when that changed
  std::uint64_t batches_seen_ = 0;
  std::chrono::steady_clock::time_point active_at_;
};

}  // namespace gpuhash::server::index
