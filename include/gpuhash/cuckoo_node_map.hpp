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
// Compiled into the library for <uint32_t, uint32_t> and <uint64_t,
// uint64_t>, with each preset (detail/cuckoo_node/preset.hpp), on each
// backend. The reorder setting changes at run time:
// table.engine().configure(...).

#include <cstdint>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/detail/cuckoo_node/engine.hpp"
#include "gpuhash/map.hpp"

namespace gpuhash {

template <class Key, class Value, class Backend = cpu_backend>
using cuckoo_node_map = basic_map<detail::cuckoo_node::engine<Key, Value, Backend>>;

/// The paper's settings: 2^7-slot nodes, |H| = 4, the warp-cooperative
/// reorder combining 2^7 buckets.
template <class Key, class Value, class Backend = cpu_backend>
using cuckoo_node_paper_map =
    basic_map<detail::cuckoo_node::engine<Key, Value, Backend, detail::cuckoo_node::paper_preset>>;

/// Our variant of the paper's node (128 slots, no reorder) with a key's
/// |H| = 4 positions in one 64-byte span: a search reads one span per node.
template <class Key, class Value, class Backend = cpu_backend>
using cuckoo_node_local_map =
    basic_map<detail::cuckoo_node::engine<Key, Value, Backend, detail::cuckoo_node::local_preset>>;

}  // namespace gpuhash
