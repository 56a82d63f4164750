// One bucketed cuckoo configuration of bucketed_cuckoo.bucket_size on the CUDA backend
// (bucketed_cuckoo_variants.hpp). bench/CMakeLists.txt compiles this file once
// per configuration, defining GPUHASH_BENCH_BUCKET_BYTES, GPUHASH_BENCH_CHOICES,
// GPUHASH_BENCH_EVICTION and GPUHASH_BENCH_FIND_PATH.

#include <cstdint>

#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/detail/bucketed_cuckoo/engine_impl.hpp"

namespace gpuhash::detail::bucketed_cuckoo {
template class engine<std::uint32_t, std::uint32_t, cuda_backend, GPUHASH_BENCH_BUCKET_BYTES,
                      GPUHASH_BENCH_CHOICES, eviction_policy::GPUHASH_BENCH_EVICTION,
                      find_path::GPUHASH_BENCH_FIND_PATH>;
}  // namespace gpuhash::detail::bucketed_cuckoo
