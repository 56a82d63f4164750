#pragma once
// The key_types.width experiment (bench/experiments/key_types.cpp): one
// table at several key and value widths, 4/4, 8/8 and 16/16 bytes, by the
// four basic operations of basic_ops.hpp (fresh keys per repetition, setup
// outside the timed region, a warm-up then the median of >= 5, every result
// checked after timing). The 16-byte table is header-only
// (docs/key_types.md), so the runs are compiled once per backend
// (width_runs_cpu.cpp, width_runs_cuda.cu) behind this plain interface.

#include "../experiment.hpp"
#include "gpuhash/cpu/backend.hpp"
#if defined(GPUHASH_HAS_CUDA)
#include "gpuhash/cuda/backend.hpp"
#endif

namespace gpuhash::bench {

/// key_types.width on one backend: linear probing with 32/32-, 64/64- and
/// 128/128-bit pairs, and 64-bit keys with 32- and 128-byte values, at each
/// (n, load) of the sweep.
template <class Backend>
void run_key_widths(context& ctx);

extern template void run_key_widths<cpu_backend>(context&);
#if defined(GPUHASH_HAS_CUDA)
extern template void run_key_widths<cuda_backend>(context&);
#endif

}  // namespace gpuhash::bench
