// One bucketed cuckoo configuration of cuckoo.bucket_size on the CPU backend
// (bucketed_cuckoo_variants.hpp). bench/CMakeLists.txt compiles this file once
// per configuration, defining GPUHASH_BENCH_BUCKET_BYTES, GPUHASH_BENCH_CHOICES and
// GPUHASH_BENCH_EVICTION.

#include <cstdint>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/detail/bucketed_cuckoo/engine_impl.hpp"

namespace gpuhash::detail::bucketed_cuckoo {
template class engine<std::uint32_t, std::uint32_t, cpu_backend, GPUHASH_BENCH_BUCKET_BYTES,
                      GPUHASH_BENCH_CHOICES,
                      eviction_policy::GPUHASH_BENCH_EVICTION>;
}  // namespace gpuhash::detail::bucketed_cuckoo
