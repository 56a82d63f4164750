#pragma once
// bucketed_cuckoo_map with its member definitions, for keys and values of
// types, and configurations, the library does not precompile
// (gpuhash/key_types.hpp, gpuhash/bucketed_cuckoo_config.hpp): include this
// header instead of bucketed_cuckoo_map.hpp in each file that uses such a
// table, a .cpp file for the CPU backend, a .cu file (compiled by nvcc) for
// the CUDA backend; or compile the table once, in one such file, with
// GPUHASH_INSTANTIATE_BUCKETED_CUCKOO_MAP, and include
// bucketed_cuckoo_map.hpp everywhere else. Tables of the library's own
// types work with either header (this one compiles them in the including
// file as well).

#include "gpuhash/bucketed_cuckoo_map.hpp"
#include "gpuhash/detail/bucketed_cuckoo/engine_impl.hpp"

/// Compiles bucketed_cuckoo_map_with<Key, Value, Backend, Config[, Hash,
/// KeyEqual]> (its template arguments, fully qualified) in this file, for
/// the program's other files to link against. Write it at global scope,
/// once per table type in the program, for a table the library does not
/// compile:
///
///   GPUHASH_INSTANTIATE_BUCKETED_CUCKOO_MAP(std::uint32_t, std::uint32_t, gpuhash::cpu_backend,
///                                           gpuhash::bucketed_cuckoo_config<64, 3>);
#define GPUHASH_INSTANTIATE_BUCKETED_CUCKOO_MAP(...) \
  template class ::gpuhash::detail::bucketed_cuckoo::engine<__VA_ARGS__>
