#pragma once
// linear_probing_map with its member definitions, for keys and values of
// types the library does not precompile (gpuhash/key_types.hpp): include
// this header instead of linear_probing_map.hpp in each file that uses such
// a table, a .cpp file for the CPU backend, a .cu file (compiled by nvcc)
// for the CUDA backend. Tables of the library's own types work with either
// header (this one compiles them in the including file as well).

#include "gpuhash/detail/linear_probing/engine_impl.hpp"
#include "gpuhash/linear_probing_map.hpp"
