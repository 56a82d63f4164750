#pragma once
// The CPU backend's parallel-for: a fixed set of std::threads that split an
// index range into chunks taken dynamically (std::thread rather than oneTBB or
// OpenMP because the GPU machines have neither library nor a package manager).

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace gpuhash::cpu {

class thread_pool {
 public:
  /// A pool of `thread_count` threads in all, the calling thread included.
  explicit thread_pool(unsigned thread_count = default_thread_count());
  ~thread_pool();
  thread_pool(const thread_pool&) = delete;
  thread_pool& operator=(const thread_pool&) = delete;

  unsigned thread_count() const noexcept { return static_cast<unsigned>(workers_.size()) + 1; }

  /// Calls body(begin, end) on disjoint chunks that cover [0, n) and returns
  /// when all are done. Chunks hold `grain` indices (0 picks a size). The first
  /// exception a body throws is rethrown here. A parallel_for issued from inside
  /// a body runs on the calling thread alone.
  template <class Body>
  void parallel_for(std::uint64_t n, Body&& body, std::uint64_t grain = 0) {
    using body_type = std::remove_reference_t<Body>;
    run(n, grain, &call_body<body_type>, const_cast<void*>(static_cast<const void*>(&body)));
  }

  /// The process-wide pool: GPUHASH_CPU_THREADS threads if set, else one per
  /// hardware thread.
  static thread_pool& shared();
  static unsigned default_thread_count();

 private:
  using chunk_function = void (*)(void* body, std::uint64_t begin, std::uint64_t end);

  template <class Body>
  static void call_body(void* body, std::uint64_t begin, std::uint64_t end) {
    (*static_cast<Body*>(body))(begin, end);
  }

  struct job {
    std::uint64_t n = 0;
    std::uint64_t grain = 1;
    chunk_function function = nullptr;
    void* body = nullptr;
  };

  void run(std::uint64_t n, std::uint64_t grain, chunk_function function, void* body);
  void work_on_current_job();
  void worker_loop();

  std::vector<std::thread> workers_;
  std::mutex submit_mutex_;  // one job at a time: held by run() for the job's whole life
  std::mutex state_mutex_;   // guards the fields below
  std::condition_variable wake_workers_;
  std::condition_variable job_done_;
  job current_{};
  std::uint64_t generation_ = 0;  // bumped per job; workers wait for a new value
  unsigned busy_workers_ = 0;
  std::uint64_t next_index_ = 0;  // next unclaimed index of the current job (atomic_ref)
  std::exception_ptr first_error_;
  bool stopping_ = false;
};

}  // namespace gpuhash::cpu
