// The Cuckoo Node Hashing engine on the CPU backend, for the library's
// key/value widths.

#include <cstdint>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/detail/cuckoo_node/engine_impl.hpp"

namespace gpuhash::detail::cuckoo_node {
template class engine<std::uint32_t, std::uint32_t, cpu_backend>;
template class engine<std::uint64_t, std::uint64_t, cpu_backend>;
template class engine<std::uint32_t, std::uint32_t, cpu_backend, cuckoo_node_paper_preset>;
template class engine<std::uint64_t, std::uint64_t, cpu_backend, cuckoo_node_paper_preset>;
template class engine<std::uint32_t, std::uint32_t, cpu_backend, cuckoo_node_local_preset>;
template class engine<std::uint64_t, std::uint64_t, cpu_backend, cuckoo_node_local_preset>;
}  // namespace gpuhash::detail::cuckoo_node
