// The device_api.* runs on the CPU backend (the kernels as CPU threads).

#include "gpuhash/cpu/backend.hpp"
#include "ref_runs_impl.hpp"

namespace gpuhash::bench {
template void run_ref_vs_bulk<cpu_backend>(context&);
template void run_group_by<cpu_backend>(context&);
}  // namespace gpuhash::bench
