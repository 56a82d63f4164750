#pragma once
// A shard: its batch pipeline (engine/batch/: the cache, the commands),
// its queue of request groups, and who runs its batches, one at a time
// (engine.hpp, docs/designs/server.md "Batching policy"):
//   - the CPU index: the submitting threads (a submitter runs what is
//     queued at once and never waits);
//   - the GPU index: the shard's batch thread under load, and a submitter
//     that finds the shard idle (its batch thread asleep), which saves a
//     lone request two thread hand-offs.
// With the automatic runner the choice follows the index when it moves (a
// device failure, --index=auto): after the batch that moved it, the thread
// that ran it switches the shard over under the queue's lock. A batch
// thread whose index is on the CPU sleeps (it takes only groups left
// queued for it by the switch); it is started with the shard whenever the
// index is, or may go, on a device.
// A batch goes as soon as the shard is free when the server is otherwise
// idle (the GPU memcached thesis' further work). After each batch the batch
// thread polls for more groups, as long as the shard's arrivals call for
// (arrival_gaps.hpp), before it sleeps; a submitter leaves a polled shard's
// groups to it. Under load (the last batch carried several groups) the
// batch thread may wait up to batch_wait_us (default 0: not at all) for
// the batch to fill to the last batch's size, at most batch_max
// operations; a submitting thread takes what is queued and never waits,
// since nothing overlaps a batch on the CPU.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "engine/batch/pipeline.hpp"
#include "engine/engine.hpp"
#include "engine/shard/arrival_gaps.hpp"
#include "engine/shard/group_queue.hpp"

namespace gpuhash::server::engine {

class reply_sender;  // reply_sender.hpp

/// One shard: its pipeline, its queue, and the running of its batches (see
/// the top of this file).
class engine::shard {
 public:
  shard(engine& owner, const engine_settings& settings, std::size_t number,
        std::unique_ptr<index::index_port> index);
  ~shard();
  shard(const shard&) = delete;
  shard& operator=(const shard&) = delete;

  /// Whether the submitters run the batches now (index on the CPU).
  bool runs_inline() const noexcept { return inline_.load(std::memory_order_relaxed); }
  /// Whether a submitter that finds the shard idle runs its batch, and may
  /// do other shards' submits during the round trip (index on a device).
  bool overlaps_on_submitter() const noexcept {
    return !inline_.load(std::memory_order_relaxed) &&
           idle_submitter_.load(std::memory_order_relaxed);
  }
  std::string index_description() const;
  /// Before the first batch only (the pipeline is then nobody's).
  bool index_moves_by_load() const { return pipeline_->index().moves_by_load(); }

  /// Queues groups; runs them on this thread if the shard runs inline or
  /// is idle, else leaves them to the batch thread. `while_waiting`, if
  /// any, is done during the index's round trip when an idle shard's batch
  /// runs here (not for the CPU index, which runs inline and has no wait);
  /// `in_other_wait`: this thread is inside another shard's round trip.
  void submit(std::span<request_group* const> groups, batch_side_work* while_waiting = nullptr,
              bool in_other_wait = false);
  /// Stops the batch thread after the groups already queued.
  void stop();

 private:
  /// Takes queued groups into `batch`, up to batch_max operations.
  void take(std::vector<request_group*>& batch, std::size_t& operations);
  /// Who runs the batches, by where the index is now (the automatic
  /// runner); true if that changed. Under mutex_, by the thread that owns
  /// the pipeline.
  bool follow_index();
  /// Runs batches on the calling thread until the queue is empty, or until
  /// a batch moved the index to a device (the batch thread then takes the
  /// rest: it is woken).
  void run_queued();
  /// The batch thread while the index is on the CPU: runs what was left
  /// queued for it when the index moved, and sleeps until the index is on
  /// a device again. True when the shard stops.
  bool sleep_while_inline(std::unique_lock<std::mutex>& lock);
  /// Runs what is queued as one batch on the calling thread (which found
  /// the shard idle), then leaves what came meanwhile to the batch thread.
  void run_once(batch_side_work* while_waiting, bool in_other_wait);
  /// Runs one batch and hands its groups back. The batch thread's side
  /// work is its reply_sender; a submitter's is `while_waiting`.
  void run_and_complete(std::vector<request_group*>& batch, bool on_batch_thread = false,
                        batch_side_work* while_waiting = nullptr);
  /// The batch thread: polls for up to `us` for a group to be queued;
  /// returns how long it polled (ns).
  std::uint64_t poll_for_groups(std::uint64_t us);
  /// The batch thread: sleeps (under `lock`) until it has a batch to run or
  /// must stop, doing the index's upkeep meanwhile (index_port::upkeep_at).
  /// `after_own_batch`: the last batch was this thread's, and the inserts
  /// and erases its resolve left are a batch to run.
  void sleep_until_work(std::unique_lock<std::mutex>& lock, bool after_own_batch);
  /// The batch thread (index on the GPU).
  void run();

  engine& owner_;
  const engine_settings& settings_;  // the engine's
  std::unique_ptr<batch_pipeline> pipeline_;
  std::unique_ptr<reply_sender> sender_;  // the batch thread's

  std::mutex mutex_;
  std::condition_variable wake_;
  group_queue queue_;
  std::atomic<std::size_t> queued_{0};  // queue_.size(), for polling without the lock
  bool stopping_ = false;
  // Batches run on the submitting threads; a submitter that finds the shard
  // idle runs its groups. Written under mutex_ (follow_index), read under
  // it, and without it as hints (engine.cpp).
  std::atomic<bool> inline_{false};
  std::atomic<bool> idle_submitter_{false};
  bool running_ = false;   // a thread is running a batch (under mutex_)
  bool polling_ = false;   // the batch thread is polling for groups (under mutex_)
  arrival_gaps arrivals_;  // how often groups come: the batch thread's poll (under mutex_)
  // The batch of the thread that set running_ for run_queued or run_once
  // (a submitter, or the batch thread left groups by a move), kept for its
  // capacity.
  std::vector<request_group*> batch_;
  std::thread thread_;
};

}  // namespace gpuhash::server::engine
