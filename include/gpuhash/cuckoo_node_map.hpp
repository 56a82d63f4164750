#pragma once
// gpuhash::cuckoo_node_map: Cuckoo Node Hashing (cuckoo-node-hashing-paper.txt),
// buckets of chained Cuckoo Nodes, each a small cuckoo table in which a key
// may sit at |H| = 4 positions; nodes come from DACHash's node pool. Writers
// of a bucket take its sequence lock; searches validate against it, so a
// key in the middle of an eviction walk is never reported missing
// (detail/cuckoo_node/view.hpp). The table grows by adding pool nodes, never
// by rebuilding. Reserved keys: the two largest values, see reserved_keys().
//
//   gpuhash::cuckoo_node_map<std::uint32_t, std::uint32_t> cpu_table;
//   gpuhash::cuckoo_node_map<std::uint64_t, std::uint64_t, gpuhash::cuda_backend> gpu_table;
//
// Other presets (node sizes, |H|, probe counting: gpuhash/cuckoo_node_config.hpp)
// through cuckoo_node_map_with:
//
//   gpuhash::cuckoo_node_map_with<std::uint32_t, std::uint32_t, gpuhash::cpu_backend,
//                                 gpuhash::cuckoo_node_preset<64>> table;
//
// Compiled into the library for <uint32_t, uint32_t> and <uint64_t,
// uint64_t>, with each of the presets named below, on each backend. Other
// presets are header-only: include gpuhash/cuckoo_node_map_impl.hpp instead
// of this header, from a .cpp file for the CPU backend or a .cu file (nvcc)
// for the CUDA backend. The reorder setting changes at run time:
// table.engine().configure(gpuhash::cuckoo_node_settings{...}).

#include <cstdint>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/cuckoo_node_config.hpp"
#include "gpuhash/detail/cuckoo_node/engine.hpp"
#include "gpuhash/map.hpp"

namespace gpuhash {

/// A Cuckoo Node table of the given preset (cuckoo_node_preset, or one of
/// the named presets of gpuhash/cuckoo_node_config.hpp).
template <class Key, class Value, class Backend, class Preset>
using cuckoo_node_map_with = basic_map<detail::cuckoo_node::engine<Key, Value, Backend, Preset>>;

/// The library's default: 32-slot nodes, |H| = 4, no reorder.
template <class Key, class Value, class Backend = cpu_backend>
using cuckoo_node_map = cuckoo_node_map_with<Key, Value, Backend, cuckoo_node_default_preset>;

/// The paper's settings: 2^7-slot nodes, |H| = 4, the warp-cooperative
/// reorder combining 2^7 buckets.
template <class Key, class Value, class Backend = cpu_backend>
using cuckoo_node_paper_map = cuckoo_node_map_with<Key, Value, Backend, cuckoo_node_paper_preset>;

/// Our variant of the paper's node (128 slots, no reorder) with a key's
/// |H| = 8 positions in two spans of 4 pairs: a search reads two spans per
/// node (two 32-byte sectors of 32/32 pairs).
template <class Key, class Value, class Backend = cpu_backend>
using cuckoo_node_local_map = cuckoo_node_map_with<Key, Value, Backend, cuckoo_node_local_preset>;

}  // namespace gpuhash
