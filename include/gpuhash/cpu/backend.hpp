#pragma once
// The CPU backend: host memory, work on a thread pool. Always built. Its
// "stream" names the pool that runs a batch (the shared pool by default); work
// is synchronous, so the `_async` forms of a table complete before returning.

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

#include "gpuhash/cpu/host_buffer.hpp"
#include "gpuhash/cpu/thread_pool.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash {

namespace cpu {
/// Where a CPU batch runs: the given pool, or the shared one when null.
struct stream {
  thread_pool* pool = nullptr;
  thread_pool& get() const { return pool != nullptr ? *pool : thread_pool::shared(); }
  bool operator==(const stream&) const = default;
};
}  // namespace cpu

struct cpu_backend {
  static constexpr std::string_view name = "cpu";
  using stream_type = cpu::stream;
  template <class T>
  using buffer = cpu::host_buffer<T>;
  /// Whether host code may read the backend's memory directly.
  static constexpr bool host_accessible = true;

  static bool available() noexcept { return true; }
  static std::string device_name();
  static void synchronize(stream_type) noexcept {}

  template <class T>
  static buffer<T> allocate(std::size_t n, stream_type = {}) {
    return buffer<T>(n);
  }
  /// Host memory for results read back after a batch (any host memory here).
  template <class T>
  using host_buffer = cpu::host_buffer<T>;
  template <class T>
  static host_buffer<T> allocate_host(std::size_t n) {
    return host_buffer<T>(n);
  }
  template <class T>
  static void copy(T* destination, const T* source, std::size_t n, stream_type = {}) {
    if (n != 0) std::memcpy(destination, source, n * sizeof(T));
  }
  /// Device to host without waiting (the same as copy_to_host here).
  template <class T>
  static void copy_to_host_async(T* destination, const T* source, std::size_t n,
                                 stream_type s = {}) {
    copy(destination, source, n, s);
  }
  template <class T>
  static void copy_to_host(T* destination, const T* source, std::size_t n, stream_type s = {}) {
    copy(destination, source, n, s);
  }
  template <class T>
  static void copy_from_host(T* destination, const T* source, std::size_t n, stream_type s = {}) {
    copy(destination, source, n, s);
  }
  template <class T>
  static void fill(T* destination, std::size_t n, T value, stream_type s = {}) {
    s.get().parallel_for(n, [&](std::uint64_t begin, std::uint64_t end) {
      std::fill(destination + begin, destination + end, value);
    });
  }
  /// Sets n bytes at `destination` to `byte`.
  static void fill_bytes(void* destination, std::size_t n, unsigned char byte, stream_type s = {}) {
    auto* bytes = static_cast<unsigned char*>(destination);
    s.get().parallel_for(n, [&](std::uint64_t begin, std::uint64_t end) {
      std::memset(bytes + begin, byte, end - begin);
    });
  }
  /// Writes the positions i with statuses[i] == match, in increasing order, to
  /// `positions` and returns how many there are.
  static std::size_t select_positions(const status* statuses, std::size_t n, status match,
                                      std::size_t* positions, stream_type = {}) {
    std::size_t count = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (statuses[i] == match) positions[count++] = i;
    }
    return count;
  }
  /// destination[j] = source[positions[j]] for j < m.
  template <class T>
  static void gather(const T* source, const std::size_t* positions, std::size_t m, T* destination,
                     stream_type = {}) {
    for (std::size_t j = 0; j < m; ++j) destination[j] = source[positions[j]];
  }
  /// destination[positions[j]] = source[j] for j < m.
  template <class T>
  static void scatter(const T* source, const std::size_t* positions, std::size_t m, T* destination,
                      stream_type = {}) {
    for (std::size_t j = 0; j < m; ++j) destination[positions[j]] = source[j];
  }
};

}  // namespace gpuhash
