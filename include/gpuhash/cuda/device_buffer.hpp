#pragma once
// Owning, uninitialized device memory, allocated and freed in stream order
// (cudaMallocAsync / cudaFreeAsync), so growth and temporaries never force a
// device-wide synchronization.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <type_traits>
#include <utility>

#include "gpuhash/cuda/error.hpp"

namespace gpuhash::cuda {

template <class T>
class device_buffer {
  static_assert(std::is_trivially_copyable_v<T>, "gpuhash: buffers hold trivially copyable types");

 public:
  device_buffer() = default;
  device_buffer(std::size_t size, cudaStream_t stream) : size_(size), stream_(stream) {
    if (size_ == 0) return;
    void* pointer = nullptr;
    const cudaError_t code = cudaMallocAsync(&pointer, size_ * sizeof(T), stream_);
    if (code == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();  // not sticky: clear it so later checks do not see it
      throw out_of_memory("gpuhash::cuda::device_buffer", size_ * sizeof(T));
    }
    GPUHASH_CUDA_TRY(code);
    data_ = static_cast<T*>(pointer);
  }
  ~device_buffer() { release(); }

  device_buffer(device_buffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        stream_(other.stream_) {}
  device_buffer& operator=(device_buffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      stream_ = other.stream_;
    }
    return *this;
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::size_t size_bytes() const noexcept { return size_ * sizeof(T); }

  /// The stream the memory is freed on. A table that moves to another stream
  /// calls this so the free is ordered after its last use.
  void set_stream(cudaStream_t stream) noexcept { stream_ = stream; }
  cudaStream_t stream() const noexcept { return stream_; }

 private:
  void release() noexcept {
    if (data_ != nullptr) GPUHASH_CUDA_REPORT(cudaFreeAsync(data_, stream_));
    data_ = nullptr;
    size_ = 0;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
  cudaStream_t stream_ = nullptr;
};

}  // namespace gpuhash::cuda
