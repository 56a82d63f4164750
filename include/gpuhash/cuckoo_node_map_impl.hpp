#pragma once
// cuckoo_node_map_with with its member definitions, for presets the library
// does not precompile (gpuhash/cuckoo_node_config.hpp): include this header
// instead of cuckoo_node_map.hpp in each file that uses such a table, a
// .cpp file for the CPU backend, a .cu file (compiled by nvcc) for the CUDA
// backend; or compile the table once, in one such file, with
// GPUHASH_INSTANTIATE_CUCKOO_NODE_MAP, and include cuckoo_node_map.hpp
// everywhere else.

#include "gpuhash/cuckoo_node_map.hpp"
#include "gpuhash/detail/cuckoo_node/engine_impl.hpp"

/// Compiles cuckoo_node_map_with<Key, Value, Backend, Preset> (its template
/// arguments, fully qualified) in this file, for the program's other files
/// to link against. Write it at global scope, once per table type in the
/// program, for a preset the library does not compile:
///
///   GPUHASH_INSTANTIATE_CUCKOO_NODE_MAP(std::uint32_t, std::uint32_t, gpuhash::cpu_backend,
///                                       gpuhash::cuckoo_node_preset<64>);
#define GPUHASH_INSTANTIATE_CUCKOO_NODE_MAP(...) \
  template class ::gpuhash::detail::cuckoo_node::engine<__VA_ARGS__>
