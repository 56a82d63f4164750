#pragma once
// hashgraph_dynamic_map with its member definitions, for keys and values of
// types the library does not precompile (gpuhash/key_types.hpp): include
// this header instead of hashgraph_dynamic_map.hpp in each file that uses
// such a table, a .cpp file for the CPU backend, a .cu file (compiled by
// nvcc) for the CUDA backend. Tables of the library's own types work with
// either header.

#include "gpuhash/detail/hashgraph/dynamic_engine_impl.hpp"
#include "gpuhash/hashgraph_dynamic_map.hpp"
