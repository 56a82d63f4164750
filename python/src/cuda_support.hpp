#pragma once
// backend_support for the CUDA backend (see backend_support.hpp). Plain C++:
// the one kernel, found_flags, is compiled by nvcc in found_flags.cu.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <mutex>

#include "backend_support.hpp"
#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/cuda/error.hpp"

namespace gpuhash::python {

/// backend_support::found_flags on the GPU, queued on `stream`.
void found_flags_on_gpu(std::uint8_t* bytes, std::size_t n, cudaStream_t stream);

template <>
struct backend_support<cuda_backend> {
  static cudaStream_t stream(stream_handle handle) noexcept {
    return reinterpret_cast<cudaStream_t>(handle);
  }

  /// The stream a table's calls run on: the table's own, made to wait first
  /// for the work queued so far on the caller's stream (an event). A table
  /// never runs on the caller's stream itself, because it keeps the last
  /// stream it used (it synchronizes it and frees its memory in order on
  /// it, basic_map and device_buffer), and CuPy and PyTorch destroy a
  /// stream when its Python object goes: a table that had grown on such a
  /// stream crashed the interpreter when it was collected later. Every call
  /// is synchronous, so nothing of the table's is left queued after it.
  class call_stream {
   public:
    /// On the current device (the table's: construct inside its device_scope).
    call_stream() {
      GPUHASH_CUDA_TRY(cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming));
      const cudaError_t made = cudaStreamCreateWithFlags(&own_, cudaStreamNonBlocking);
      if (made != cudaSuccess) GPUHASH_CUDA_REPORT(cudaEventDestroy(ready_));
      GPUHASH_CUDA_TRY(made);
    }
    ~call_stream() {
      GPUHASH_CUDA_REPORT(cudaStreamDestroy(own_));
      GPUHASH_CUDA_REPORT(cudaEventDestroy(ready_));
    }
    call_stream(const call_stream&) = delete;
    call_stream& operator=(const call_stream&) = delete;

    /// The table's stream, ordered after what `caller` holds now. One event
    /// serves every call: a wait takes the event's state when it is queued,
    /// so the next call may record it again at once. The lock keeps one
    /// thread's record and wait together (a static HashGraph's finds run
    /// from several Python threads at once).
    cudaStream_t after(stream_handle caller) const {
      const std::lock_guard lock(mutex_);
      GPUHASH_CUDA_TRY(cudaEventRecord(ready_, stream(caller)));
      GPUHASH_CUDA_TRY(cudaStreamWaitEvent(own_, ready_, 0));
      return own_;
    }

   private:
    cudaStream_t own_ = nullptr;
    cudaEvent_t ready_ = nullptr;
    mutable std::mutex mutex_;
  };

  /// Makes the table's GPU current for the scope of a call and restores the
  /// caller's device after it (CuPy and PyTorch keep their own notion of the
  /// current device in the same runtime).
  class device_scope {
   public:
    explicit device_scope(int ordinal) {
      GPUHASH_CUDA_TRY(cudaGetDevice(&previous_));
      if (previous_ != ordinal) GPUHASH_CUDA_TRY(cudaSetDevice(ordinal));
    }
    ~device_scope() {
      int current = previous_;
      GPUHASH_CUDA_REPORT(cudaGetDevice(&current));
      if (current != previous_) GPUHASH_CUDA_REPORT(cudaSetDevice(previous_));
    }
    device_scope(const device_scope&) = delete;
    device_scope& operator=(const device_scope&) = delete;

   private:
    int previous_ = 0;
  };

  static void found_flags(std::uint8_t* bytes, std::size_t n, cudaStream_t stream) {
    found_flags_on_gpu(bytes, n, stream);
  }
};

}  // namespace gpuhash::python
