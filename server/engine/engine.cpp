// Gathers request groups into batches and runs them (core.cpp), on a batch
// thread for an index on the GPU, on the submitting threads for one on the
// CPU (engine.hpp). Batching policy (issue #7, the thesis' further work): a
// batch goes as soon as the thread is free when the server is otherwise
// idle. The batch thread, under load (the last batch carried several
// groups), waits up to batch_wait_us for the batch to fill to the last
// batch's size (at most batch_max operations); a submitting thread takes
// what is queued and does not wait, since nothing overlaps a batch on the
// CPU.

#include "engine/engine.hpp"

#include <sys/prctl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>

#include "engine/core.hpp"

namespace gpuhash::server::engine {

namespace {

/// Index operations a group adds to a batch (an estimate: its keys).
std::size_t operations_of(const request_group& group) {
  std::size_t operations = 0;
  for (std::size_t i = 0; i < group.used; ++i)
    operations += std::max<std::size_t>(1, group.items[i].request.keys.size());
  return operations;
}

}  // namespace

engine::engine(engine_config config, server_stats& stats, completion_handler on_complete)
    : config_(std::move(config)), stats_(stats), on_complete_(std::move(on_complete)) {
  core_ = std::make_unique<core>(config_, stats_);
  using runner = engine_config::batch_runner;
  inline_ = config_.runner == runner::submitting_thread ||
            (config_.runner == runner::automatic && !core_->index_on_device());
  if (!inline_) thread_ = std::thread([this] { run(); });
}

engine::~engine() {
  stop();
}

void engine::submit(std::span<request_group* const> groups) {
  if (groups.empty()) return;
  bool run_here = false;
  {
    std::lock_guard lock(mutex_);
    queue_.insert(queue_.end(), groups.begin(), groups.end());
    queued_.store(queue_.size(), std::memory_order_release);
    if (inline_ && !running_) run_here = running_ = true;
  }
  if (run_here) {
    run_queued();
  } else if (!inline_) {
    wake_.notify_one();
  }
}

void engine::take(std::vector<request_group*>& batch, std::size_t& operations) {
  while (!queue_.empty() && operations < config_.batch_max) {
    operations += operations_of(*queue_.front());
    batch.push_back(queue_.front());
    queue_.pop_front();
  }
  queued_.store(queue_.size(), std::memory_order_release);
}

void engine::run_queued() {
  std::vector<request_group*> batch;
  for (;;) {
    batch.clear();
    {
      std::lock_guard lock(mutex_);
      std::size_t operations = 0;
      take(batch, operations);
      // The last check of the queue and the end of running_ are one step
      // under the lock: a group queued after it finds running_ false and is
      // run by its own submitter.
      if (batch.empty()) {
        running_ = false;
        return;
      }
    }
    run_and_complete(batch);
  }
}

void engine::run_and_complete(std::vector<request_group*>& batch) {
  try {
    core_->run_batch(batch);
  } catch (const std::exception& error) {
    // Out of memory while building replies, say: the batch's clients are
    // told and disconnected; the server goes on.
    std::fprintf(stderr, "gpuhash-server: ERROR: a batch failed (%s); closing its connections\n",
                 error.what());
    for (request_group* group : batch) {
      group->done = group->used;
      group->replies.assign("SERVER_ERROR out of memory\r\n");
      group->close_after = true;
    }
  }
  if (core_->shutdown_accepted()) shutdown_requested_ = true;
  for (request_group* group : batch) on_complete_(group);
}

std::string engine::index_description() const {
  return core_->index_description();
}

void engine::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void engine::run() {
  // Waits of a few microseconds must not be rounded up to the default 50 us
  // timer slack.
  prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
  std::vector<request_group*> batch;
  std::size_t last_operations = 0;  // the size of the last batch, when it had several groups
  for (;;) {
    batch.clear();
    // With cores to spare, poll a little before sleeping: a futex wake-up
    // costs more than the batches it would wait for.
    if (config_.spin_us != 0 && queued_.load(std::memory_order_acquire) == 0 &&
        !core_->has_pending_mutations()) {
      const auto until =
          std::chrono::steady_clock::now() + std::chrono::microseconds(config_.spin_us);
      while (queued_.load(std::memory_order_acquire) == 0 &&
             std::chrono::steady_clock::now() < until) {
      }
    }
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock,
                 [&] { return stopping_ || !queue_.empty() || core_->has_pending_mutations(); });
      if (stopping_ && queue_.empty()) break;
      std::size_t operations = 0;
      take(batch, operations);
      // Under load, wait (at most batch_wait_us) for the batch to fill to
      // the size of the last one: clients that were answered together come
      // back together. Waiting for more than can come would only add the
      // whole deadline to every batch.
      const std::size_t target = std::min(config_.batch_max, last_operations);
      if (config_.batch_wait_us != 0 && operations < target) {
        const auto deadline =
            std::chrono::steady_clock::now() + std::chrono::microseconds(config_.batch_wait_us);
        while (operations < target && !stopping_) {
          if (!wake_.wait_until(lock, deadline, [&] { return !queue_.empty() || stopping_; }))
            break;
          take(batch, operations);
        }
      }
    }
    last_operations = 0;
    if (batch.size() > 1)
      for (const request_group* group : batch) last_operations += operations_of(*group);
    run_and_complete(batch);
  }
  // Inserts and erases left by the last batch are only index bookkeeping;
  // the process is ending, so nothing is lost by not running them.
}

}  // namespace gpuhash::server::engine
