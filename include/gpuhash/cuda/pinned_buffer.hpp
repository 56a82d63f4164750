#pragma once
// Owning, uninitialized page-locked host memory (cudaMallocHost). A copy from
// the device into it is a plain DMA; into pageable memory the driver stages
// it, which adds microseconds to every small result a batch sends back.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <type_traits>
#include <utility>

#include "gpuhash/cuda/error.hpp"

namespace gpuhash::cuda {

template <class T>
class pinned_buffer {
  static_assert(std::is_trivially_copyable_v<T>, "gpuhash: buffers hold trivially copyable types");

 public:
  pinned_buffer() = default;
  explicit pinned_buffer(std::size_t size) : size_(size) {
    if (size_ == 0) return;
    void* pointer = nullptr;
    const cudaError_t code = cudaMallocHost(&pointer, size_ * sizeof(T));
    if (code == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      throw out_of_memory("gpuhash::cuda::pinned_buffer", size_ * sizeof(T));
    }
    GPUHASH_CUDA_TRY(code);
    data_ = static_cast<T*>(pointer);
  }
  ~pinned_buffer() { release(); }

  pinned_buffer(pinned_buffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  pinned_buffer& operator=(pinned_buffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  pinned_buffer(const pinned_buffer&) = delete;
  pinned_buffer& operator=(const pinned_buffer&) = delete;

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }

 private:
  void release() noexcept {
    if (data_ != nullptr) GPUHASH_CUDA_REPORT(cudaFreeHost(data_));
    data_ = nullptr;
    size_ = 0;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace gpuhash::cuda
