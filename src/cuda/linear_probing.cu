// The linear probing engine on the CUDA backend, for the library's key/value widths.

#include <cstdint>

#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/detail/linear_probing/engine_impl.hpp"

namespace gpuhash::detail::linear_probing {
template class engine<std::uint32_t, std::uint32_t, cuda_backend>;
template class engine<std::uint64_t, std::uint64_t, cuda_backend>;
}  // namespace gpuhash::detail::linear_probing
