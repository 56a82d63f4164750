#pragma once
// Timed runs of the reorders of gpuhash/reorder.hpp for cnh.fig6: DACHash's
// Alg. 1 against Cuckoo Node Hashing's warp-cooperative Alg. 3. The reorder
// launches its own kernels, so the runs are compiled once per backend
// (reorder_runs_cpu.cpp, reorder_runs_cuda.cu) behind this plain interface.
// Rules of basic_ops.hpp: fresh keys per repetition, a warm-up then the
// median of >= 5, every result checked after timing.

#include <cstdint>

#include "../basic_ops.hpp"
#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/reorder_scheme.hpp"
#if defined(GPUHASH_HAS_CUDA)
#include "gpuhash/cuda/backend.hpp"
#endif

namespace gpuhash::bench {

/// Times reordering the point's n random 32-bit keys for a table of
/// `buckets` buckets, `combined` of them per reorder bucket: the new order
/// (positions) and the keys gathered into it, the paper's reordered key
/// set. `paper_width`: Alg. 3 with rows of exactly ceil(n / rows), as the
/// paper has them (the library gives them slack: reorder_options::row_width).
/// Checks after timing that the order is a permutation of the batch.
template <class Backend>
point_report time_reorder(const sweep_point& point, reorder_scheme scheme, bool paper_width,
                          std::uint64_t buckets, std::uint64_t combined);

extern template point_report time_reorder<cpu_backend>(const sweep_point&, reorder_scheme, bool,
                                                       std::uint64_t, std::uint64_t);
#if defined(GPUHASH_HAS_CUDA)
extern template point_report time_reorder<cuda_backend>(const sweep_point&, reorder_scheme, bool,
                                                        std::uint64_t, std::uint64_t);
#endif

}  // namespace gpuhash::bench
