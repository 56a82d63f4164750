// A shard's queue and who runs its batches (shard.hpp).

#include "engine/shard/shard.hpp"

#include <sys/prctl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <utility>

#include "engine/shard/reply_sender.hpp"

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

engine::shard::shard(engine& owner, const engine_settings& settings, std::size_t number,
                     std::unique_ptr<index::index_port> index)
    : owner_(owner), settings_(settings) {
  pipeline_ = std::make_unique<batch_pipeline>(settings_, number, owner_.stats_, std::move(index),
                                               owner_.ledger_);
  sender_ = std::make_unique<reply_sender>(
      [this](request_group* group, bool idle) {
        owner_.completed(*group, idle ? completer::idle : completer::busy);
      },
      pipeline_->counts());
  const index::index_port& port = pipeline_->index();
  bool batch_thread = true;
  switch (settings_.runner) {
    case batch_runner::automatic:
      follow_index();
      batch_thread = port.on_device() || port.may_move_to_device();
      break;
    case batch_runner::batch_thread: break;
    case batch_runner::submitting_thread:
      inline_ = true;
      batch_thread = false;
      break;
    case batch_runner::batch_thread_unless_idle: idle_submitter_ = true; break;
  }
  if (batch_thread) {
    thread_ = std::thread([this, number] {
      // Named as memcached names its threads, so that top -H and perf tell
      // the batch threads from the workers.
      const std::string name = "gh-batch-" + std::to_string(number);
      prctl(PR_SET_NAME, name.c_str(), 0UL, 0UL, 0UL);
      run();
    });
  }
}

engine::shard::~shard() {
  stop();
}

std::string engine::shard::index_description() const {
  return pipeline_->index().description();
}

bool engine::shard::follow_index() {
  if (settings_.runner != batch_runner::automatic) return false;
  const bool on_device = pipeline_->index().on_device();
  if (inline_ == !on_device && idle_submitter_ == on_device) return false;
  inline_ = !on_device;
  idle_submitter_ = on_device;
  return true;
}

void engine::shard::submit(std::span<request_group* const> groups, batch_side_work* while_waiting,
                           bool in_other_wait) {
  bool run_here = false;
  bool runs_inline = false;
  // The clock is read before the lock, to keep it out of the critical
  // section; arrival_gaps takes a submit that then locks out of order.
  const std::uint64_t now = inline_.load(std::memory_order_relaxed) ? 0 : now_ns();
  {
    std::lock_guard lock(mutex_);
    runs_inline = inline_;
    if (!runs_inline) arrivals_.arrived(now);
    queue_.push(groups);
    queued_.store(queue_.size(), std::memory_order_release);
    // On an idle shard, the submitter runs its own groups at once. A
    // shard whose batch thread is polling for groups is busy, not idle:
    // running them here would cost this worker a round trip.
    const bool only_these = queue_.size() == groups.size();
    if (!running_ && (runs_inline || (idle_submitter_ && only_these && !polling_)))
      run_here = running_ = true;
  }
  if (run_here && runs_inline) {
    run_queued();
  } else if (run_here) {
    run_once(while_waiting, in_other_wait);
  } else if (!runs_inline) {
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
  while (!queue_.empty() && operations < settings_.batch_max) {
    operations += operations_of(*queue_.front());
    batch.push_back(queue_.front());
    queue_.pop_front();
  }
  queued_.store(queue_.size(), std::memory_order_release);
}

void engine::shard::run_queued() {
  std::vector<request_group*>& batch = batch_;
  for (;;) {
    batch.clear();
    {
      std::lock_guard lock(mutex_);
      if (!stopping_ && follow_index() && !inline_) {
        // The last batch moved the index to a device: what is queued, and
        // what comes, is the batch thread's (unless it has stopped: then
        // this submitter runs what is queued).
        running_ = false;
        break;
      }
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
  wake_.notify_one();
}

bool engine::shard::sleep_while_inline(std::unique_lock<std::mutex>& lock) {
  while (inline_) {
    // Groups left queued for this thread by a batch that moved the index
    // to the CPU (submitters queue nothing else without running it).
    if (!running_ && !queue_.empty()) {
      running_ = true;
      lock.unlock();
      run_queued();
      lock.lock();
      continue;
    }
    if (stopping_) return true;
    wake_.wait(lock);
  }
  return false;
}

void engine::shard::run_once(batch_side_work* while_waiting, bool in_other_wait) {
  std::vector<request_group*>& batch = batch_;
  batch.clear();
  {
    std::lock_guard lock(mutex_);
    std::size_t operations = 0;
    take(batch, operations);
  }
  run_and_complete(batch, false, while_waiting);
  // (the pipeline is still this thread's)
  if (in_other_wait) ++pipeline_->counts().batches_overlapped;
  bool more = false;
  {
    std::lock_guard lock(mutex_);
    running_ = false;
    // (stopping_: stop() may have woken the batch thread while this ran,
    // and it went back to sleep; it must see the end. A batch that moved
    // the index to the CPU leaves the queue to the batch thread, which
    // runs it, and then sleeps.) The inserts and erases of this batch's
    // resolve wait for the next batch: waking the batch thread for them
    // alone would come before this thread sends the replies.
    more = follow_index() || stopping_ || !queue_.empty();
  }
  if (more) wake_.notify_one();
}

void engine::shard::run_and_complete(std::vector<request_group*>& batch, bool on_batch_thread,
                                     batch_side_work* while_waiting) {
  try {
    pipeline_->run(batch, on_batch_thread ? sender_.get() : while_waiting);
  } catch (const std::exception& error) {
    // Out of memory while building replies, say: the batch's clients are
    // told and disconnected; the server goes on.
    std::fprintf(stderr, "gpuhash-server: ERROR: a batch failed (%s); closing its connections\n",
                 error.what());
    for (request_group* group : batch) router::fail(*group);
  }
  if (on_batch_thread) sender_->index_answered();  // (the batch failed before its index answered)
  if (pipeline_->shutdown_accepted()) owner_.shutdown_requested_ = true;
  // A batch thread with nothing queued may spend time on each group as
  // it hands it back. With groups queued it hands them back at once, but
  // for the last few, which it keeps to send during the next batch's
  // round trip (reply_sender).
  std::size_t i = 0;
  while (i < batch.size() && on_batch_thread && queued_.load(std::memory_order_acquire) == 0)
    owner_.completed(*batch[i++], completer::idle);
  const std::size_t keep =
      on_batch_thread && pipeline_->index().has_wait() ? sender_->room(batch.size() - i) : 0;
  while (i < batch.size() - keep) owner_.completed(*batch[i++], completer::busy);
  while (i < batch.size()) sender_->hold(batch[i++]);
}

std::uint64_t engine::shard::poll_for_groups(std::uint64_t us) {
  if (us == 0 || queued_.load(std::memory_order_acquire) != 0) return 0;
  {
    std::lock_guard lock(mutex_);
    polling_ = true;
  }
  const auto start = std::chrono::steady_clock::now();
  const auto until = start + std::chrono::microseconds(us);
  auto now = start;
  while (queued_.load(std::memory_order_acquire) == 0 && now < until) {
    spin_pause();
    now = std::chrono::steady_clock::now();
  }
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(now - start).count());
}

void engine::shard::sleep_until_work(std::unique_lock<std::mutex>& lock, bool after_own_batch) {
  // The inserts and erases this thread's own last batch left go at once, in
  // a batch of their own: the shard is free and the server otherwise idle.
  // (No submitter ran a batch since: it leaves a polled shard's groups here.)
  if (after_own_batch && pipeline_->has_unsent_changes()) return;
  // Those a submitter's batch left wait for the next batch, whoever runs it
  // (run_once), also when this thread wakes before that batch comes (to
  // look again, for upkeep, or spuriously): sending them would leave the
  // shard busy (polling) for a while, and whether the next submitter found
  // it idle would turn on when this thread happened to wake.
  //
  // The index may want upkeep between batches (the GPU's resident kernel is
  // renewed before it ages out: index_port::upkeep_at), done here, by the
  // thread that would run the next batch, while none is to run.
  constexpr auto look_again = std::chrono::milliseconds(50);  // while it may not own the pipeline
  for (;;) {
    // A submitter's batch moved the index to the CPU: the submitters run
    // the batches now, and this thread sleeps (run).
    if (inline_) return;
    // (a submitter may be running a batch: the pipeline is then its)
    if (running_) {
      wake_.wait_for(lock, look_again);
      continue;
    }
    if (stopping_ || !queue_.empty()) return;
    const auto upkeep_at = pipeline_->index_upkeep().upkeep_at();
    if (!upkeep_at) {
      wake_.wait(lock);
    } else if (std::chrono::steady_clock::now() < *upkeep_at) {
      wake_.wait_until(lock, *upkeep_at);
    } else {
      running_ = true;  // the pipeline is this thread's, as for a batch
      lock.unlock();
      pipeline_->index_upkeep().upkeep();
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
  std::uint64_t poll_us = settings_.spin_us;
  std::uint64_t polled_ns = 0;   // polls for groups not yet counted (--index=auto weighs them)
  bool after_own_batch = false;  // the last batch was this thread's (not a submitter's)
  for (;;) {
    batch.clear();
    // After a batch, poll for the next groups (for as long as the rate of
    // arrivals calls for, or spin_us if longer) before sleeping: while the
    // shard is busy its groups then come here with no wake-up, and the
    // submitters leave them here (polling_) instead of running them on
    // their own threads.
    if (!inline_) polled_ns += poll_for_groups(poll_us);
    std::unique_lock lock(mutex_);
    polling_ = false;
    if (inline_) {
      // The index is on the CPU: the submitters run the batches.
      if (sleep_while_inline(lock)) break;
      after_own_batch = false;
      poll_us = settings_.spin_us;
      continue;
    }
    sleep_until_work(lock, after_own_batch);
    if (inline_) continue;
    if (stopping_ && queue_.empty()) break;
    running_ = true;
    std::size_t operations = 0;
    take(batch, operations);
    // Under load, wait (at most batch_wait_us) for the batch to fill to
    // the size of the last one: clients that were answered together
    // come back together. Waiting for more than can come would only
    // add the whole deadline to every batch.
    const std::size_t target = std::min(settings_.batch_max, last_operations);
    if (settings_.batch_wait_us != 0 && operations < target) {
      const auto filling = std::chrono::steady_clock::now();
      const auto deadline = filling + std::chrono::microseconds(settings_.batch_wait_us);
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
      polled_ns += static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                  std::chrono::steady_clock::now() - filling)
                                                  .count());
    }
    lock.unlock();
    last_operations = 0;
    if (batch.size() > 1)
      for (const request_group* group : batch) last_operations += operations_of(*group);
    pipeline_->index_upkeep().count_poll(polled_ns);  // (the pipeline is this thread's now)
    polled_ns = 0;
    run_and_complete(batch, true);
    after_own_batch = true;
    lock.lock();
    running_ = false;
    follow_index();
    // in the same step: no submitter finds the shard idle in between
    polling_ = !inline_;
    poll_us = std::max<std::uint64_t>(arrivals_.poll_us(), settings_.spin_us);
  }
  sender_->index_answered();  // (none are kept with nothing queued; for certainty)
  // Inserts and erases left by the last batch are only index bookkeeping;
  // the process is ending, so nothing is lost by not running them.
}

}  // namespace gpuhash::server::engine
