#pragma once
// Member definitions of cuckoo_node::engine. Included only by the files that
// instantiate the engine: a .cpp for the CPU backend, a .cu for CUDA.

#include <algorithm>
#include <string>

#include "gpuhash/detail/cuckoo_node/engine.hpp"
#include "gpuhash/detail/exec.hpp"
#include "gpuhash/detail/reorder.hpp"
#include "gpuhash/errors.hpp"

namespace gpuhash::detail::cuckoo_node {

/// Clean of one bucket (between batches, so plain accesses): every node
/// after the head whose slots are all empty is unlinked, emptied (all bytes
/// 0xff, as the pool requires) and pushed back to the pool.
template <class View>
struct free_empty_nodes {
  View view;
  node_pool_view<typename View::node_type> pool;

  GPUHASH_HD void operator()(std::uint64_t bucket) const {
    using node_type = typename View::node_type;
    node_type* previous = &view.head(bucket);
    for (node_index index = previous->next; index != no_node;) {
      node_type& current = pool.node(index);
      const node_index next = current.next;
      if (holds_nothing(current)) {
        previous->next = next;
        for (auto& pair : current.pairs) pair.key = View::empty_key;
        current.next = no_node;
        fill_values(current);
        pool.push(index);
      } else {
        previous = &current;
      }
      index = next;
    }
  }
  GPUHASH_HD static bool holds_nothing(const typename View::node_type& n) {
    for (const auto& pair : n.pairs)
      if (pair.key != View::empty_key) return false;
    return true;
  }
  GPUHASH_HD static void fill_values(typename View::node_type& n) {
    for (auto& pair : n.pairs) pair.value = ~typename View::mapped_type{0};
  }
};

/// A key's bucket, for the reorder.
template <class View>
struct bucket_of_key {
  View view;
  GPUHASH_HD std::uint64_t operator()(typename View::key_type key) const {
    return view.bucket(key);
  }
};

/// retrieve_all: live pairs per bucket (pass 1), then written from the
/// bucket's offset in an exclusive scan of the counts (pass 2).
template <class View>
struct count_bucket_pairs {
  View view;
  std::uint64_t* counts;
  GPUHASH_HD void operator()(std::uint64_t bucket) const {
    std::uint64_t live = 0;
    view.for_each_pair(bucket, [&](const auto&) { ++live; });
    counts[bucket] = live;
  }
};
template <class View>
struct copy_bucket_pairs {
  View view;
  const std::uint64_t* offsets;
  typename View::key_type* keys;
  typename View::mapped_type* values;
  GPUHASH_HD void operator()(std::uint64_t bucket) const {
    std::uint64_t at = offsets[bucket];
    view.for_each_pair(bucket, [&](const auto& pair) {
      keys[at] = pair.key;
      values[at] = pair.value;
      ++at;
    });
  }
};

template <class Key, class Value, class Backend, class Preset>
engine<Key, Value, Backend, Preset>::engine(std::size_t min_capacity, std::uint64_t seed,
                                            stream_type stream)
    : heads_(Backend::template allocate<node_type>(
          std::max<std::size_t>(1, (min_capacity + slots_per_node - 1) / slots_per_node), stream)),
      versions_(Backend::template allocate<std::uint32_t>(heads_.size(), stream)),
      buckets_(heads_.size()),
      seed_(seed),
      pool_(buckets_ / 4, stream) {
  if constexpr (counts_probes) {
    tally_ = Backend::template allocate<probe_tally>(1, stream);
    reset_probes(stream);
  }
  clear(stream);
}

template <class Key, class Value, class Backend, class Preset>
void engine<Key, Value, Backend, Preset>::execute_async(const batch<Key, Value>& args,
                                                        table_counters* counters,
                                                        stream_type stream) {
  if (settings_.combined_buckets == 0 || args.n <= 1) {
    if (Preset::paper_insert || settings_.first_pass_walk == 0 || !args.may_insert()) {
      run_batch<Backend>(view(), args, counters, stream);
      return;
    }
    run_in_two_passes(args, counters, stream);
    return;
  }
  auto order = Backend::template allocate<std::uint64_t>(args.n, stream);
  reorder_batch<Backend>(settings_.reorder, args.keys, args.n, bucket_of_key<view_type>{view()},
                         buckets_, settings_.combined_buckets, order.data(), stream);
  run_in_order<Backend>(
      args, order.data(),
      [&](const batch<Key, Value>& permuted) {
        run_batch<Backend>(view(), permuted, counters, stream);
      },
      stream);
}

template <class Key, class Value, class Backend, class Preset>
void engine<Key, Value, Backend, Preset>::configure(const cuckoo_node_settings& s) {
  if (s.max_loop == 0 || s.max_loop > longest_walk)
    throw error("gpuhash::cuckoo_node_settings: max_loop must be 1 to " +
                std::to_string(longest_walk) + ", got " + std::to_string(s.max_loop));
  settings_ = s;
}

/// A batch that may insert, in two passes: every operation with walks of
/// at most settings_.first_pass_walk steps and no node attached; then the
/// inserts that needed more (status `full` after the first pass), gathered,
/// with the full walk. A key is pending only if its insert changed nothing,
/// so the outcome is the serial order "the first pass, then the pending
/// inserts", as bucketed cuckoo's two phases give.
template <class Key, class Value, class Backend, class Preset>
void engine<Key, Value, Backend, Preset>::run_in_two_passes(const batch<Key, Value>& args,
                                                            table_counters* counters,
                                                            stream_type stream) {
  auto tally = Backend::template allocate<table_counters>(1, stream);
  Backend::fill_bytes(tally.data(), sizeof(table_counters), 0, stream);
  run_batch<Backend>(view().first_pass(settings_.first_pass_walk), args, tally.data(), stream);
  table_counters first;
  Backend::copy_to_host(&first, tally.data(), 1, stream);
  if (counters != nullptr && (first.inserted != 0 || first.erased != 0))
    exec<Backend>::for_each(1, add_counts{counters, first.inserted, first.erased}, stream);
  const std::uint64_t pending = first.full;
  if (pending == 0) return;

  const auto positions = pending_positions<Backend>(args.statuses, args.n, pending, name, stream);
  const auto second = gather_batch<Backend>(args, positions.data(), pending, stream);
  run_batch<Backend>(view(), second.args, counters, stream);
  Backend::scatter(static_cast<const status*>(second.statuses.data()), positions.data(), pending,
                   args.statuses, stream);
}

template <class Key, class Value, class Backend, class Preset>
std::size_t engine<Key, Value, Backend, Preset>::reclaim(stream_type stream) {
  exec<Backend>::for_each(buckets_, free_empty_nodes<view_type>{view(), pool_.view()}, stream);
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
  Backend::fill_bytes(versions_.data(), buckets_ * sizeof(std::uint32_t), 0, stream);
  pool_.reset(stream);
}

template <class Key, class Value, class Backend, class Preset>
void engine<Key, Value, Backend, Preset>::retrieve_all(Key* keys, Value* values, std::size_t count,
                                                       stream_type stream) const {
  auto offsets = Backend::template allocate<std::uint64_t>(buckets_, stream);
  exec<Backend>::for_each(buckets_, count_bucket_pairs<view_type>{view(), offsets.data()}, stream);
  const std::uint64_t found =
      exec<Backend>::exclusive_scan(offsets.data(), buckets_, offsets.data(), stream);
  if (found != count)
    throw error("gpuhash: cuckoo_node retrieve_all found " + std::to_string(found) +
                " pairs where the table counted " + std::to_string(count));
  exec<Backend>::for_each(
      buckets_, copy_bucket_pairs<view_type>{view(), offsets.data(), keys, values}, stream);
}

template <class Key, class Value, class Backend, class Preset>
probe_tally engine<Key, Value, Backend, Preset>::probes(stream_type stream) const requires
    counts_probes {
  probe_tally tally;
  Backend::copy_to_host(&tally, tally_.data(), 1, stream);
  return tally;
}

template <class Key, class Value, class Backend, class Preset>
void engine<Key, Value, Backend, Preset>::reset_probes(stream_type stream) requires counts_probes {
  Backend::fill_bytes(tally_.data(), sizeof(probe_tally), 0, stream);
}

}  // namespace gpuhash::detail::cuckoo_node
