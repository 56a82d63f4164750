#pragma once
// The steps of a sharded batch that run on a shard's own device, over its
// keys (docs/designs/sharded.md, "A batch, step by step"): the partition of
// a part's keys, values and operations by shard, and the results put back in
// the caller's order. Everything between (the exchange, each shard's table)
// is the exchanges' and the tables' own.
//
// This header only declares; the members are defined in steps_impl.hpp and
// compiled into the library for 32/32 and 64/64-bit unsigned pairs with the
// default placement and both position widths on each backend (src/cpu/sharded.cpp, and
// src/nccl/sharded.cu with gpuhash::nccl), so code that uses those sharded
// maps compiles without nvcc. Other types: gpuhash/sharded_map_impl.hpp.

#include <cstddef>
#include <type_traits>

#include "gpuhash/operation.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash::detail::sharded {

/// Position is the type of a part's positions (`order`): 32-bit where every
/// part of the batch has fewer than 2^32 keys (half the bytes to write and
/// read back), else 64-bit; the pipeline picks it per batch.
template <class Backend, class Key, class Value, class Placement, class Position>
struct steps {
  using stream_type = typename Backend::stream_type;

  /// Groups keys[0, n) by shard, each shard's keys in their order in
  /// `keys` (a stable partition), and writes them so grouped: the j-th key
  /// to sent_keys[j], its value to sent_values[j] and its operation to
  /// sent_ops[j] (each only where its source is not null), and its position
  /// in `keys` to order[j]. Each shard's group starts at the first multiple
  /// of `align` after the group before it ends, as in an exchange_plan of
  /// that alignment; what lies between groups is not written. counts[d]
  /// (host memory, placement.shards entries) is how many keys go to shard
  /// d. Arrays other than counts are in the backend's memory. Returns when
  /// counts are written.
  static void partition(const Key* keys, const Value* values, const operation* ops, std::size_t n,
                        const Placement& placement, std::size_t align, Position* order,
                        Key* sent_keys, Value* sent_values, operation* sent_ops,
                        std::size_t* counts, stream_type stream);

  /// to[order[j]] = from[j] for j < n: a part's results, which came back in
  /// sent order, put in the caller's order.
  static void scatter(const status* from, const Position* order, std::size_t n, status* to,
                      stream_type stream);
  static void scatter(const bool* from, const Position* order, std::size_t n, bool* to,
                      stream_type stream);
  static void scatter_values(const Value* from, const Position* order, std::size_t n, Value* to,
                             stream_type stream);

  /// values[order[j]] = found_values[j] for every j < n whose key was found
  /// (statuses[j] == found), leaving the other values as they are: a find
  /// leaves the values of missing keys untouched.
  static void scatter_found(const Value* found_values, const status* statuses,
                            const Position* order, std::size_t n, Value* values,
                            stream_type stream);
  /// The same with found[j] for the statuses.
  static void scatter_found(const Value* found_values, const bool* found, const Position* order,
                            std::size_t n, Value* values, stream_type stream);
};

}  // namespace gpuhash::detail::sharded
