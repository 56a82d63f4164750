// Static HashGraph's timed runs on the CUDA backend (nvcc: the tables are
// header-only).

#include "gpuhash/cuda/backend.hpp"
#include "static_runs_impl.hpp"

namespace gpuhash::bench {
template point_report time_static_hashgraph<cuda_backend>(const sweep_point&, const static_case&);
}  // namespace gpuhash::bench
