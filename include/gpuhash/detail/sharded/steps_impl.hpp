#pragma once
// The definitions of detail/sharded/steps.hpp: per-key functors run by
// exec<Backend>, so that the partition the CPU backend runs in CI is the
// one the GPUs run. Include from a .cpp for the CPU backend, a .cu (nvcc)
// for the CUDA backend.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "gpuhash/detail/exec.hpp"
#include "gpuhash/detail/sharded/steps.hpp"
#include "gpuhash/host_device.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash::detail::sharded {

static_assert(std::is_same_v<std::size_t, std::uint64_t>,
              "gpuhash: the sharded map hands exec's sort order (std::uint64_t) to the backends' "
              "gather and scatter (std::size_t positions): they must be one type");

/// shards[i] = the shard of keys[i].
template <class Key, class Placement>
struct assign_shard {
  const Key* keys;
  Placement placement;
  std::uint32_t* shards;

  GPUHASH_HD void operator()(std::uint64_t i) const { shards[i] = placement(keys[i]); }
};

/// starts[d] = the first position j of `sorted` (n shard numbers in
/// increasing order) with sorted[j] >= d, for d in [0, shard_count]. Run
/// for every boundary j in [0, n]: boundary j lies between sorted[j - 1]
/// and sorted[j] (the first one before everything, the last one after), and
/// is the start of the shards after the one before it up to the one after
/// it. Those ranges cover [0, shard_count] without overlap, so each entry is
/// written exactly once.
struct find_shard_starts {
  const std::uint32_t* sorted;
  std::uint64_t n;
  std::uint32_t shard_count;
  std::uint64_t* starts;

  GPUHASH_HD void operator()(std::uint64_t j) const {
    const std::uint32_t first = j == 0 ? 0 : sorted[j - 1] + 1;
    const std::uint32_t last = j == n ? shard_count : sorted[j];
    for (std::uint32_t d = first; d <= last; ++d) starts[d] = j;
  }
};

GPUHASH_HD inline bool was_found(status s) {
  return s == status::found;
}
GPUHASH_HD inline bool was_found(bool found) {
  return found;
}

/// values[order[j]] = found_values[j] where the key at j was found.
template <class Value, class Found>
struct scatter_found_values {
  const Value* found_values;
  const Found* found;
  const std::size_t* order;
  Value* values;

  GPUHASH_HD void operator()(std::uint64_t j) const {
    if (was_found(found[j])) values[order[j]] = found_values[j];
  }
};

template <class Backend, class Key, class Value, class Placement>
void steps<Backend, Key, Value, Placement>::partition(const Key* keys, std::size_t n,
                                                      const Placement& placement,
                                                      std::size_t* order, std::size_t* counts,
                                                      stream_type stream) {
  const std::uint32_t shards = placement.shards;
  if (n == 0) {
    std::fill(counts, counts + shards, std::size_t{0});
    return;
  }
  auto key_shards = Backend::template allocate<std::uint32_t>(n, stream);
  auto sorted = Backend::template allocate<std::uint32_t>(n, stream);
  auto starts = Backend::template allocate<std::uint64_t>(shards + 1, stream);
  exec<Backend>::for_each(n, assign_shard<Key, Placement>{keys, placement, key_shards.data()},
                          stream);
  // A stable radix sort of (shard, position) pairs over the bits a shard
  // number has: the order of keys within a shard stays theirs.
  const int shard_bits = std::max(1, static_cast<int>(std::bit_width(shards - 1)));
  exec<Backend>::sort_by_key(key_shards.data(), n, sorted.data(), order, stream, shard_bits);
  exec<Backend>::for_each(n + 1, find_shard_starts{sorted.data(), n, shards, starts.data()},
                          stream);
  std::vector<std::uint64_t> host_starts(shards + 1);
  Backend::copy_to_host(host_starts.data(), starts.data(), shards + 1, stream);
  for (std::uint32_t d = 0; d < shards; ++d) counts[d] = host_starts[d + 1] - host_starts[d];
}

template <class Backend, class Key, class Value, class Placement>
void steps<Backend, Key, Value, Placement>::scatter_found(const Value* found_values,
                                                          const status* statuses,
                                                          const std::size_t* order, std::size_t n,
                                                          Value* values, stream_type stream) {
  exec<Backend>::for_each(
      n, scatter_found_values<Value, status>{found_values, statuses, order, values}, stream);
}

template <class Backend, class Key, class Value, class Placement>
void steps<Backend, Key, Value, Placement>::scatter_found(const Value* found_values,
                                                          const bool* found,
                                                          const std::size_t* order, std::size_t n,
                                                          Value* values, stream_type stream) {
  exec<Backend>::for_each(n, scatter_found_values<Value, bool>{found_values, found, order, values},
                          stream);
}

}  // namespace gpuhash::detail::sharded
