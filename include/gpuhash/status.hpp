#pragma once
// Per-operation results. Every batch operation writes one status per key, so a
// caller can always tell what happened to each key: nothing is lost silently.

#include <cstdint>

// The names are host only: NVRTC has no <string_view> or <ostream>
// (docs/device_api.md, "Kernels compiled at run time").
#if !defined(__CUDACC_RTC__)
#include <ostream>
#include <string_view>
#endif

namespace gpuhash {

enum class status : std::uint8_t {
  inserted,           ///< the key was absent and is now stored
  updated,            ///< the key was present and its value was replaced
  exists,             ///< insert-if-absent found the key already present (value unchanged)
  found,              ///< search found the key (its value was written)
  not_found,          ///< search, update or erase did not find the key
  erased,             ///< the key was present and is now removed
  full,               ///< no room for the key; only `_async` calls return it (see map.hpp)
  invalid_key,        ///< the key is one of the design's reserved sentinel values
  invalid_operation,  ///< an `apply` batch held a byte that is no `operation`
};

inline constexpr int status_count = 9;

#if !defined(__CUDACC_RTC__)
constexpr std::string_view to_string(status s) noexcept {
  switch (s) {
    case status::inserted: return "inserted";
    case status::updated: return "updated";
    case status::exists: return "exists";
    case status::found: return "found";
    case status::not_found: return "not_found";
    case status::erased: return "erased";
    case status::full: return "full";
    case status::invalid_key: return "invalid_key";
    case status::invalid_operation: return "invalid_operation";
  }
  return "unknown_status";
}

inline std::ostream& operator<<(std::ostream& out, status s) {
  return out << to_string(s);
}
#endif

}  // namespace gpuhash
