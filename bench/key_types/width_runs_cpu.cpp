// key_types.width and key_types.value_width on the CPU backend.

#include "gpuhash/cpu/backend.hpp"
#include "width_runs_impl.hpp"

namespace gpuhash::bench {
template void run_key_widths<cpu_backend>(context&);
template void run_value_widths<cpu_backend>(context&);
}  // namespace gpuhash::bench
