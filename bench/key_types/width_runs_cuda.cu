// key_types.width on the CUDA backend (nvcc: the 16-byte table's kernels).

#include "gpuhash/cuda/backend.hpp"
#include "width_runs_impl.hpp"

namespace gpuhash::bench {
template void run_key_widths<cuda_backend>(context&);
}  // namespace gpuhash::bench
