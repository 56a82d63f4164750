// string_map on the CUDA backend, for the precompiled value types.

#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/detail/string_map/table_impl.hpp"

namespace gpuhash {
template class string_map<std::uint32_t, cuda_backend>;
template class string_map<std::uint64_t, cuda_backend>;
}  // namespace gpuhash
