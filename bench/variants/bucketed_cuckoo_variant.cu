// One bucketed cuckoo configuration of bucketed_cuckoo.bucket_size on the CUDA backend
// (bucketed_cuckoo_variants.hpp). bench/CMakeLists.txt compiles this file once
// per configuration, defining GPUHASH_BENCH_BUCKET_BYTES, GPUHASH_BENCH_CHOICES,
// GPUHASH_BENCH_EVICTION, GPUHASH_BENCH_FIND_PATH and GPUHASH_BENCH_BACKYARD.

#include <cstdint>

#include "gpuhash/bucketed_cuckoo_map_impl.hpp"
#include "gpuhash/cuda/backend.hpp"

GPUHASH_INSTANTIATE_BUCKETED_CUCKOO_MAP(
    std::uint32_t, std::uint32_t, gpuhash::cuda_backend,
    gpuhash::bucketed_cuckoo_config<GPUHASH_BENCH_BUCKET_BYTES, GPUHASH_BENCH_CHOICES,
                                    gpuhash::bucketed_cuckoo_eviction::GPUHASH_BENCH_EVICTION,
                                    gpuhash::bucketed_cuckoo_find_path::GPUHASH_BENCH_FIND_PATH,
                                    GPUHASH_BENCH_BACKYARD>);
