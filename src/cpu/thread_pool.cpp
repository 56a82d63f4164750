#include "gpuhash/cpu/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string>

namespace gpuhash::cpu {

namespace {
// Set on pool threads while they run a body, so nested parallel_for calls run
// inline instead of waiting for a job that cannot start.
thread_local bool inside_body = false;
}  // namespace

unsigned thread_pool::default_thread_count() {
  if (const char* text = std::getenv("GPUHASH_CPU_THREADS")) {
    const long requested = std::strtol(text, nullptr, 10);
    if (requested > 0) return static_cast<unsigned>(requested);
  }
  return std::max(1U, std::thread::hardware_concurrency());
}

thread_pool& thread_pool::shared() {
  static thread_pool pool;
  return pool;
}

thread_pool::thread_pool(unsigned thread_count) {
  const unsigned workers = std::max(1U, thread_count) - 1;
  workers_.reserve(workers);
  for (unsigned i = 0; i < workers; ++i) workers_.emplace_back([this] { worker_loop(); });
}

thread_pool::~thread_pool() {
  {
    std::lock_guard lock(state_mutex_);
    stopping_ = true;
  }
  wake_workers_.notify_all();
  for (auto& worker : workers_) worker.join();
}

void thread_pool::run(std::uint64_t n, std::uint64_t grain, chunk_function function, void* body) {
  if (n == 0) return;
  if (grain == 0) grain = std::max<std::uint64_t>(1024, n / (std::uint64_t{thread_count()} * 16));
  if (inside_body || workers_.empty() || n <= grain) {
    function(body, 0, n);
    return;
  }
  std::lock_guard submit(submit_mutex_);
  {
    std::lock_guard lock(state_mutex_);
    current_ = job{n, grain, function, body};
    next_index_ = 0;
    first_error_ = nullptr;
    busy_workers_ = static_cast<unsigned>(workers_.size());
    ++generation_;
  }
  wake_workers_.notify_all();
  work_on_current_job();
  std::exception_ptr error;
  {
    std::unique_lock lock(state_mutex_);
    job_done_.wait(lock, [this] { return busy_workers_ == 0; });
    error = first_error_;
  }
  if (error) std::rethrow_exception(error);
}

void thread_pool::work_on_current_job() {
  const job work = current_;  // published under state_mutex_ before the wake-up
  std::atomic_ref<std::uint64_t> next(next_index_);
  inside_body = true;
  try {
    for (;;) {
      const std::uint64_t begin = next.fetch_add(work.grain, std::memory_order_relaxed);
      if (begin >= work.n) break;
      work.function(work.body, begin, std::min(work.n, begin + work.grain));
    }
  } catch (...) {
    std::lock_guard lock(state_mutex_);
    if (!first_error_) first_error_ = std::current_exception();
    next.store(work.n, std::memory_order_relaxed);  // the others stop taking chunks
  }
  inside_body = false;
}

void thread_pool::worker_loop() {
  std::uint64_t seen_generation = 0;
  for (;;) {
    {
      std::unique_lock lock(state_mutex_);
      wake_workers_.wait(lock, [&] { return stopping_ || generation_ != seen_generation; });
      if (stopping_) return;
      seen_generation = generation_;
    }
    work_on_current_job();
    {
      std::lock_guard lock(state_mutex_);
      if (--busy_workers_ == 0) job_done_.notify_one();
    }
  }
}

}  // namespace gpuhash::cpu
