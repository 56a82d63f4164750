#pragma once
// Copies between host vectors and a backend's buffers, for tests that run
// kernels of their own (refs called per thread).

#include <algorithm>
#include <cstddef>
#include <vector>

namespace gpuhash::testing {

/// A buffer of the backend's holding `host` (one element at least, so that
/// an empty input still has an address).
template <class Backend, class T>
auto to_backend(const std::vector<T>& host) {
  auto buffer = Backend::template allocate<T>(std::max<std::size_t>(host.size(), 1));
  if (!host.empty()) Backend::copy_from_host(buffer.data(), host.data(), host.size());
  return buffer;
}

/// The first n elements at `data`, a backend's memory, as a host vector.
template <class Backend, class T>
std::vector<T> to_host(const T* data, std::size_t n) {
  std::vector<T> host(n);
  if (n != 0) Backend::copy_to_host(host.data(), data, n);
  return host;
}

}  // namespace gpuhash::testing
