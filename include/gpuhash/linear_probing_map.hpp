#pragma once
// gpuhash::linear_probing_map: open addressing with linear probing, the
// cuCollections/cuDF-style baseline. 4/4-byte pairs live in one 64-bit slot
// changed by a single CAS; 8/8-byte pairs use a busy-then-publish protocol
// (detail/linear_probing/view.hpp). Erase leaves tombstones, reclaimed when the
// table is rebuilt. Reserved keys: the two largest words (4-byte keys) or three
// largest (8-byte keys), see reserved_keys().
//
//   gpuhash::linear_probing_map<std::uint32_t, std::uint32_t> cpu_table;
//   gpuhash::linear_probing_map<std::uint64_t, std::uint64_t, gpuhash::cuda_backend> gpu_table;
//
// Keys and values may be any trivially copyable types of 4 bytes each or 8
// bytes each, with a hash and a key-equality policy (gpuhash/key_types.hpp,
// docs/key_types.md):
//
//   gpuhash::linear_probing_map<point, float, gpuhash::cpu_backend, point_hash, point_equal>
//
// Compiled into the library for <uint32_t, uint32_t> and <uint64_t, uint64_t>
// with the default policies, on each backend. Other types are header-only:
// include gpuhash/linear_probing_map_impl.hpp instead of this header, from a
// .cpp file for the CPU backend or a .cu file (nvcc) for the CUDA backend.

#include <cstdint>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/detail/linear_probing/engine.hpp"
#include "gpuhash/key_types.hpp"
#include "gpuhash/map.hpp"

namespace gpuhash {

template <class Key, class Value, class Backend = cpu_backend, class Hash = key_bytes_hash<Key>,
          class KeyEqual = bitwise_equal<Key>>
using linear_probing_map =
    basic_map<detail::linear_probing::engine<Key, Value, Backend, Hash, KeyEqual>>;

}  // namespace gpuhash
