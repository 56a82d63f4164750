// The DACHash engine (thesis, paper and slab presets) on the CPU backend, for the library's
// key/value widths.

#include <cstdint>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/detail/dachash/engine_impl.hpp"

namespace gpuhash::detail::dachash {
template class engine<std::uint32_t, std::uint32_t, cpu_backend>;
template class engine<std::uint64_t, std::uint64_t, cpu_backend>;
template class engine<std::uint32_t, std::uint32_t, cpu_backend, dachash_paper_preset>;
template class engine<std::uint64_t, std::uint64_t, cpu_backend, dachash_paper_preset>;
template class engine<std::uint32_t, std::uint32_t, cpu_backend, dachash_slab_preset>;
template class engine<std::uint64_t, std::uint64_t, cpu_backend, dachash_slab_preset>;
}  // namespace gpuhash::detail::dachash
