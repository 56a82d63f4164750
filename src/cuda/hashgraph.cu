// Dynamic HashGraph's engine on the CUDA backend, for the library's key/value
// widths and each segment layout.

#include <cstdint>

#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/detail/hashgraph/dynamic_engine_impl.hpp"

namespace gpuhash::detail::hashgraph {
template class dynamic_engine<std::uint32_t, std::uint32_t, cuda_backend, segment_layout::csr>;
template class dynamic_engine<std::uint64_t, std::uint64_t, cuda_backend, segment_layout::csr>;
template class dynamic_engine<std::uint32_t, std::uint32_t, cuda_backend, segment_layout::ellpack>;
template class dynamic_engine<std::uint64_t, std::uint64_t, cuda_backend, segment_layout::ellpack>;
template class dynamic_engine<std::uint32_t, std::uint32_t, cuda_backend,
                              segment_layout::sliced_ellpack>;
template class dynamic_engine<std::uint64_t, std::uint64_t, cuda_backend,
                              segment_layout::sliced_ellpack>;
}  // namespace gpuhash::detail::hashgraph
