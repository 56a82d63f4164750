// The device_api.* runs on the CUDA backend (nvcc: the kernels call refs).

#include "gpuhash/cuda/backend.hpp"
#include "ref_runs_impl.hpp"

namespace gpuhash::bench {
template void run_ref_vs_bulk<cuda_backend>(context&);
template void run_group_by<cuda_backend>(context&);
}  // namespace gpuhash::bench
