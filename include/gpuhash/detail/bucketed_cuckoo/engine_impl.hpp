#pragma once
// Member definitions of bucketed_cuckoo::engine. Included only by the files
// that instantiate the engine: a .cpp for the CPU backend, a .cu for CUDA.

#include <algorithm>
#include <string>
#include <type_traits>
#include <utility>

#include "gpuhash/detail/bucketed_cuckoo/engine.hpp"
#include "gpuhash/detail/exec.hpp"
#include "gpuhash/detail/live_slots.hpp"
#include "gpuhash/errors.hpp"

#if defined(__CUDACC__)
#include "gpuhash/detail/bucketed_cuckoo/cooperative_find.cuh"
#endif

namespace gpuhash::detail::bucketed_cuckoo {

/// Phase 2, step 0, where keys are grouped by hash: hashes[i] = hash(keys[i]).
template <class KeyWord, class KeyHash>
struct hash_keys {
  KeyHash hash;
  const KeyWord* keys;
  std::uint64_t* hashes;
  GPUHASH_HD void operator()(std::uint64_t i) const { hashes[i] = hash(keys[i]); }
};

/// Phase 2, step 1, over the pending inserts in a stable sorted order in
/// which the copies of one key lie in one run of equal `groups`: groups are
/// the key words themselves where keys are equal exactly when their words
/// are, else the keys' hashes (keys that a policy calls equal may differ in
/// their bytes, but hash equal), and then a run may also hold other keys of
/// the same hash. The first copy of each key is its leader and will be
/// placed with the value the serial order "leader, then the others in batch
/// order" leaves (the last upsert's, else its own); the others are answered
/// here as if they ran right after it.
template <class KeyWord, class ValueWord, class Group, class Equal>
struct resolve_pending {
  std::uint64_t count;
  const Group* groups;         // by sorted index
  const std::uint64_t* order;  // sorted index -> index among the pending
  const KeyWord* pending_keys;
  const ValueWord* pending_values;
  const operation* pending_ops;  // null: every pending op is `default_op`
  operation default_op;
  const std::size_t* positions;  // index among the pending -> position in the batch
  status* statuses;              // the batch's statuses
  Equal equal;
  KeyWord* leader_keys;      // out, by sorted index
  ValueWord* leader_values;  // out, by sorted index
  status* walk_statuses;     // out, by sorted index: inserted for leaders

  static constexpr bool groups_are_keys =
      std::is_same_v<Group, KeyWord> && std::is_same_v<Equal, word_equal>;

  GPUHASH_HD KeyWord key(std::uint64_t sorted) const {
    if constexpr (groups_are_keys)
      return groups[sorted];
    else
      return pending_keys[order[sorted]];
  }
  GPUHASH_HD operation op(std::uint64_t sorted) const {
    return pending_ops != nullptr ? pending_ops[order[sorted]] : default_op;
  }
  GPUHASH_HD status operator()(std::uint64_t t) const {
    const KeyWord own = key(t);
    for (std::uint64_t earlier = t; earlier > 0 && groups[earlier - 1] == groups[t]; --earlier) {
      if (equal(key(earlier - 1), own)) {
        statuses[positions[order[t]]] =
            op(t) == operation::upsert ? status::updated : status::exists;
        walk_statuses[t] = status::not_found;
        return status::not_found;
      }
    }
    ValueWord value = pending_values[order[t]];
    for (std::uint64_t later = t + 1; later < count && groups[later] == groups[t]; ++later)
      if (op(later) == operation::upsert && equal(key(later), own))
        value = pending_values[order[later]];
    leader_keys[t] = own;
    leader_values[t] = value;
    statuses[positions[order[t]]] = status::inserted;
    walk_statuses[t] = status::inserted;
    return status::inserted;
  }
};

/// Phase 2, step 2: the leaders' eviction walks. A walk that ends with a key
/// in hand leaves it in (keys[t], values[t]) and reports `full` (homeless).
template <class View>
struct walk_pending {
  View view;
  typename View::key_type* keys;
  typename View::mapped_type* values;
  status* walk_statuses;
  std::uint64_t random;
  std::uint32_t max_exchanges;

  GPUHASH_HD status operator()(std::uint64_t t) const {
    if (walk_statuses[t] != status::inserted) return status::not_found;
    const auto result = view.place(keys[t], values[t], murmur3_fmix64(random ^ t), max_exchanges);
    if (result.placed) return status::not_found;  // counted by resolve_pending already
    keys[t] = result.key;
    values[t] = result.value;
    walk_statuses[t] = status::full;
    return status::full;
  }
};

template <class Key, class Value, class Backend, class Config, class Hash, class KeyEqual>
engine<Key, Value, Backend, Config, Hash, KeyEqual>::engine(std::size_t min_capacity,
                                                            std::uint64_t seed, stream_type stream)
    : buckets_(std::max<std::uint64_t>(1, (min_capacity + word_view_type::slots_per_bucket - 1) /
                                              word_view_type::slots_per_bucket)),
      seed_(seed) {
  slots_ = Backend::template allocate<slot_type>(capacity(), stream);
  clear(stream);
}

template <class Key, class Value, class Backend, class Config, class Hash, class KeyEqual>
void engine<Key, Value, Backend, Config, Hash, KeyEqual>::clear(stream_type stream) {
  // Both layouts' empty slot is all one bits (empty key ~0), so one byte fill.
  Backend::fill_bytes(slots_.data(), capacity() * sizeof(slot_type), 0xff, stream);
}

template <class Key, class Value, class Backend, class Config, class Hash, class KeyEqual>
void engine<Key, Value, Backend, Config, Hash, KeyEqual>::execute_async(
    const batch<Key, Value>& args, table_counters* counters, stream_type stream) {
  const word_batch words = words_of(args);
  if (!args.may_insert()) {
    if constexpr (finds == bucketed_cuckoo_find_path::tile &&
                  cooperative_finds<Backend>::available) {
      if (args.kind == batch_kind::find || args.kind == batch_kind::contains) {
        cooperative_finds<Backend>::run(word_view(), words, stream,
                                        batch_share.for_table(memory_bytes()));
        return;
      }
    }
    run_batch<Backend>(word_view(), words, counters, stream, batch_share.for_table(memory_bytes()));
    return;
  }
  const phase_one_totals totals = run_phase_one(words, stream);
  const std::uint64_t placed =
      totals.pending == 0 ? 0 : place_pending(words, totals.pending, stream);
  if (counters != nullptr)
    exec<Backend>::for_each(1, add_counts{counters, totals.inserted + placed, totals.erased},
                            stream);
}

/// Runs the batch's one concurrent pass; pending inserts are left with
/// status `full`. Waits for the totals (phase 2 needs the pending count).
template <class Key, class Value, class Backend, class Config, class Hash, class KeyEqual>
auto engine<Key, Value, Backend, Config, Hash, KeyEqual>::run_phase_one(const word_batch& args,
                                                                        stream_type stream)
    -> phase_one_totals {
  auto scratch = Backend::template allocate<table_counters>(1, stream);
  Backend::fill_bytes(scratch.data(), sizeof(table_counters), 0, stream);
  run_batch<Backend>(word_view(), args, scratch.data(), stream,
                     batch_share.for_table(memory_bytes()));
  table_counters totals;
  Backend::copy_to_host(&totals, scratch.data(), 1, stream);
  return {totals.inserted, totals.erased, totals.full};
}

/// Phase 2: collects the pending inserts, reduces them to one leader per key,
/// places the leaders by eviction walks, and grows the table if a walk ends
/// with a homeless key. Returns the number of keys it inserted.
template <class Key, class Value, class Backend, class Config, class Hash, class KeyEqual>
std::uint64_t engine<Key, Value, Backend, Config, Hash, KeyEqual>::place_pending(
    const word_batch& args, std::uint64_t pending, stream_type stream) {
  using exec_type = exec<Backend>;
  const auto positions = pending_positions<Backend>(args.statuses, args.n, pending, name, stream);

  auto keys = Backend::template allocate<key_word>(pending, stream);
  auto values = Backend::template allocate<value_word>(pending, stream);
  Backend::gather(args.keys, positions.data(), pending, keys.data(), stream);
  Backend::gather(static_cast<const value_word*>(args.values), positions.data(), pending,
                  values.data(), stream);
  typename Backend::template buffer<operation> ops;
  if (args.kind == batch_kind::apply) {
    ops = Backend::template allocate<operation>(pending, stream);
    Backend::gather(args.ops, positions.data(), pending, ops.data(), stream);
  }

  auto order = Backend::template allocate<std::uint64_t>(pending, stream);
  auto leader_keys = Backend::template allocate<key_word>(pending, stream);
  auto leader_values = Backend::template allocate<value_word>(pending, stream);
  auto walk_statuses = Backend::template allocate<status>(pending, stream);
  auto tally = Backend::template allocate<table_counters>(1, stream);
  Backend::fill_bytes(tally.data(), sizeof(table_counters), 0, stream);
  const operation default_op =
      args.kind == batch_kind::upsert ? operation::upsert : operation::insert;
  const auto resolve = [&](const auto* groups) {
    using group_type = std::remove_cvref_t<decltype(*groups)>;
    exec_type::for_each_tally(pending,
                              resolve_pending<key_word, value_word, group_type, equal_type>{
                                  pending, groups, order.data(), keys.data(), values.data(),
                                  args.kind == batch_kind::apply ? ops.data() : nullptr, default_op,
                                  positions.data(), args.statuses, equal_type{}, leader_keys.data(),
                                  leader_values.data(), walk_statuses.data()},
                              tally.data(), stream);
  };
  if constexpr (sizeof(key_word) <= 8 && std::is_same_v<equal_type, word_equal>) {
    // Equal keys are equal words: sorted by key.
    auto sorted_keys = Backend::template allocate<key_word>(pending, stream);
    exec_type::sort_by_key(keys.data(), pending, sorted_keys.data(), order.data(), stream);
    resolve(sorted_keys.data());
  } else {
    // Keys equal under a policy may differ in their bytes, and 16-byte words
    // have no radix sort: sorted by hash, which equal keys share.
    auto hashes = Backend::template allocate<std::uint64_t>(pending, stream);
    exec_type::for_each(
        pending,
        hash_keys<key_word, hash_type>{hash_type{Hash{}, seed_}, keys.data(), hashes.data()},
        stream);
    auto sorted_hashes = Backend::template allocate<std::uint64_t>(pending, stream);
    exec_type::sort_by_key(hashes.data(), pending, sorted_hashes.data(), order.data(), stream);
    resolve(sorted_hashes.data());
  }
  exec_type::for_each_tally(
      pending,
      walk_pending<word_view_type>{word_view(), leader_keys.data(), leader_values.data(),
                                   walk_statuses.data(), murmur3_fmix64(seed_ ^ ++walks_),
                                   max_exchanges},
      tally.data(), stream, batch_share.for_table(memory_bytes()));
  table_counters outcome;
  Backend::copy_to_host(&outcome, tally.data(), 1, stream);

  if (outcome.full != 0) {
    // Homeless keys (walks that ran out of exchanges): grow and insert them.
    auto homeless = Backend::template allocate<std::size_t>(outcome.full, stream);
    Backend::select_positions(walk_statuses.data(), pending, status::full, homeless.data(), stream);
    auto homeless_keys = Backend::template allocate<key_word>(outcome.full, stream);
    auto homeless_values = Backend::template allocate<value_word>(outcome.full, stream);
    Backend::gather(static_cast<const key_word*>(leader_keys.data()), homeless.data(), outcome.full,
                    homeless_keys.data(), stream);
    Backend::gather(static_cast<const value_word*>(leader_values.data()), homeless.data(),
                    outcome.full, homeless_values.data(), stream);
    rehash(2 * capacity(), stream);
    insert_unique(homeless_keys.data(), homeless_values.data(), outcome.full, stream);
  }
  return outcome.inserted;
}

template <class Key, class Value, class Backend, class Config, class Hash, class KeyEqual>
void engine<Key, Value, Backend, Config, Hash, KeyEqual>::insert_unique(const key_word* keys,
                                                                        const value_word* values,
                                                                        std::size_t n,
                                                                        stream_type stream) {
  if (n == 0) return;
  auto statuses = Backend::template allocate<status>(n, stream);
  const word_batch args{batch_kind::insert, n,      keys, const_cast<value_word*>(values), nullptr,
                        statuses.data(),    nullptr};
  const phase_one_totals totals = run_phase_one(args, stream);
  if (totals.pending != 0) place_pending(args, totals.pending, stream);
}

template <class Key, class Value, class Backend, class Config, class Hash, class KeyEqual>
void engine<Key, Value, Backend, Config, Hash, KeyEqual>::rehash(std::size_t min_capacity,
                                                                 stream_type stream) {
  using exec_type = exec<Backend>;
  const std::uint64_t live =
      exec_type::count_if(slots_.data(), capacity(), is_live_slot<word_view_type>{}, stream);
  auto live_slots = Backend::template allocate<slot_type>(live, stream);
  exec_type::select_if(slots_.data(), capacity(), live_slots.data(), is_live_slot<word_view_type>{},
                       stream);
  auto keys = Backend::template allocate<key_word>(live, stream);
  auto values = Backend::template allocate<value_word>(live, stream);
  exec_type::for_each(
      live, unpack_slot<word_view_type>{live_slots.data(), keys.data(), values.data()}, stream);
  engine grown(std::max<std::size_t>(min_capacity, live), seed_, stream);
  grown.walks_ = walks_;
  grown.insert_unique(keys.data(), values.data(), live, stream);
  *this = std::move(grown);
}

template <class Key, class Value, class Backend, class Config, class Hash, class KeyEqual>
void engine<Key, Value, Backend, Config, Hash, KeyEqual>::retrieve_all(Key* keys, Value* values,
                                                                       std::size_t count,
                                                                       stream_type stream) const {
  // Keys and values are stored as their words: the output arrays take them.
  retrieve_live<Backend, word_view_type>(
      slots_.data(), capacity(), reinterpret_cast<key_word*>(keys),
      reinterpret_cast<value_word*>(values), count, stream, name);
}

}  // namespace gpuhash::detail::bucketed_cuckoo
