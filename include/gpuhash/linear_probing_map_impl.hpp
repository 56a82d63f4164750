#pragma once
// linear_probing_map with its member definitions, for keys and values of
// types the library does not precompile (gpuhash/key_types.hpp): include
// this header instead of linear_probing_map.hpp in each file that uses such
// a table, a .cpp file for the CPU backend, a .cu file (compiled by nvcc)
// for the CUDA backend. The tables of the library's own types keep using
// the precompiled ones either way.

#include "gpuhash/detail/linear_probing/engine_impl.hpp"
#include "gpuhash/linear_probing_map.hpp"
