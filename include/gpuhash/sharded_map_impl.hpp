#pragma once
// sharded_map with the definitions of its per-device steps, for keys,
// values and hash policies the library does not precompile (it does 32/32
// and 64/64-bit unsigned pairs with the default hash): include this header
// instead of sharded_map.hpp in each file that uses such a table, a .cpp
// file for the CPU backend, a .cu file (compiled by nvcc) for the CUDA
// backend, together with the shard table's own _impl.hpp header.

#include "gpuhash/detail/sharded/steps_impl.hpp"
#include "gpuhash/sharded_map.hpp"
