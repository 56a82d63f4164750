#pragma once
// gpuhash::hashgraph_dynamic_map: dynamic HashGraph (hashgraph-tnl-thesis.txt,
// 2.4.3), HashGraph's adjacent buckets with e empty slots each, probed
// linearly from a key's bucket over the following ones
// (detail/hashgraph/dynamic_engine.hpp). The whole common API, mixed batches
// included; a find never sees a key without its value. Grows by rebuilding
// (the thesis' Alg. 8). Reserved keys: the two largest words (4/4-byte
// pairs) or three largest (every other pair), see reserved_keys().
//
//   gpuhash::hashgraph_dynamic_map<std::uint32_t, std::uint32_t> cpu_table;
//   gpuhash::hashgraph_dynamic_map<std::uint32_t, std::uint32_t, gpuhash::cuda_backend,
//                                  gpuhash::segment_layout::ellpack> gpu_table;
//
// Keys may be any trivially copyable type of 4, 8 or 16 bytes, and values
// any of 4, 8 or 16 bytes or wider (whole 4-byte words), each of its own
// width, with a hash and a key-equality policy (gpuhash/key_types.hpp,
// docs/key_types.md), as for linear_probing_map:
//
//   gpuhash::hashgraph_dynamic_map<point, float, gpuhash::cpu_backend,
//   gpuhash::segment_layout::csr,
//                                  point_hash, point_equal>
//
// Compiled into the library for <uint32_t, uint32_t> and <uint64_t,
// uint64_t> with the default policies, each segment layout, on each
// backend. Other types are header-only: include
// gpuhash/hashgraph_dynamic_map_impl.hpp instead of this header, from a .cpp
// file for the CPU backend or a .cu file (nvcc) for the CUDA backend. The
// static set and map (any key type, built in one batch) are in
// gpuhash/hashgraph.hpp.

#include <cstdint>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/detail/hashgraph/dynamic_engine.hpp"
#include "gpuhash/key_types.hpp"
#include "gpuhash/map.hpp"

namespace gpuhash {

template <class Key, class Value, class Backend = cpu_backend,
          segment_layout Segments = segment_layout::csr, class Hash = key_bytes_hash<Key>,
          class KeyEqual = bitwise_equal<Key>>
using hashgraph_dynamic_map =
    basic_map<detail::hashgraph::dynamic_engine<Key, Value, Backend, Segments, Hash, KeyEqual>>;

/// The same with Ellpack and Sliced Ellpack buckets, at the registry's shape
/// (design templates of <Key, Value, Backend>).
template <class Key, class Value, class Backend = cpu_backend>
using hashgraph_ellpack_map = hashgraph_dynamic_map<Key, Value, Backend, segment_layout::ellpack>;
template <class Key, class Value, class Backend = cpu_backend>
using hashgraph_sliced_ellpack_map =
    hashgraph_dynamic_map<Key, Value, Backend, segment_layout::sliced_ellpack>;
template <class Key, class Value, class Backend = cpu_backend>
using hashgraph_csr_map = hashgraph_dynamic_map<Key, Value, Backend, segment_layout::csr>;

}  // namespace gpuhash
