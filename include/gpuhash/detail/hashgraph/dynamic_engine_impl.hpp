#pragma once
// Member definitions of hashgraph::dynamic_engine. Included only by the files
// that instantiate the engine: a .cpp for the CPU backend, a .cu for CUDA.

#include <algorithm>
#include <bit>
#include <string>
#include <utility>

#include "gpuhash/detail/exec.hpp"
#include "gpuhash/detail/hashgraph/dynamic_engine.hpp"
#include "gpuhash/detail/hashgraph/slots.hpp"
#include "gpuhash/detail/hashgraph/steps.hpp"
#include "gpuhash/detail/linear_probing/table_batches.hpp"
#include "gpuhash/detail/live_slots.hpp"
#include "gpuhash/errors.hpp"

#if defined(__CUDACC__)
#include "gpuhash/detail/linear_probing/wide_find.cuh"
#endif

namespace gpuhash::detail::hashgraph {

/// out[i] = value: Alg. 9 line 3, every bucket starts with room for e.
struct assign_all {
  std::uint32_t* out;
  std::uint32_t value;
  GPUHASH_HD void operator()(std::uint64_t i) const { out[i] = value; }
};

/// Writes pairs into a slot array of `slot_count` slots in the view's
/// layout, values kept apart in their rows where the view does so (a build
/// writes before any batch runs, so plain stores).
template <class View>
struct slot_target {
  typename View::slot_type* slots;
  std::uint64_t slot_count;
  template <class From>
  GPUHASH_HD void put(std::uint64_t at, const From& from, std::uint64_t i) const {
    if constexpr (values_apart_v<View>)
      View::put(slots[at], View::rows_of(slots, slot_count)[at], from.key(i), from.value(i));
    else
      slots[at] = View::pack(from.key(i), from.value(i));
  }
};

/// Query order[k] of a find in bucket order.
template <class View, class Key, class Value>
struct find_in_order {
  View table;
  const Key* keys;
  const std::uint64_t* order;
  Value* values;
  status* statuses;
  GPUHASH_HD void operator()(std::uint64_t k) const {
    const std::uint64_t i = order[k];
    statuses[i] =
        View::is_reserved(keys[i]) ? status::invalid_key : table.find(keys[i], values + i);
  }
};

/// Buckets for a build of `live` keys into at least `min_capacity` slots:
/// the slots beyond the keys come as e per bucket, and there is at least one
/// bucket per key (the thesis' m = n), so that a table asked to be nearly
/// full still has short buckets.
inline std::uint64_t buckets_for(std::uint64_t min_capacity, std::uint64_t live,
                                 std::uint32_t empty_per_bucket) {
  const std::uint64_t room = min_capacity > live ? min_capacity - live : 1;
  return std::max(live, (room + empty_per_bucket - 1) / empty_per_bucket);
}

template <class Key, class Value, class Backend, segment_layout Layout, class Hash, class KeyEqual>
dynamic_engine<Key, Value, Backend, Layout, Hash, KeyEqual>::dynamic_engine(
    std::size_t min_capacity, std::uint64_t seed, stream_type stream)
    : seed_(seed) {
  build(nullptr, nullptr, 0,
        buckets_for(std::max<std::size_t>(min_capacity, 1), 0, empty_slots_per_bucket), stream);
}

template <class Key, class Value, class Backend, segment_layout Layout, class Hash, class KeyEqual>
void dynamic_engine<Key, Value, Backend, Layout, Hash, KeyEqual>::build(const key_word* keys,
                                                                        const value_word* values,
                                                                        std::uint64_t n,
                                                                        std::uint64_t buckets,
                                                                        stream_type stream) {
  constexpr std::uint64_t max_buckets = (std::uint64_t{1} << 32) - 1;
  if (buckets > max_buckets)
    throw error("gpuhash: " + std::string(name) + " holds at most 2^32 - 1 buckets (" +
                std::to_string(buckets) + " asked for)");
  auto counts = Backend::template allocate<std::uint32_t>(buckets, stream);
  exec<Backend>::for_each(buckets, assign_all{counts.data(), empty_slots_per_bucket}, stream);
  using source_type = soa_slots<key_word, value_word>;
  using hash_type = policy_hash<Key, Hash>;
  const source_type source{const_cast<key_word*>(keys), const_cast<value_word*>(values)};
  exec<Backend>::for_each(
      n, count_by_bucket<source_type, hash_type>{source, bucket(buckets), counts.data()}, stream);
  segments_type segments(counts.data(), buckets, stream);
  // Probes read slots in aligned windows: the array is a whole number of them.
  const std::uint64_t window = word_view_type::window_slots;
  const std::uint64_t slot_count = (segments.storage_size() + window - 1) / window * window;
  auto slots =
      Backend::template allocate<slot_type>(storage_slots<word_view_type>(slot_count), stream);
  // Every layout's empty slot is all one bits (empty_key = ~0), so one byte fill.
  Backend::fill_bytes(slots.data(), slot_count * sizeof(slot_type), 0xff, stream);
  auto cursors = Backend::template allocate<std::uint32_t>(buckets, stream);
  Backend::fill_bytes(cursors.data(), buckets * sizeof(std::uint32_t), 0, stream);
  exec<Backend>::for_each(
      n,
      place_by_bucket<source_type, slot_target<word_view_type>, hash_type,
                      typename segments_type::view_type>{
          source, {slots.data(), slot_count}, bucket(buckets), segments.view(), cursors.data()},
      stream);
  segments_ = std::move(segments);
  slots_ = std::move(slots);
  slot_count_ = slot_count;
  capacity_ = n + buckets * empty_slots_per_bucket;
  buckets_ = buckets;
}

template <class Key, class Value, class Backend, segment_layout Layout, class Hash, class KeyEqual>
void dynamic_engine<Key, Value, Backend, Layout, Hash, KeyEqual>::execute_async(
    const batch<Key, Value>& args, table_counters* counters, stream_type stream) {
  linear_probing::run_table_batch<Backend, views>(word_view(), args, counters, stream,
                                                  batch_share.for_table(memory_bytes()));
}

template <class Key, class Value, class Backend, segment_layout Layout, class Hash, class KeyEqual>
void dynamic_engine<Key, Value, Backend, Layout, Hash, KeyEqual>::rehash(std::size_t min_capacity,
                                                                         stream_type stream) {
  const std::uint64_t live =
      exec<Backend>::count_if(slots_.data(), slot_count_, is_live_slot<word_view_type>{}, stream);
  auto keys = Backend::template allocate<key_word>(live, stream);
  auto values = Backend::template allocate<value_word>(live, stream);
  retrieve_live<Backend, word_view_type>(slots_.data(), slot_count_, keys.data(), values.data(),
                                         live, stream, name);
  build(keys.data(), values.data(), live,
        buckets_for(std::max<std::uint64_t>(min_capacity, live), live, empty_slots_per_bucket),
        stream);
}

template <class Key, class Value, class Backend, segment_layout Layout, class Hash, class KeyEqual>
void dynamic_engine<Key, Value, Backend, Layout, Hash, KeyEqual>::clear(stream_type stream) {
  Backend::fill_bytes(slots_.data(), slot_count_ * sizeof(slot_type), 0xff, stream);
}

template <class Key, class Value, class Backend, segment_layout Layout, class Hash, class KeyEqual>
void dynamic_engine<Key, Value, Backend, Layout, Hash, KeyEqual>::retrieve_all(
    Key* keys, Value* values, std::size_t count, stream_type stream) const {
  // Keys and values are stored as their words: the output arrays take them.
  retrieve_live<Backend, word_view_type>(
      slots_.data(), slot_count_, reinterpret_cast<key_word*>(keys),
      reinterpret_cast<value_word*>(values), count, stream, name);
}

template <class Key, class Value, class Backend, segment_layout Layout, class Hash, class KeyEqual>
void dynamic_engine<Key, Value, Backend, Layout, Hash, KeyEqual>::find_in_bucket_order(
    const Key* keys, std::size_t n, Value* values, status* statuses, stream_type stream) const {
  constexpr std::uint64_t buckets_per_bin = 4096;
  const std::uint64_t bins = (buckets_ + buckets_per_bin - 1) / buckets_per_bin;
  auto bin_numbers = Backend::template allocate<std::uint32_t>(n, stream);
  auto sorted_bins = Backend::template allocate<std::uint32_t>(n, stream);
  auto order = Backend::template allocate<std::uint64_t>(n, stream);
  const auto* key_words = reinterpret_cast<const key_word*>(keys);
  const key_slots<key_word> queries{const_cast<key_word*>(key_words)};
  exec<Backend>::for_each(n,
                          bucket_ids<key_slots<key_word>, policy_hash<Key, Hash>>{
                              queries, bucket(bins), bin_numbers.data()},
                          stream);
  const int bits = std::max(1, static_cast<int>(std::bit_width(bins - 1)));
  exec<Backend>::sort_by_key(bin_numbers.data(), n, sorted_bins.data(), order.data(), stream, bits);
  exec<Backend>::for_each(
      n,
      find_in_order<word_view_type, key_word, value_word>{
          word_view(), key_words, order.data(), reinterpret_cast<value_word*>(values), statuses},
      stream);
}

}  // namespace gpuhash::detail::hashgraph
