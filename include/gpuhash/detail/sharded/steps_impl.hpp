#pragma once
// The definitions of detail/sharded/steps.hpp: per-key functors run by
// exec<Backend> (the partition: its stable_partition), so that the steps
// the CPU backend runs in CI are the ones the GPUs run. Include from a .cpp
// for the CPU backend, a .cu (nvcc) for the CUDA backend.

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "gpuhash/detail/exec.hpp"
#include "gpuhash/detail/sharded/steps.hpp"
#include "gpuhash/host_device.hpp"
#include "gpuhash/operation.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash::detail::sharded {

static_assert(std::is_same_v<std::size_t, std::uint64_t>,
              "gpuhash: the sharded map's counts (std::size_t) are exec's partition counts "
              "(std::uint64_t): they must be one type");

/// The shard of keys[i]: the partition's way.
template <class Key, class Placement>
struct shard_of_key {
  const Key* keys;
  Placement placement;

  GPUHASH_HD std::uint32_t operator()(std::uint64_t i) const { return placement(keys[i]); }
};

/// Writes key i, with its value and operation where there are some, at
/// its place `at` in the grouped order, and i as the position there.
template <class Key, class Value, class Position>
struct place_key {
  const Key* keys;
  const Value* values;
  const operation* ops;
  Position* order;
  Key* sent_keys;
  Value* sent_values;
  operation* sent_ops;

  GPUHASH_HD void operator()(std::uint64_t i, std::uint64_t at) const {
    order[at] = static_cast<Position>(i);
    sent_keys[at] = keys[i];
    if (values != nullptr) sent_values[at] = values[i];
    if (ops != nullptr) sent_ops[at] = ops[i];
  }
};

/// to[order[j]] = from[j].
template <class T, class Position>
struct scatter_through {
  const T* from;
  const Position* order;
  T* to;

  GPUHASH_HD void operator()(std::uint64_t j) const { to[order[j]] = from[j]; }
};

GPUHASH_HD inline bool was_found(status s) {
  return s == status::found;
}
GPUHASH_HD inline bool was_found(bool found) {
  return found;
}

/// values[order[j]] = found_values[j] where the key at j was found.
template <class Value, class Found, class Position>
struct scatter_found_values {
  const Value* found_values;
  const Found* found;
  const Position* order;
  Value* values;

  GPUHASH_HD void operator()(std::uint64_t j) const {
    if (was_found(found[j])) values[order[j]] = found_values[j];
  }
};

template <class Backend, class Key, class Value, class Placement, class Position>
void steps<Backend, Key, Value, Placement, Position>::partition(
    const Key* keys, const Value* values, const operation* ops, std::size_t n,
    const Placement& placement, std::size_t align, Position* order, Key* sent_keys,
    Value* sent_values, operation* sent_ops, std::size_t* counts, stream_type stream) {
  exec<Backend>::stable_partition(
      n, placement.shards, shard_of_key<Key, Placement>{keys, placement},
      place_key<Key, Value, Position>{keys, values, ops, order, sent_keys, sent_values, sent_ops},
      counts, stream, align);
}

template <class Backend, class Key, class Value, class Placement, class Position>
void steps<Backend, Key, Value, Placement, Position>::scatter(const status* from,
                                                              const Position* order, std::size_t n,
                                                              status* to, stream_type stream) {
  exec<Backend>::for_each(n, scatter_through<status, Position>{from, order, to}, stream);
}

template <class Backend, class Key, class Value, class Placement, class Position>
void steps<Backend, Key, Value, Placement, Position>::scatter(const bool* from,
                                                              const Position* order, std::size_t n,
                                                              bool* to, stream_type stream) {
  exec<Backend>::for_each(n, scatter_through<bool, Position>{from, order, to}, stream);
}

template <class Backend, class Key, class Value, class Placement, class Position>
void steps<Backend, Key, Value, Placement, Position>::scatter_values(const Value* from,
                                                                     const Position* order,
                                                                     std::size_t n, Value* to,
                                                                     stream_type stream) {
  exec<Backend>::for_each(n, scatter_through<Value, Position>{from, order, to}, stream);
}

template <class Backend, class Key, class Value, class Placement, class Position>
void steps<Backend, Key, Value, Placement, Position>::scatter_found(const Value* found_values,
                                                                    const status* statuses,
                                                                    const Position* order,
                                                                    std::size_t n, Value* values,
                                                                    stream_type stream) {
  exec<Backend>::for_each(
      n, scatter_found_values<Value, status, Position>{found_values, statuses, order, values},
      stream);
}

template <class Backend, class Key, class Value, class Placement, class Position>
void steps<Backend, Key, Value, Placement, Position>::scatter_found(const Value* found_values,
                                                                    const bool* found,
                                                                    const Position* order,
                                                                    std::size_t n, Value* values,
                                                                    stream_type stream) {
  exec<Backend>::for_each(
      n, scatter_found_values<Value, bool, Position>{found_values, found, order, values}, stream);
}

}  // namespace gpuhash::detail::sharded
