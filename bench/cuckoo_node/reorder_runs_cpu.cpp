// cnh.fig6's timed reorders on the CPU backend.

#include "reorder_runs_impl.hpp"

namespace gpuhash::bench {
template point_report time_reorder<cpu_backend>(const sweep_point&, reorder_scheme, bool,
                                                std::uint64_t, std::uint64_t);
}  // namespace gpuhash::bench
