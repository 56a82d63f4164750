// The signature index on the CPU backend.

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/detail/signature_index/index_impl.hpp"

namespace gpuhash {
template class signature_index<cpu_backend>;
}  // namespace gpuhash
