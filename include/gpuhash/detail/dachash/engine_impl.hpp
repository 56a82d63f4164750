#pragma once
// Member definitions of dachash::engine. Included only by the files that
// instantiate the engine: a .cpp for the CPU backend, a .cu for CUDA.

#include <algorithm>
#include <string>

#include "gpuhash/detail/dachash/engine.hpp"
#include "gpuhash/detail/exec.hpp"
#include "gpuhash/detail/reorder.hpp"
#include "gpuhash/errors.hpp"

#if defined(__CUDACC__)
#include "gpuhash/detail/dachash/many_to_one.cuh"
#endif

namespace gpuhash::detail::dachash {

/// Clean, one bucket per thread.
template <class View>
struct compact_bucket {
  View view;
  GPUHASH_HD void operator()(std::uint64_t bucket) const { view.compact(bucket); }
};

/// retrieve_all, one node per thread (heads first, then the pool's nodes):
/// live pairs go to the next free output position.
template <class View>
struct copy_out_node {
  View view;
  std::uint64_t buckets;
  typename View::key_type* keys;
  typename View::mapped_type* values;
  std::uint64_t* written;
  std::uint64_t capacity;  // of keys and values

  GPUHASH_HD void operator()(std::uint64_t i) const {
    const auto& node =
        i < buckets ? view.head(i) : view.pool().node(static_cast<node_index>(i - buckets));
    for (const auto& slot : node.slots) {
      if (!View::is_live(slot)) continue;
      const std::uint64_t at = fetch_add_coalesced(written, std::uint64_t{1});
      if (at >= capacity) continue;  // more pairs than counted: reported by the caller
      keys[at] = View::steps::key_of(slot);
      values[at] = View::steps::value_of(slot);
    }
  }
};

template <class Key, class Value, class Backend, class Preset>
engine<Key, Value, Backend, Preset>::engine(std::size_t min_capacity, std::uint64_t seed,
                                            stream_type stream)
    : heads_(Backend::template allocate<node_type>(
          std::max<std::size_t>(1, (min_capacity + pairs_per_node - 1) / pairs_per_node), stream)),
      buckets_(heads_.size()),
      seed_(seed),
      pool_(buckets_ / 2, stream) {
  Backend::fill_bytes(heads_.data(), buckets_ * sizeof(node_type), 0xff, stream);
}

template <class Key, class Value, class Backend, class Preset>
void engine<Key, Value, Backend, Preset>::execute_async(const batch<Key, Value>& args,
                                                        table_counters* counters,
                                                        stream_type stream) {
  if (settings_.combined_buckets != 0 && args.n > 1)
    run_reordered(args, counters, stream);
  else
    run_mapped(args, counters, stream);
}

template <class Key, class Value, class Backend, class Preset>
void engine<Key, Value, Backend, Preset>::run_mapped(const batch<Key, Value>& args,
                                                     table_counters* counters, stream_type stream) {
  if constexpr (many_to_one_mapping<Backend>::available) {
    if (mapping_for(args, counters, stream) == dachash_mapping::many_to_one) {
      many_to_one_mapping<Backend>::template run<tile_size>(view(), args, counters, stream);
      return;
    }
  }
  run_batch<Backend>(view(), args, counters, stream, batch_share.for_table(memory_bytes()));
}

template <class Key, class Value, class Backend, class Preset>
void engine<Key, Value, Backend, Preset>::run_reordered(const batch<Key, Value>& args,
                                                        table_counters* counters,
                                                        stream_type stream) {
  auto order = Backend::template allocate<std::uint64_t>(args.n, stream);
  reorder_batch<Backend>(settings_.reorder, args.keys, args.n, view().buckets(), buckets_,
                         settings_.combined_buckets, order.data(), stream);
  run_in_order<Backend>(
      args, order.data(),
      [&](const batch<Key, Value>& permuted) { run_mapped(permuted, counters, stream); }, stream);
}

template <class Key, class Value, class Backend, class Preset>
dachash_mapping engine<Key, Value, Backend, Preset>::mapping_for(const batch<Key, Value>& args,
                                                                 const table_counters* counters,
                                                                 stream_type stream) const {
  if (!many_to_one_mapping<Backend>::available) return dachash_mapping::one_to_one;
  if (settings_.mapping != dachash_mapping::dynamic) return settings_.mapping;
  if (args.kind != batch_kind::apply || counters == nullptr) return dachash_mapping::one_to_one;
  table_counters now;
  Backend::copy_to_host(&now, counters, 1, stream);
  const auto keys = static_cast<std::size_t>(now.inserted - now.erased);
  return expected_chain_length(keys) < settings_.threshold ? dachash_mapping::one_to_one
                                                           : dachash_mapping::many_to_one;
}

template <class Key, class Value, class Backend, class Preset>
std::size_t engine<Key, Value, Backend, Preset>::reclaim(stream_type stream) {
  exec<Backend>::for_each(buckets_, compact_bucket<view_type>{view()}, stream);
  return pool_.free_nodes(stream);
}

template <class Key, class Value, class Backend, class Preset>
void engine<Key, Value, Backend, Preset>::rehash(std::size_t min_capacity, stream_type stream) {
  reclaim(stream);
  while (capacity() < min_capacity) pool_.add_chunk(stream);
}

template <class Key, class Value, class Backend, class Preset>
void engine<Key, Value, Backend, Preset>::clear(stream_type stream) {
  Backend::fill_bytes(heads_.data(), buckets_ * sizeof(node_type), 0xff, stream);
  pool_.reset(stream);
}

template <class Key, class Value, class Backend, class Preset>
void engine<Key, Value, Backend, Preset>::retrieve_all(Key* keys, Value* values, std::size_t count,
                                                       stream_type stream) const {
  auto written = Backend::template allocate<std::uint64_t>(1, stream);
  Backend::fill_bytes(written.data(), sizeof(std::uint64_t), 0, stream);
  exec<Backend>::for_each(
      buckets_ + pool_.nodes(),
      copy_out_node<view_type>{view(), buckets_, keys, values, written.data(), count}, stream);
  std::uint64_t found = 0;
  Backend::copy_to_host(&found, written.data(), 1, stream);
  if (found != count)
    throw error("gpuhash: dachash retrieve_all found " + std::to_string(found) +
                " pairs where the table counted " + std::to_string(count));
}

}  // namespace gpuhash::detail::dachash
