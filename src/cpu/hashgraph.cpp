// Dynamic HashGraph's engine on the CPU backend, for the library's key/value
// widths and each segment layout.

#include <cstdint>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/detail/hashgraph/dynamic_engine_impl.hpp"

namespace gpuhash::detail::hashgraph {
template class dynamic_engine<std::uint32_t, std::uint32_t, cpu_backend, segment_layout::csr>;
template class dynamic_engine<std::uint64_t, std::uint64_t, cpu_backend, segment_layout::csr>;
template class dynamic_engine<std::uint32_t, std::uint32_t, cpu_backend, segment_layout::ellpack>;
template class dynamic_engine<std::uint64_t, std::uint64_t, cpu_backend, segment_layout::ellpack>;
template class dynamic_engine<std::uint32_t, std::uint32_t, cpu_backend,
                              segment_layout::sliced_ellpack>;
template class dynamic_engine<std::uint64_t, std::uint64_t, cpu_backend,
                              segment_layout::sliced_ellpack>;
}  // namespace gpuhash::detail::hashgraph
