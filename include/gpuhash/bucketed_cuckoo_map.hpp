#pragma once
// gpuhash::bucketed_cuckoo_map: bucketed cuckoo hashing, the project's
// spearhead (docs/designs/bucketed_cuckoo.md). Each key lives in one of four
// buckets of four slots (32 bytes for 4/4-byte pairs, 64 bytes for 8/8, 128
// bytes for 16/16), the last two in a backyard of 3/16 of the buckets; a
// search reads at most four buckets, most searches one, and a search in the
// same batch as inserts never misses a key that was there before. Inserts
// that find all their buckets full are placed afterwards by eviction walks;
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
// Other bucket sizes, choices, eviction policies and find paths
// (gpuhash/bucketed_cuckoo_config.hpp) through bucketed_cuckoo_map_with:
//
//   using walk = gpuhash::bucketed_cuckoo_config<64, 3,  // 64-byte buckets, 3 choices
//                                                gpuhash::bucketed_cuckoo_eviction::random_walk>;
//   gpuhash::bucketed_cuckoo_map_with<std::uint32_t, std::uint32_t, gpuhash::cpu_backend, walk> t;
//
// Compiled into the library for <uint32_t, uint32_t> and <uint64_t, uint64_t>
// with the default configuration and policies, on each backend. Other types
// and configurations are header-only: include
// gpuhash/bucketed_cuckoo_map_impl.hpp instead of this header, from a .cpp
// file for the CPU backend or a .cu file (nvcc) for the CUDA backend.

#include <cstdint>

#include "gpuhash/bucketed_cuckoo_config.hpp"
#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/detail/bucketed_cuckoo/engine.hpp"
#include "gpuhash/key_types.hpp"
#include "gpuhash/map.hpp"

namespace gpuhash {

/// The configuration bucketed_cuckoo_map uses: buckets of four slots (32
/// bytes for 4/4-byte pairs, 128 for pairs with a 16-byte word, 64 for the
/// others), four choices (the first two over 13/16 of the buckets, the last
/// two over a backyard of the other 3/16), lookahead eviction, one thread
/// per find.
template <class Key, class Value>
using bucketed_cuckoo_default_config = detail::bucketed_cuckoo::default_config<Key, Value>;

/// A bucketed cuckoo table of the given configuration (a
/// bucketed_cuckoo_config).
template <class Key, class Value, class Backend, class Config, class Hash = key_bytes_hash<Key>,
          class KeyEqual = bitwise_equal<Key>>
using bucketed_cuckoo_map_with =
    basic_map<detail::bucketed_cuckoo::engine<Key, Value, Backend, Config, Hash, KeyEqual>>;

template <class Key, class Value, class Backend = cpu_backend, class Hash = key_bytes_hash<Key>,
          class KeyEqual = bitwise_equal<Key>>
using bucketed_cuckoo_map =
    bucketed_cuckoo_map_with<Key, Value, Backend, bucketed_cuckoo_default_config<Key, Value>, Hash,
                             KeyEqual>;

}  // namespace gpuhash
