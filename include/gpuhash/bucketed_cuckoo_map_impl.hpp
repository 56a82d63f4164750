#pragma once
// bucketed_cuckoo_map with its member definitions, for keys and values of
// types the library does not precompile (gpuhash/key_types.hpp): include
// this header instead of bucketed_cuckoo_map.hpp in each file that uses
// such a table, a .cpp file for the CPU backend, a .cu file (compiled by
// nvcc) for the CUDA backend. Tables of the library's own types work with
// either header (this one compiles them in the including file as well).

#include "gpuhash/bucketed_cuckoo_map.hpp"
#include "gpuhash/detail/bucketed_cuckoo/engine_impl.hpp"
