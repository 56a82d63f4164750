#pragma once
// Reading the stored pairs out of a slot array, for the designs that keep
// their pairs in one (linear probing, bucketed cuckoo). Included by engine
// implementations only (it launches work through exec).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "gpuhash/detail/exec.hpp"
#include "gpuhash/errors.hpp"
#include "gpuhash/host_device.hpp"

namespace gpuhash::detail {

template <class View>
struct is_live_slot {
  GPUHASH_HD bool operator()(const typename View::slot_type& slot) const {
    return View::is_live(slot);
  }
};

template <class View>
struct unpack_slot {
  const typename View::slot_type* slots;
  typename View::key_type* keys;
  typename View::mapped_type* values;

  GPUHASH_HD void operator()(std::uint64_t i) const {
    keys[i] = View::key_of(slots[i]);
    values[i] = View::value_of(slots[i]);
  }
};

/// Writes the live pairs of slots[0, capacity) to keys and values; `count`
/// must be their number (the table's size), which is checked.
template <class Backend, class View>
void retrieve_live(const typename View::slot_type* slots, std::uint64_t capacity,
                   typename View::key_type* keys, typename View::mapped_type* values,
                   std::size_t count, typename Backend::stream_type stream,
                   std::string_view design) {
  auto live = Backend::template allocate<typename View::slot_type>(count, stream);
  const std::uint64_t selected =
      exec<Backend>::select_if(slots, capacity, live.data(), is_live_slot<View>{}, stream);
  if (selected != count)
    throw error("gpuhash: " + std::string(design) + " retrieve_all found " +
                std::to_string(selected) + " pairs where the table counted " +
                std::to_string(count));
  exec<Backend>::for_each(count, unpack_slot<View>{live.data(), keys, values}, stream);
}

}  // namespace gpuhash::detail
