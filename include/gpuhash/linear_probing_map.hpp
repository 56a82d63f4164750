#pragma once
// gpuhash::linear_probing_map: open addressing with linear probing, the
// cuCollections/cuDF-style baseline. 32/32-bit pairs live in one 64-bit slot
// changed by a single CAS; 64/64-bit pairs use a busy-then-publish protocol
// (detail/linear_probing/view.hpp). Erase leaves tombstones, reclaimed when the
// table is rebuilt. Reserved keys: the two largest values (32-bit) or three
// largest (64-bit), see reserved_keys().
//
//   gpuhash::linear_probing_map<std::uint32_t, std::uint32_t> cpu_table;
//   gpuhash::linear_probing_map<std::uint64_t, std::uint64_t, gpuhash::cuda_backend> gpu_table;
//
// Compiled into the library for <uint32_t, uint32_t> and <uint64_t, uint64_t>
// on each backend.

#include <cstdint>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/detail/linear_probing/engine.hpp"
#include "gpuhash/map.hpp"

namespace gpuhash {

template <class Key, class Value, class Backend = cpu_backend>
using linear_probing_map = basic_map<detail::linear_probing::engine<Key, Value, Backend>>;

}  // namespace gpuhash
