// string_map on the CPU backend, for the precompiled value types.

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/detail/string_map/table_impl.hpp"

namespace gpuhash {
template class string_map<std::uint32_t, cpu_backend>;
template class string_map<std::uint64_t, cpu_backend>;
}  // namespace gpuhash
