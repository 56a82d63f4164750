#pragma once
// Host data seen from a backend: the host memory itself where the backend can
// read it, else a copy in backend memory. Used by the host-container forms of
// the public classes.

#include <cstddef>
#include <span>
#include <vector>

namespace gpuhash::detail {

template <class Backend, class T>
class staged {
 public:
  /// Uninitialized backend memory for n elements (an output).
  explicit staged(std::size_t n) : size_(n) {
    buffer_ = Backend::template allocate<T>(n, {});
    pointer_ = buffer_.data();
  }
  /// The host elements, as backend memory (an input).
  explicit staged(std::span<const T> host) : size_(host.size()) {
    if constexpr (Backend::host_accessible) {
      pointer_ = const_cast<T*>(host.data());
    } else {
      buffer_ = Backend::template allocate<T>(host.size(), {});
      Backend::copy_from_host(buffer_.data(), host.data(), host.size(), {});
      pointer_ = buffer_.data();
    }
  }
  T* data() const { return pointer_; }
  std::vector<T> to_vector() const {
    std::vector<T> out(size_);
    Backend::copy_to_host(out.data(), pointer_, size_, {});
    return out;
  }
  void copy_to(std::span<T> host) const {
    if (host.data() != pointer_) Backend::copy_to_host(host.data(), pointer_, size_, {});
  }

 private:
  typename Backend::template buffer<T> buffer_;
  T* pointer_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace gpuhash::detail
