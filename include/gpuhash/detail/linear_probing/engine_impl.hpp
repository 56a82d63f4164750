#pragma once
// Member definitions of linear_probing::engine. Included only by the files
// that instantiate the engine: a .cpp for the CPU backend, a .cu for CUDA.

#include <algorithm>
#include <string>
#include <utility>

#include "gpuhash/detail/exec.hpp"
#include "gpuhash/detail/linear_probing/engine.hpp"
#include "gpuhash/detail/linear_probing/table_batches.hpp"
#include "gpuhash/detail/live_slots.hpp"
#include "gpuhash/errors.hpp"

#if defined(__CUDACC__)
#include "gpuhash/detail/linear_probing/wide_find.cuh"
#endif

namespace gpuhash::detail::linear_probing {

/// Re-inserts one live slot of the old table into the new one (rehash).
template <class View>
struct reinsert_slot {
  View target;
  const typename View::slot_type* old_slots;

  GPUHASH_HD status operator()(std::uint64_t i) const {
    const typename View::slot_type slot = old_slots[i];
    if (!View::is_live(slot)) return status::not_found;
    return target.insert(View::key_of(slot), View::value_of(slot));
  }
};

/// The same for views that keep values apart from slots (wide values): the
/// old table's pair read through its view.
template <class View>
struct reinsert_slot_and_row {
  View target;
  View source;

  GPUHASH_HD status operator()(std::uint64_t i) const {
    if (!source.live_at(i)) return status::not_found;
    return target.insert(source.key_at(i), source.value_at(i));
  }
};

inline std::size_t round_up(std::size_t n, std::size_t multiple) {
  return (n + multiple - 1) / multiple * multiple;
}

template <class Key, class Value, class Backend, class Hash, class KeyEqual>
engine<Key, Value, Backend, Hash, KeyEqual>::engine(std::size_t min_capacity, std::uint64_t seed,
                                                    stream_type stream)
    : capacity_(round_up(std::max<std::size_t>(min_capacity, 1), word_view_type::window_slots)),
      seed_(seed) {
  slots_ = Backend::template allocate<slot_type>(storage_slots<word_view_type>(capacity_), stream);
  clear(stream);
}

template <class Key, class Value, class Backend, class Hash, class KeyEqual>
void engine<Key, Value, Backend, Hash, KeyEqual>::execute_async(const batch<Key, Value>& args,
                                                                table_counters* counters,
                                                                stream_type stream) {
  run_table_batch<Backend, views>(word_view(), args, counters, stream,
                                  batch_share.for_table(memory_bytes()));
}

template <class Key, class Value, class Backend, class Hash, class KeyEqual>
void engine<Key, Value, Backend, Hash, KeyEqual>::rehash(std::size_t min_capacity,
                                                         stream_type stream) {
  engine grown(min_capacity, seed_, stream);
  auto counters = Backend::template allocate<table_counters>(1, stream);
  Backend::fill_bytes(counters.data(), sizeof(table_counters), 0, stream);
  if constexpr (values_apart_v<word_view_type>)
    exec<Backend>::for_each_tally(
        capacity_, reinsert_slot_and_row<word_view_type>{grown.word_view(), word_view()},
        counters.data(), stream);
  else
    exec<Backend>::for_each_tally(capacity_,
                                  reinsert_slot<word_view_type>{grown.word_view(), slots_.data()},
                                  counters.data(), stream);
  table_counters moved;
  Backend::copy_to_host(&moved, counters.data(), 1, stream);
  // Cannot happen while the frontend sizes the new table for every live key;
  // checked because a key must never be dropped. The old table is still intact.
  if (moved.full != 0)
    throw error("gpuhash: linear_probing rehash into " + std::to_string(min_capacity) +
                " slots left " + std::to_string(moved.full) + " keys without a slot");
  *this = std::move(grown);
}

template <class Key, class Value, class Backend, class Hash, class KeyEqual>
void engine<Key, Value, Backend, Hash, KeyEqual>::clear(stream_type stream) {
  // Every layout's empty slot is all one bits (empty_key = ~0), so one byte
  // fill; values kept apart (wide ones) are written before their key is.
  Backend::fill_bytes(slots_.data(), capacity_ * sizeof(slot_type), 0xff, stream);
}

template <class Key, class Value, class Backend, class Hash, class KeyEqual>
void engine<Key, Value, Backend, Hash, KeyEqual>::retrieve_all(Key* keys, Value* values,
                                                               std::size_t count,
                                                               stream_type stream) const {
  // Keys and values are stored as their words: the output arrays take them.
  retrieve_live<Backend, word_view_type>(
      slots_.data(), capacity(), reinterpret_cast<key_word*>(keys),
      reinterpret_cast<value_word*>(values), count, stream, name);
}

}  // namespace gpuhash::detail::linear_probing
