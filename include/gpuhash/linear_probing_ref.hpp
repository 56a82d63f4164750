#pragma once
// gpuhash::linear_probing_ref: linear_probing_map's ref (its ref_type,
// gpuhash/map_ref.hpp), named without the map. A file of kernels that only
// use refs can include this header instead of the map's: it holds device
// code and no backend, so it also compiles under NVRTC, for kernels compiled
// at run time (CuPy's RawModule; docs/device_api.md, "Kernels compiled at
// run time").
//
//   __global__ void count(gpuhash::linear_probing_ref<std::uint32_t, std::uint32_t> counts,
//                         const std::uint32_t* keys, std::uint64_t n) {
//     ... counts.insert_or_apply(keys[i], 1, gpuhash::plus{}) ...
//   }
//   count<<<blocks, threads>>>(table.ref(), keys, n);   // table: a linear_probing_map<uint32_t,
//                                                      // uint32_t, Backend>, any backend

#include "gpuhash/apply_ops.hpp"
#include "gpuhash/detail/linear_probing/table_views.hpp"
#include "gpuhash/key_types.hpp"
#include "gpuhash/map_ref.hpp"

namespace gpuhash {

/// linear_probing_map<Key, Value, Backend, Hash, KeyEqual>::ref_type, the
/// same type for every Backend.
template <class Key, class Value, class Hash = key_bytes_hash<Key>,
          class KeyEqual = bitwise_equal<Key>>
using linear_probing_ref = map_ref<
    typename detail::linear_probing::hashed_table_views<Key, Value, Hash, KeyEqual>::view_type>;

}  // namespace gpuhash
