#pragma once
// The steps of a sharded batch that run on a shard's own device, over its
// keys (docs/designs/sharded.md, "A batch, step by step"): the partition of
// a part's keys by shard, and the values of found keys put back in the
// caller's order. Everything between (gathers, scatters, the exchange, each
// shard's table) is the backends' and the tables' own.
//
// This header only declares; the members are defined in steps_impl.hpp and
// compiled into the library for 32/32 and 64/64-bit unsigned pairs with the
// default placement on each backend (src/cpu/sharded.cpp, and
// src/nccl/sharded.cu with gpuhash::nccl), so code that uses those sharded
// maps compiles without nvcc. Other types: gpuhash/sharded_map_impl.hpp.

#include <cstddef>
#include <type_traits>

#include "gpuhash/status.hpp"

namespace gpuhash::detail::sharded {

template <class Backend, class Key, class Value, class Placement>
struct steps {
  using stream_type = typename Backend::stream_type;

  /// Groups keys[0, n) by shard, each shard's keys in their order in
  /// `keys` (a stable partition): order[j] is the position in `keys` of the
  /// j-th key so grouped, and counts[d] (host memory, placement.shards
  /// entries) how many keys go to shard d. `keys` and `order` are in the
  /// backend's memory. Returns when counts are written.
  static void partition(const Key* keys, std::size_t n, const Placement& placement,
                        std::size_t* order, std::size_t* counts, stream_type stream);

  /// values[order[j]] = found_values[j] for every j < n whose key was found
  /// (statuses[j] == found), leaving the other values as they are: a find
  /// leaves the values of missing keys untouched.
  static void scatter_found(const Value* found_values, const status* statuses,
                            const std::size_t* order, std::size_t n, Value* values,
                            stream_type stream);
  /// The same with found[j] for the statuses.
  static void scatter_found(const Value* found_values, const bool* found, const std::size_t* order,
                            std::size_t n, Value* values, stream_type stream);
};

}  // namespace gpuhash::detail::sharded
