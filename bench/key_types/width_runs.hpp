#pragma once
// The key_types experiments over keys and values of fixed widths
// (bench/experiments/key_types.cpp), by the four basic operations of
// basic_ops.hpp (fresh keys per repetition, setup outside the timed region, a
// warm-up then the median of >= 5, every result checked after timing), each
// rate also in bytes per second against the copy limit of the same run:
//  * key_types.width: linear probing at 4/4, 8/8 and 16/16 bytes, and 8-byte
//    keys with 32- and 128-byte values; counts key+value bytes;
//  * key_types.value_width: linear probing with 8-byte keys and values of 4,
//    8, 16, 32, 64 and 128 bytes; counts value bytes.
// The tables other than 4/4 and 8/8 are header-only (docs/key_types.md), so
// both experiments share one runner (width_runs_impl.hpp) compiled once per
// backend (width_runs_cpu.cpp, width_runs_cuda.cu), where the tables they
// have in common are compiled once, behind this plain interface.

#include "../experiment.hpp"
#include "gpuhash/cpu/backend.hpp"
#if defined(GPUHASH_HAS_CUDA)
#include "gpuhash/cuda/backend.hpp"
#endif

namespace gpuhash::bench {

/// key_types.width on one backend, at each (n, load) of the sweep.
template <class Backend>
void run_key_widths(context& ctx);

/// key_types.value_width on one backend, at each (n, load) of the sweep and
/// each value width that --value-bytes selects (default: all).
template <class Backend>
void run_value_widths(context& ctx);

extern template void run_key_widths<cpu_backend>(context&);
extern template void run_value_widths<cpu_backend>(context&);
#if defined(GPUHASH_HAS_CUDA)
extern template void run_key_widths<cuda_backend>(context&);
extern template void run_value_widths<cuda_backend>(context&);
#endif

}  // namespace gpuhash::bench
