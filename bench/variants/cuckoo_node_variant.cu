// cnh.fig12's node sizes besides the library's (cuckoo_node_variants.hpp), on
// the CUDA backend.

#include <cstdint>

#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/detail/cuckoo_node/engine_impl.hpp"

namespace gpuhash::detail::cuckoo_node {
template class engine<std::uint32_t, std::uint32_t, cuda_backend, preset<8>>;
template class engine<std::uint32_t, std::uint32_t, cuda_backend, preset<16>>;
template class engine<std::uint32_t, std::uint32_t, cuda_backend, preset<64>>;
template class engine<std::uint32_t, std::uint32_t, cuda_backend, preset<256>>;
}  // namespace gpuhash::detail::cuckoo_node
