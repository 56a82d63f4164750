#pragma once
// gpuhash::string_map_ref: string_map's device-side API, as map_ref is the
// other tables' (gpuhash/map_ref.hpp says how refs are used, when they stay
// valid, and why the threads of a warp leave a call together). A key is a
// pointer to its bytes and their length, in memory the caller's kernel (or
// CPU thread) can read:
//
//   auto ref = words.ref();                      // host, between batches
//   ...                                          // in a kernel or a thread:
//   if (ref.insert(word, length, 1) == gpuhash::status::full) { /* keep it */ }
//   std::uint32_t count;
//   if (ref.find(word, length, &count) == gpuhash::status::found) ...
//
// An insert copies the key's bytes into the table's arena; one that finds no
// slot or no arena room left answers `full`: the table grows only between
// calls from the host (reserve(keys, bytes) makes room ahead).

#include <cstdint>

#include "gpuhash/detail/counters.hpp"
#include "gpuhash/detail/string_map/view.hpp"
#include "gpuhash/host_device.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash {

template <class Value, class Backend, class Hash>
class string_map;

template <class Value, class Hash>
class string_map_ref {
 public:
  using mapped_type = Value;

  string_map_ref() = default;

  /// found (*value set, if value is not null) or not_found.
  GPUHASH_HD status find(const char* key, std::uint32_t length, Value* value) const {
    return detail::run_together([&] { return view_.find(view_.key(key, length), value); });
  }
  GPUHASH_HD bool contains(const char* key, std::uint32_t length) const {
    return find(key, length, nullptr) == status::found;
  }
  /// Inserts an absent key: inserted, exists (value unchanged) or full.
  GPUHASH_HD status insert(const char* key, std::uint32_t length, Value value) const {
    return detail::run_counted(counts_,
                               [&] { return view_.write(view_.key(key, length), value, false); });
  }
  /// Upsert: inserted, updated or full.
  GPUHASH_HD status insert_or_assign(const char* key, std::uint32_t length, Value value) const {
    return detail::run_counted(counts_,
                               [&] { return view_.write(view_.key(key, length), value, true); });
  }
  /// erased or not_found.
  GPUHASH_HD status erase(const char* key, std::uint32_t length) const {
    return detail::run_counted(counts_, [&] { return view_.erase(view_.key(key, length)); });
  }

 private:
  template <class V, class B, class H>
  friend class string_map;

  using view_type = detail::string_map::view<Value, Hash>;
  GPUHASH_HD string_map_ref(view_type view, detail::ref_counts* counts)
      : view_(view), counts_(counts) {}

  view_type view_{};
  detail::ref_counts* counts_ = nullptr;
};

}  // namespace gpuhash
