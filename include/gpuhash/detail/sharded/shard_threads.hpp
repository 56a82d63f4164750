#pragma once
// One host thread per shard of a sharded_map, kept for the exchange's life:
// run(task) has thread g call task(g) for every g and returns when all have.
// A thread per shard because a shard's inserting table calls are
// synchronous: on the GPU, G shards driven from one thread would take turns,
// and on the CPU the host exchange is this concurrency. Both exchanges run their
// for_each_shard here (docs/designs/sharded.md, "The NCCL exchange").

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gpuhash::detail {

class shard_threads {
 public:
  explicit shard_threads(std::size_t count);
  ~shard_threads();
  shard_threads(const shard_threads&) = delete;
  shard_threads& operator=(const shard_threads&) = delete;

  std::size_t size() const noexcept { return threads_.size(); }

  /// Calls task(g) on thread g for every g and returns when all calls have
  /// returned; rethrows the first exception a call threw (the other calls
  /// still run to their end). One caller at a time, never from inside a task.
  void run(const std::function<void(std::size_t)>& task);

 private:
  void work(std::size_t shard);
  void stop() noexcept;

  std::mutex mutex_;  // guards every member below but threads_
  std::condition_variable start_;
  std::condition_variable done_;
  const std::function<void(std::size_t)>* task_ = nullptr;
  std::uint64_t generation_ = 0;  // bumped per run; a thread runs once per new value
  std::size_t running_ = 0;       // threads of the current run not yet done
  std::exception_ptr first_error_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;  // last: started once the state above exists
};

}  // namespace gpuhash::detail
