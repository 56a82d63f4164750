#include "gpuhash/detail/sharded/shard_threads.hpp"

#include <utility>

namespace gpuhash::detail {

shard_threads::shard_threads(std::size_t count) {
  threads_.reserve(count);
  try {
    for (std::size_t g = 0; g < count; ++g) threads_.emplace_back([this, g] { work(g); });
  } catch (...) {  // a thread could not start: those that did must end before the throw
    stop();
    throw;
  }
}

shard_threads::~shard_threads() {
  stop();
}

void shard_threads::stop() noexcept {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  start_.notify_all();
  for (auto& thread : threads_) thread.join();
  threads_.clear();
}

void shard_threads::run(const std::function<void(std::size_t)>& task) {
  std::unique_lock lock(mutex_);
  task_ = &task;
  running_ = threads_.size();
  first_error_ = nullptr;
  ++generation_;
  start_.notify_all();
  done_.wait(lock, [this] { return running_ == 0; });
  task_ = nullptr;
  if (first_error_) std::rethrow_exception(std::exchange(first_error_, nullptr));
}

void shard_threads::work(std::size_t shard) {
  std::uint64_t seen = 0;
  for (;;) {
    const std::function<void(std::size_t)>* task = nullptr;
    {
      std::unique_lock lock(mutex_);
      start_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      task = task_;
    }
    std::exception_ptr error;
    try {
      (*task)(shard);
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard lock(mutex_);
    if (error && !first_error_) first_error_ = error;
    if (--running_ == 0) done_.notify_one();
  }
}

}  // namespace gpuhash::detail
