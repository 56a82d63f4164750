#pragma once
// gpuhash::bucketed_cuckoo_map: bucketed cuckoo hashing, the project's
// spearhead (docs/designs/bucketed_cuckoo.md). Each key lives in one of two
// buckets of four slots (32 bytes for 32/32 pairs, 64 bytes for 64/64); a
// search reads at most two buckets and a search in the same batch as inserts
// never misses a key that was there before. Inserts that find both buckets
// full are placed afterwards by eviction walks; erase leaves tombstones that
// those walks and rebuilds reuse. Reserved keys: see reserved_keys().
//
//   gpuhash::bucketed_cuckoo_map<std::uint32_t, std::uint32_t> cpu_table;
//   gpuhash::bucketed_cuckoo_map<std::uint32_t, std::uint32_t, gpuhash::cuda_backend> gpu_table;
//
// Compiled into the library for <uint32_t, uint32_t> and <uint64_t, uint64_t>
// with the default bucket size and two choices on each backend.

#include <cstdint>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/detail/bucketed_cuckoo/engine.hpp"
#include "gpuhash/map.hpp"

namespace gpuhash {

template <class Key, class Value, class Backend = cpu_backend>
using bucketed_cuckoo_map = basic_map<detail::bucketed_cuckoo::engine<Key, Value, Backend>>;

}  // namespace gpuhash
