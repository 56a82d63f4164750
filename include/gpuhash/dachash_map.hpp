#pragma once
// gpuhash::dachash_map: DACHash (dachash-thesis.txt), buckets of chained
// super nodes taken from a preallocated node pool. 32/32-bit pairs live in
// one 64-bit slot changed by a single CAS; 64/64-bit pairs use the
// busy-then-publish protocol of detail/slot_layouts.hpp. Erase leaves a
// tombstone, removed by clean (which runs when the table needs room, or on
// compact()). The table grows by adding pool nodes, never by rebuilding.
// Reserved keys: the two largest values (32-bit) or three largest (64-bit),
// see reserved_keys().
//
//   gpuhash::dachash_map<std::uint32_t, std::uint32_t> cpu_table;
//   gpuhash::dachash_map<std::uint64_t, std::uint64_t, gpuhash::cuda_backend> gpu_table;
//
// Other presets (node and tile sizes: gpuhash/dachash_config.hpp) through
// dachash_map_with:
//
//   gpuhash::dachash_map_with<std::uint32_t, std::uint32_t, gpuhash::cpu_backend,
//                             gpuhash::dachash_preset<32>> table;
//
// Compiled into the library for <uint32_t, uint32_t> and <uint64_t,
// uint64_t>, with each of the presets named below, on each backend. Other
// presets are header-only: include gpuhash/dachash_map_impl.hpp instead of
// this header, from a .cpp file for the CPU backend or a .cu file (nvcc)
// for the CUDA backend. Mapping and reorder settings change at run time:
// table.engine().configure(gpuhash::dachash_settings{...}).

#include <cstdint>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/dachash_config.hpp"
#include "gpuhash/detail/dachash/engine.hpp"
#include "gpuhash/map.hpp"

namespace gpuhash {

/// A DACHash table of the given preset (dachash_preset, or one of the named
/// presets of gpuhash/dachash_config.hpp).
template <class Key, class Value, class Backend, class Preset>
using dachash_map_with = basic_map<detail::dachash::engine<Key, Value, Backend, Preset>>;

/// The thesis' configuration: 16x4-byte nodes, dynamic mapping (tau 0.6).
template <class Key, class Value, class Backend = cpu_backend>
using dachash_map = dachash_map_with<Key, Value, Backend, dachash_thesis_preset>;

/// DACHash as the Cuckoo Node Hashing paper compared against it: 32x4-byte
/// nodes, reorder with a combining factor of 2^10.
template <class Key, class Value, class Backend = cpu_backend>
using dachash_paper_map = dachash_map_with<Key, Value, Backend, dachash_paper_preset>;

/// SlabHash's design in DACHash's code: 128-byte nodes, a warp per key, no
/// reorder (the thesis' baseline, run on the same inputs).
template <class Key, class Value, class Backend = cpu_backend>
using dachash_slab_map = dachash_map_with<Key, Value, Backend, dachash_slab_preset>;

}  // namespace gpuhash
