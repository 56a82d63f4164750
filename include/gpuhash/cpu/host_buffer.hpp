#pragma once
// Owning, uninitialized, 64-byte aligned host memory: the CPU backend's
// counterpart of cuda::device_buffer, so designs allocate through one interface.

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

#include "gpuhash/errors.hpp"

namespace gpuhash::cpu {

template <class T>
class host_buffer {
  static_assert(std::is_trivially_copyable_v<T>, "gpuhash: buffers hold trivially copyable types");

 public:
  static constexpr std::size_t alignment = 64;  // one cache line, one GPU sector pair

  host_buffer() = default;
  explicit host_buffer(std::size_t size) : size_(size) {
    if (size_ == 0) return;
    try {
      data_ = static_cast<T*>(::operator new (size_ * sizeof(T), std::align_val_t{alignment}));
    } catch (const std::bad_alloc&) {
      throw out_of_memory("gpuhash::cpu::host_buffer", size_ * sizeof(T));
    }
  }
  ~host_buffer() { release(); }

  host_buffer(host_buffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  host_buffer& operator=(host_buffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  host_buffer(const host_buffer&) = delete;
  host_buffer& operator=(const host_buffer&) = delete;

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::size_t size_bytes() const noexcept { return size_ * sizeof(T); }

 private:
  void release() noexcept {
    if (data_ != nullptr) ::operator delete (data_, std::align_val_t{alignment});
    data_ = nullptr;
    size_ = 0;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace gpuhash::cpu
