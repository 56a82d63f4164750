#pragma once
// The device_api.* experiments (bench/experiments/device_api.cpp): tables
// used from kernels of the benchmark's own, through their refs
// (gpuhash/map_ref.hpp), against the same tables' bulk calls. The kernels
// are host+device functors run by support/launch.hpp, so the runs are
// compiled once per backend (ref_runs_cpu.cpp, ref_runs_cuda.cu) behind this
// plain interface. Rules of basic_ops.hpp: fresh keys per repetition, setup
// outside the timed region, a warm-up then the median of >= 5, every result
// checked after timing.

#include "../experiment.hpp"
#include "gpuhash/cpu/backend.hpp"
#if defined(GPUHASH_HAS_CUDA)
#include "gpuhash/cuda/backend.hpp"
#endif

namespace gpuhash::bench {

/// device_api.ref_vs_bulk on one backend: at each point, insert, find of
/// present keys and find of absent keys, each by a bulk call and by a kernel
/// calling the ref once per key (and, for bucketed cuckoo on the GPU, by one
/// cooperative tile per key); also the ref inserts with the host-side retry
/// of the keys that came back `full`.
template <class Backend>
void run_ref_vs_bulk(context& ctx);

/// device_api.group_by on one backend: rows summed into groups by a kernel
/// calling insert_or_apply once per row (gpuhash::plus, one atomic add;
/// and an op the table does not know, a compare-and-swap loop), as
/// ../shared/peers/drivers/cuco_ops_bench.cu measures cuCollections.
template <class Backend>
void run_group_by(context& ctx);

extern template void run_ref_vs_bulk<cpu_backend>(context&);
extern template void run_group_by<cpu_backend>(context&);
#if defined(GPUHASH_HAS_CUDA)
extern template void run_ref_vs_bulk<cuda_backend>(context&);
extern template void run_group_by<cuda_backend>(context&);
#endif

}  // namespace gpuhash::bench
