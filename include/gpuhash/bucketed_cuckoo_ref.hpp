#pragma once
// gpuhash::bucketed_cuckoo_ref: bucketed_cuckoo_map's ref (its ref_type,
// gpuhash/map_ref.hpp), named without the map, and bucketed_cuckoo_ref_with
// for the maps of bucketed_cuckoo_map_with. A file of kernels that only use
// refs can include this header instead of the map's: it holds device code
// and no backend, so it also compiles under NVRTC, for kernels compiled at
// run time (CuPy's RawModule; docs/device_api.md, "Kernels compiled at run
// time").
//
//   __global__ void probe(gpuhash::bucketed_cuckoo_ref<std::uint64_t, std::uint64_t> table,
//                         const std::uint64_t* keys, std::uint64_t* values, std::uint64_t n);
//   probe<<<blocks, threads>>>(map.ref(), keys, values, n);   // map: a bucketed_cuckoo_map<
//                                                             // uint64_t, uint64_t, Backend>

#include "gpuhash/apply_ops.hpp"
#include "gpuhash/bucketed_cuckoo_config.hpp"
#include "gpuhash/detail/bucketed_cuckoo/table_views.hpp"
#include "gpuhash/key_types.hpp"
#include "gpuhash/map_ref.hpp"

namespace gpuhash {

/// bucketed_cuckoo_map_with<Key, Value, Backend, Config, Hash, KeyEqual>::ref_type,
/// the same type for every Backend.
template <class Key, class Value, class Config, class Hash = key_bytes_hash<Key>,
          class KeyEqual = bitwise_equal<Key>>
using bucketed_cuckoo_ref_with = map_ref<
    typename detail::bucketed_cuckoo::table_views<Key, Value, Config, Hash, KeyEqual>::view_type>;

/// bucketed_cuckoo_map<Key, Value, Backend, Hash, KeyEqual>::ref_type.
template <class Key, class Value, class Hash = key_bytes_hash<Key>,
          class KeyEqual = bitwise_equal<Key>>
using bucketed_cuckoo_ref =
    bucketed_cuckoo_ref_with<Key, Value, detail::bucketed_cuckoo::default_config<Key, Value>, Hash,
                             KeyEqual>;

}  // namespace gpuhash
