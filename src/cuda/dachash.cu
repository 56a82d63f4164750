// The DACHash engine (thesis, paper and slab presets) on the CUDA backend, for the library's
// key/value widths.

#include <cstdint>

#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/detail/dachash/engine_impl.hpp"

namespace gpuhash::detail::dachash {
template class engine<std::uint32_t, std::uint32_t, cuda_backend>;
template class engine<std::uint64_t, std::uint64_t, cuda_backend>;
template class engine<std::uint32_t, std::uint32_t, cuda_backend, dachash_paper_preset>;
template class engine<std::uint64_t, std::uint64_t, cuda_backend, dachash_paper_preset>;
template class engine<std::uint32_t, std::uint32_t, cuda_backend, dachash_slab_preset>;
template class engine<std::uint64_t, std::uint64_t, cuda_backend, dachash_slab_preset>;
}  // namespace gpuhash::detail::dachash
