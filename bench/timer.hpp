#pragma once
// Timing of one benchmark step: CUDA events on the stream for the CUDA
// backend (device time, no host overhead), a steady clock for the CPU backend
// (whose batches are synchronous) and for any call that returns only when
// its work is done (wall_clock_ms).

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <vector>

#include "gpuhash/cpu/backend.hpp"
#if defined(GPUHASH_HAS_CUDA)
#include "gpuhash/cuda/backend.hpp"
#endif

namespace gpuhash::bench {

/// The median of timed repetitions (of an even number, the mean of the
/// middle two).
inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

/// Milliseconds of host wall-clock time taken by step(): the time of a call
/// that returns only when its results are written (a CPU batch; a sharded
/// map's call, whose work runs on several devices and on the host between
/// them).
template <class Step>
double wall_clock_ms(Step&& step) {
  const auto start = std::chrono::steady_clock::now();
  step();
  const auto stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::milli>(stop - start).count();
}

template <class Backend>
class step_timer;

template <>
class step_timer<cpu_backend> {
 public:
  /// Milliseconds taken by step().
  template <class Step>
  double time(Step&& step, cpu::stream = {}) {
    return wall_clock_ms(step);
  }
};

#if defined(GPUHASH_HAS_CUDA)
template <>
class step_timer<cuda_backend> {
 public:
  step_timer() {
    GPUHASH_CUDA_TRY(cudaEventCreate(&start_));
    GPUHASH_CUDA_TRY(cudaEventCreate(&stop_));
  }
  ~step_timer() {
    GPUHASH_CUDA_REPORT(cudaEventDestroy(start_));
    GPUHASH_CUDA_REPORT(cudaEventDestroy(stop_));
  }
  step_timer(const step_timer&) = delete;
  step_timer& operator=(const step_timer&) = delete;

  /// Milliseconds of device time between the events around step()'s work.
  template <class Step>
  double time(Step&& step, cudaStream_t stream = nullptr) {
    GPUHASH_CUDA_TRY(cudaEventRecord(start_, stream));
    step();
    GPUHASH_CUDA_TRY(cudaEventRecord(stop_, stream));
    GPUHASH_CUDA_TRY(cudaEventSynchronize(stop_));
    float ms = 0;
    GPUHASH_CUDA_TRY(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaEvent_t start_{};
  cudaEvent_t stop_{};
};
#endif

}  // namespace gpuhash::bench
