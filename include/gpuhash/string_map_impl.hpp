#pragma once
// string_map with its member definitions, for value types and hash policies
// the library does not precompile: include this header instead of
// string_map.hpp in each file that uses such a table, a .cpp file for the
// CPU backend, a .cu file (compiled by nvcc) for the CUDA backend.

#include "gpuhash/detail/string_map/table_impl.hpp"
#include "gpuhash/string_map.hpp"
