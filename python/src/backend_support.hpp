#pragma once
// What the Python tables need from a backend beyond basic_map: the stream a
// call runs on (call_stream), the device it runs on, and turning statuses into the bool
// flags that HashGraphSet.find returns. The CPU backend is here; the CUDA backend's
// specialization is in cuda_support.hpp.

#include <cstddef>
#include <cstdint>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/status.hpp"
#include "tables.hpp"

namespace gpuhash::python {

/// HashGraphSet's find writes its statuses into the `found` array it returns
/// (one byte each, as a bool) and turns them into flags there, so that a
/// find needs no buffer of its own: the byte of status::found. (Map.find has
/// basic_map write the flags.)
static_assert(sizeof(status) == 1 && sizeof(bool) == 1);
inline constexpr std::uint8_t found_byte = static_cast<std::uint8_t>(status::found);

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

  /// Turns the statuses a find wrote into `bytes` into bool flags (1 where
  /// status::found, else 0), in place, on the shared thread pool.
  static void found_flags(std::uint8_t* bytes, std::size_t n, cpu::stream stream) {
    stream.get().parallel_for(n, [&](std::uint64_t begin, std::uint64_t end) {
      for (std::uint64_t i = begin; i < end; ++i) bytes[i] = bytes[i] == found_byte;
    });
  }
};

}  // namespace gpuhash::python
