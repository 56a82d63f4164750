// key_types.width and key_types.value_width on the CUDA backend (nvcc: the
// header-only tables' kernels).

#include "gpuhash/cuda/backend.hpp"
#include "width_runs_impl.hpp"

namespace gpuhash::bench {
template void run_key_widths<cuda_backend>(context&);
template void run_value_widths<cuda_backend>(context&);
}  // namespace gpuhash::bench
