#pragma once
// gpuhash::bucketed_cuckoo_map: bucketed cuckoo hashing, the project's
// spearhead (docs/designs/bucketed_cuckoo.md). Each key lives in one of two
// buckets of four slots (32 bytes for 4/4-byte pairs, 64 bytes for 8/8, 128
// bytes for 16/16); a search reads at most two buckets and a search in the
// same batch as inserts never misses a key that was there before. Inserts
// that find both buckets full are placed afterwards by eviction walks;
// erase leaves tombstones that those walks and rebuilds reuse. Reserved
// keys: the two largest words (4/4-byte pairs) or the three largest (every
// other pair), see reserved_keys().
//
//   gpuhash::bucketed_cuckoo_map<std::uint32_t, std::uint32_t> cpu_table;
//   gpuhash::bucketed_cuckoo_map<std::uint64_t, std::uint64_t, gpuhash::cuda_backend> gpu_table;
//
// Keys may be any trivially copyable types of 4, 8 or 16 bytes and values
// of 4, 8 or 16 bytes, each of its own width, with a hash and a
// key-equality policy (gpuhash/key_types.hpp, docs/key_types.md):
//
//   gpuhash::bucketed_cuckoo_map<point, float, gpuhash::cpu_backend, point_hash, point_equal>
//
// Wider values (an embedding row) are not taken here: eviction walks move
// pairs between slots, which the per-slot versions of wide values do not
// cover; linear_probing_map and hashgraph_dynamic_map take them.
//
// Compiled into the library for <uint32_t, uint32_t> and <uint64_t, uint64_t>
// with the default policies, on each backend. Other types are header-only:
// include gpuhash/bucketed_cuckoo_map_impl.hpp instead of this header, from
// a .cpp file for the CPU backend or a .cu file (nvcc) for the CUDA backend.

#include <cstdint>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/detail/bucketed_cuckoo/engine.hpp"
#include "gpuhash/key_types.hpp"
#include "gpuhash/map.hpp"

namespace gpuhash {

template <class Key, class Value, class Backend = cpu_backend, class Hash = key_bytes_hash<Key>,
          class KeyEqual = bitwise_equal<Key>>
using bucketed_cuckoo_map = basic_map<detail::bucketed_cuckoo::engine<
    Key, Value, Backend, detail::bucketed_cuckoo::default_bucket_bytes<Key, Value>, 2,
    detail::bucketed_cuckoo::eviction_policy::lookahead,
    detail::bucketed_cuckoo::find_path::per_thread, Hash, KeyEqual>>;

}  // namespace gpuhash
