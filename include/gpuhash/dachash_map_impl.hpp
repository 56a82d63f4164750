#pragma once
// dachash_map_with with its member definitions, for presets the library
// does not precompile (gpuhash/dachash_config.hpp): include this header
// instead of dachash_map.hpp in each file that uses such a table, a .cpp
// file for the CPU backend, a .cu file (compiled by nvcc) for the CUDA
// backend; or compile the table once, in one such file, with
// GPUHASH_INSTANTIATE_DACHASH_MAP, and include dachash_map.hpp everywhere
// else.

#include "gpuhash/dachash_map.hpp"
#include "gpuhash/detail/dachash/engine_impl.hpp"

/// Compiles dachash_map_with<Key, Value, Backend, Preset> (its template
/// arguments, fully qualified) in this file, for the program's other files
/// to link against. Write it at global scope, once per table type in the
/// program, for a preset the library does not compile:
///
///   GPUHASH_INSTANTIATE_DACHASH_MAP(std::uint32_t, std::uint32_t, gpuhash::cpu_backend,
///                                   gpuhash::dachash_preset<32>);
#define GPUHASH_INSTANTIATE_DACHASH_MAP(...) \
  template class ::gpuhash::detail::dachash::engine<__VA_ARGS__>
