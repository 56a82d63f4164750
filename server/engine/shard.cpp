// A shard's queue and who runs its batches (shard.hpp).

#include "engine/shard.hpp"

#include <sys/prctl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <utility>

#include "engine/core.hpp"

namespace gpuhash::server::engine {

namespace {

/// The steady clock in nanoseconds (for arrival_gaps).
std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

/// A pause in a polling loop (a hint to the core; no system call).
void spin_pause() {
#if defined(__x86_64__)
  __builtin_ia32_pause();
#endif
}

/// Index operations a group adds to a batch (an estimate: its keys).
std::size_t operations_of(const request_group& group) {
  std::size_t operations = 0;
  for (std::size_t i = 0; i < group.used; ++i)
    operations += std::max<std::size_t>(1, group.items[i].request.keys.size());
  return operations;
}

}  // namespace

/// The groups a busy batch thread keeps from one batch to send their
/// replies itself while the next batch's round trip runs, instead of
/// spinning. Under load the workers' time bounds the server, and a send
/// is the largest part of a request's cost there; a group handed back to
/// its worker also waits for it (9-17 us at the median on the H200
/// machine, measured: docs/results/server.md). It keeps as many as the
/// last round trips had time for: one more after a round trip that sent
/// them all, as many as it sent after one that did not. What the round
/// trip leaves unsent goes straight back to the workers once the index
/// has answered.
class engine::shard::reply_sender final : public batch_side_work {
 public:
  static constexpr std::size_t most = 16;
  reply_sender(engine& owner, core& counted) : owner_(owner), core_(counted) {}

  /// How many of a batch's last `groups` to keep.
  std::size_t room(std::size_t groups) const noexcept { return std::min(groups, limit_); }
  void hold(request_group* group) { held_.push_back(group); }

  bool step() override {
    if (sent_ == held_.size()) return false;
    owner_.completed(held_[sent_++], true);
    return sent_ != held_.size();
  }
  void index_answered() override {
    if (held_.empty()) return;
    core_.count_wait_groups(held_.size(), sent_);
    if (sent_ == held_.size()) {
      if (held_.size() == limit_) limit_ = std::min(limit_ + 1, most);
    } else {
      limit_ = std::max<std::size_t>(sent_, 1);
      for (std::size_t i = sent_; i < held_.size(); ++i) owner_.completed(held_[i], false);
    }
    held_.clear();
    sent_ = 0;
  }

 private:
  engine& owner_;
  core& core_;  // for its counters
  std::vector<request_group*> held_;
  std::size_t sent_ = 0;   // held_[0, sent_) are handed back, replies sent
  std::size_t limit_ = 2;  // how many to keep from the next batch
};

engine::shard::shard(engine& owner, engine_config config, server_stats& stats)
    : owner_(owner), config_(std::move(config)) {
  core_ = std::make_unique<core>(config_, stats);
  sender_ = std::make_unique<reply_sender>(owner_, *core_);
  using runner = engine_config::batch_runner;
  const bool automatic = config_.runner == runner::automatic;
  const bool on_device = core_->index_on_device();
  inline_ = config_.runner == runner::submitting_thread || (automatic && !on_device);
  idle_submitter_ = config_.runner == runner::batch_thread_unless_idle || (automatic && on_device);
  if (!inline_) thread_ = std::thread([this] { run(); });
}

engine::shard::~shard() {
  stop();
}

std::string engine::shard::index_description() const {
  return core_->index_description();
}

void engine::shard::submit(std::span<request_group* const> groups, batch_side_work* while_waiting,
                           bool in_other_wait) {
  bool run_here = false;
  // The clock is read before the lock, to keep it out of the critical
  // section; arrival_gaps takes a submit that then locks out of order.
  const std::uint64_t now = inline_ ? 0 : now_ns();
  {
    std::lock_guard lock(mutex_);
    if (!inline_) arrivals_.arrived(now);
    queue_.insert(queue_.end(), groups.begin(), groups.end());
    queued_.store(queue_.size(), std::memory_order_release);
    // On an idle shard, the submitter runs its own groups at once. A
    // shard whose batch thread is polling for groups is busy, not idle:
    // running them here would cost this worker a round trip.
    const bool only_these = queue_.size() == groups.size();
    if (!running_ && (inline_ || (idle_submitter_ && only_these && !polling_)))
      run_here = running_ = true;
  }
  if (run_here && inline_) {
    run_queued();
  } else if (run_here) {
    run_once(while_waiting, in_other_wait);
  } else if (!inline_) {
    wake_.notify_one();
  }
}

void engine::shard::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void engine::shard::take(std::vector<request_group*>& batch, std::size_t& operations) {
  while (!queue_.empty() && operations < config_.batch_max) {
    operations += operations_of(*queue_.front());
    batch.push_back(queue_.front());
    queue_.pop_front();
  }
  queued_.store(queue_.size(), std::memory_order_release);
}

void engine::shard::run_queued() {
  std::vector<request_group*> batch;
  for (;;) {
    batch.clear();
    {
      std::lock_guard lock(mutex_);
      std::size_t operations = 0;
      take(batch, operations);
      // The last check of the queue and the end of running_ are one step
      // under the lock: a group queued after it finds running_ false and
      // is run by its own submitter.
      if (batch.empty()) {
        running_ = false;
        return;
      }
    }
    run_and_complete(batch);
  }
}

void engine::shard::run_once(batch_side_work* while_waiting, bool in_other_wait) {
  std::vector<request_group*> batch;
  {
    std::lock_guard lock(mutex_);
    std::size_t operations = 0;
    take(batch, operations);
  }
  run_and_complete(batch, false, while_waiting);
  if (in_other_wait) core_->count_overlapped_batch();  // (the core is still this thread's)
  bool more = false;
  {
    std::lock_guard lock(mutex_);
    running_ = false;
    // (stopping_: stop() may have woken the batch thread while this ran,
    // and it went back to sleep; it must see the end.) The inserts and
    // erases of this batch's resolve wait for the next batch: waking the
    // batch thread for them alone would come before this thread sends
    // the replies.
    more = stopping_ || !queue_.empty();
  }
  if (more) wake_.notify_one();
}

void engine::shard::run_and_complete(std::vector<request_group*>& batch, bool on_batch_thread,
                                     batch_side_work* while_waiting) {
  try {
    core_->run_batch(batch, on_batch_thread ? sender_.get() : while_waiting);
  } catch (const std::exception& error) {
    // Out of memory while building replies, say: the batch's clients are
    // told and disconnected; the server goes on.
    std::fprintf(stderr, "gpuhash-server: ERROR: a batch failed (%s); closing its connections\n",
                 error.what());
    for (request_group* group : batch) engine::fail(*group);
  }
  if (on_batch_thread) sender_->index_answered();  // (the batch failed before its index answered)
  if (core_->shutdown_accepted()) owner_.shutdown_requested_ = true;
  // A batch thread with nothing queued may spend time on each group as
  // it hands it back. With groups queued it hands them back at once, but
  // for the last few, which it keeps to send during the next batch's
  // round trip (reply_sender).
  std::size_t i = 0;
  while (i < batch.size() && on_batch_thread && queued_.load(std::memory_order_acquire) == 0)
    owner_.completed(batch[i++], true);
  const std::size_t keep =
      on_batch_thread && core_->index_takes_side_work() ? sender_->room(batch.size() - i) : 0;
  while (i < batch.size() - keep) owner_.completed(batch[i++], false);
  while (i < batch.size()) sender_->hold(batch[i++]);
}

void engine::shard::poll_for_groups(std::uint64_t us) {
  if (us == 0 || queued_.load(std::memory_order_acquire) != 0) return;
  {
    std::lock_guard lock(mutex_);
    polling_ = true;
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  while (queued_.load(std::memory_order_acquire) == 0 && std::chrono::steady_clock::now() < until)
    spin_pause();
}

void engine::shard::sleep_until_work(std::unique_lock<std::mutex>& lock) {
  using std::chrono::steady_clock;
  // The GPU index's resident kernel ages out (gpu_resident.cuh), and the
  // batch that finds it ended pays for the next one's launch: at a low load
  // (a batch every few milliseconds, run by the submitters) that was one
  // batch in fifty, about 40 us more each (measured with
  // gpuhash-engine-latency: docs/results/server.md). So while batches come
  // (one in the last second), this thread renews the kernel before it ages
  // out, between batches; on an idle shard it lets the kernel end.
  constexpr auto active_for = std::chrono::seconds(1);
  constexpr auto look_again = std::chrono::milliseconds(50);  // while it may not own the core
  for (;;) {
    // (a submitter may be running a batch: the core is then its)
    if (running_) {
      wake_.wait_for(lock, look_again);
      continue;
    }
    if (stopping_ || !queue_.empty() || core_->has_pending_mutations()) return;
    const auto renew_at = core_->index_renew_at();
    if (!renew_at) {
      wake_.wait(lock);
      continue;
    }
    const auto now = steady_clock::now();
    if (core_->batches() != batches_seen_) {
      batches_seen_ = core_->batches();
      active_at_ = now;
    }
    if (now < *renew_at) {
      wake_.wait_until(lock, *renew_at);
    } else if (now - active_at_ > active_for) {
      wake_.wait_for(lock, look_again);
    } else {
      running_ = true;  // the core is this thread's, as for a batch
      lock.unlock();
      core_->renew_index();
      lock.lock();
      running_ = false;
    }
  }
}

void engine::shard::run() {
  // Waits of a few microseconds must not be rounded up to the default
  // 50 us timer slack.
  prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
  std::vector<request_group*> batch;
  std::size_t last_operations = 0;  // the size of the last batch, when it had several groups
  std::uint64_t poll_us = config_.spin_us;
  for (;;) {
    batch.clear();
    // After a batch, poll for the next groups (for as long as the rate of
    // arrivals calls for, or spin_us if longer) before sleeping: while the
    // shard is busy its groups then come here with no wake-up, and the
    // submitters leave them here (polling_) instead of running them on
    // their own threads.
    poll_for_groups(poll_us);
    {
      std::unique_lock lock(mutex_);
      polling_ = false;
      sleep_until_work(lock);
      if (stopping_ && queue_.empty()) break;
      running_ = true;
      std::size_t operations = 0;
      take(batch, operations);
      // Under load, wait (at most batch_wait_us) for the batch to fill to
      // the size of the last one: clients that were answered together
      // come back together. Waiting for more than can come would only
      // add the whole deadline to every batch.
      const std::size_t target = std::min(config_.batch_max, last_operations);
      if (config_.batch_wait_us != 0 && operations < target) {
        const auto deadline =
            std::chrono::steady_clock::now() + std::chrono::microseconds(config_.batch_wait_us);
        // Polled rather than slept on: a submitter's notify then finds
        // no waiter and costs it no system call (under load the workers'
        // time is what bounds the server).
        while (operations < target && !stopping_) {
          lock.unlock();
          while (queued_.load(std::memory_order_acquire) == 0 &&
                 std::chrono::steady_clock::now() < deadline)
            spin_pause();
          lock.lock();
          if (queue_.empty()) break;  // the deadline passed
          take(batch, operations);
        }
      }
    }
    last_operations = 0;
    if (batch.size() > 1)
      for (const request_group* group : batch) last_operations += operations_of(*group);
    run_and_complete(batch, true);
    std::lock_guard lock(mutex_);
    running_ = false;
    polling_ = true;  // in the same step: no submitter finds the shard idle in between
    poll_us = std::max<std::uint64_t>(arrivals_.poll_us(), config_.spin_us);
  }
  sender_->index_answered();  // (none are kept with nothing queued; for certainty)
  // Inserts and erases left by the last batch are only index bookkeeping;
  // the process is ending, so nothing is lost by not running them.
}

}  // namespace gpuhash::server::engine
