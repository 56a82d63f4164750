// cnh.fig6's timed reorders on the CUDA backend (nvcc: the reorder launches
// its own kernels).

#include "gpuhash/cuda/backend.hpp"
#include "reorder_runs_impl.hpp"

namespace gpuhash::bench {
template point_report time_reorder<cuda_backend>(const sweep_point&, reorder_scheme, bool,
                                                 std::uint64_t, std::uint64_t);
}  // namespace gpuhash::bench
