#pragma once
// Reading the stored pairs out of a slot array, for the designs that keep
// their pairs in one (linear probing, bucketed cuckoo), and out of a slot
// array with the values' rows after it (wide values:
// linear_probing/wide_view.hpp). Included by engine implementations only (it
// launches work through exec).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "gpuhash/detail/exec.hpp"
#include "gpuhash/detail/slot_layouts.hpp"
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

/// flags[i] = 1 where slot i is live, else 0.
template <class View>
struct flag_live_slot {
  const typename View::slot_type* slots;
  std::uint64_t* flags;
  GPUHASH_HD void operator()(std::uint64_t i) const { flags[i] = View::is_live(slots[i]) ? 1 : 0; }
};

/// Copies the pair of live slot i (its value from row i) to position[i].
template <class View>
struct unpack_slot_and_row {
  const typename View::slot_type* slots;
  const typename View::row_type* rows;
  const std::uint64_t* positions;
  typename View::key_type* keys;
  typename View::mapped_type* values;

  GPUHASH_HD void operator()(std::uint64_t i) const {
    if (!View::is_live(slots[i])) return;
    keys[positions[i]] = View::key_of(slots[i]);
    values[positions[i]] = View::value_of(rows[i]);
  }
};

/// Writes the live pairs of slots[0, capacity) to keys and values, in slot
/// order; `count` must be their number (the table's size), which is checked.
/// `slots` holds storage_slots<View>(capacity) elements.
template <class Backend, class View>
void retrieve_live(const typename View::slot_type* slots, std::uint64_t capacity,
                   typename View::key_type* keys, typename View::mapped_type* values,
                   std::size_t count, typename Backend::stream_type stream,
                   std::string_view design) {
  const auto check = [&](std::uint64_t found) {
    if (found != count)
      throw error("gpuhash: " + std::string(design) + " retrieve_all found " +
                  std::to_string(found) + " pairs where the table counted " +
                  std::to_string(count));
  };
  if constexpr (values_apart_v<View>) {
    // A live slot's row is found by its index, which a compaction of the
    // slots would lose: each live slot's position comes from a scan instead.
    auto flags = Backend::template allocate<std::uint64_t>(capacity, stream);
    auto positions = Backend::template allocate<std::uint64_t>(capacity, stream);
    exec<Backend>::for_each(capacity, flag_live_slot<View>{slots, flags.data()}, stream);
    check(exec<Backend>::exclusive_scan(flags.data(), capacity, positions.data(), stream));
    auto* slot_array = const_cast<typename View::slot_type*>(slots);
    exec<Backend>::for_each(capacity,
                            unpack_slot_and_row<View>{slots, View::rows_of(slot_array, capacity),
                                                      positions.data(), keys, values},
                            stream);
  } else {
    auto live = Backend::template allocate<typename View::slot_type>(count, stream);
    check(exec<Backend>::select_if(slots, capacity, live.data(), is_live_slot<View>{}, stream));
    exec<Backend>::for_each(count, unpack_slot<View>{live.data(), keys, values}, stream);
  }
}

}  // namespace gpuhash::detail
