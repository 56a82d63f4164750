#pragma once
// backend_support for the CUDA backend (see backend_support.hpp). Plain C++:
// the one kernel, found_flags, is compiled by nvcc in found_flags.cu.

#include <cuda_runtime_api.h>

#include <cstddef>

#include "backend_support.hpp"
#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/cuda/error.hpp"

namespace gpuhash::python {

/// found[i] = (statuses[i] == status::found) for i < n, queued on `stream`.
void found_flags_on_gpu(const status* statuses, std::size_t n, bool* found, cudaStream_t stream);

template <>
struct backend_support<cuda_backend> {
  static cudaStream_t stream(stream_handle handle) noexcept {
    return reinterpret_cast<cudaStream_t>(handle);
  }

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

  static void found_flags(const status* statuses, std::size_t n, bool* found, cudaStream_t stream) {
    found_flags_on_gpu(statuses, n, found, stream);
  }
};

}  // namespace gpuhash::python
