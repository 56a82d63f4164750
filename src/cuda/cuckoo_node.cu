// The Cuckoo Node Hashing engine on the CUDA backend, for the library's
// key/value widths.

#include <cstdint>

#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/detail/cuckoo_node/engine_impl.hpp"

namespace gpuhash::detail::cuckoo_node {
template class engine<std::uint32_t, std::uint32_t, cuda_backend>;
template class engine<std::uint64_t, std::uint64_t, cuda_backend>;
template class engine<std::uint32_t, std::uint32_t, cuda_backend, cuckoo_node_paper_preset>;
template class engine<std::uint64_t, std::uint64_t, cuda_backend, cuckoo_node_paper_preset>;
template class engine<std::uint32_t, std::uint32_t, cuda_backend, cuckoo_node_local_preset>;
template class engine<std::uint64_t, std::uint64_t, cuda_backend, cuckoo_node_local_preset>;
}  // namespace gpuhash::detail::cuckoo_node
