#pragma once
// What the Python tables need from a backend beyond basic_map: the stream a
// call runs on (call_stream), the device it runs on, and turning statuses into the bool
// flags that Map.find returns. The CPU backend is here; the CUDA backend's
// specialization is in cuda_support.hpp.

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/status.hpp"
#include "tables.hpp"

namespace gpuhash::python {

template <class Backend>
struct backend_support;

template <>
struct backend_support<cpu_backend> {
  static cpu::stream stream(stream_handle) noexcept { return {}; }
  /// The CPU backend's calls run on the shared thread pool, whatever the caller.
  struct call_stream {
    cpu::stream after(stream_handle) const noexcept { return {}; }
  };

  /// The CPU has no current device to select.
  struct device_scope {
    explicit device_scope(int) noexcept {}
  };

  /// found[i] = (statuses[i] == status::found), on the shared thread pool.
  static void found_flags(const status* statuses, std::size_t n, bool* found, cpu::stream stream) {
    stream.get().parallel_for(n, [&](std::uint64_t begin, std::uint64_t end) {
      std::transform(statuses + begin, statuses + end, found + begin,
                     [](status s) { return s == status::found; });
    });
  }
};

}  // namespace gpuhash::python
