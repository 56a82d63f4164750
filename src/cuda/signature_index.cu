// The signature index on the CUDA backend.

#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/detail/signature_index/index_impl.hpp"

namespace gpuhash {
template class signature_index<cuda_backend>;
}  // namespace gpuhash
