// One bucketed cuckoo configuration of bucketed_cuckoo.bucket_size on the CPU
// backend (bucketed_cuckoo_variants.hpp). bench/CMakeLists.txt compiles this
// file once per configuration, defining GPUHASH_BENCH_BUCKET_BYTES,
// GPUHASH_BENCH_CHOICES, GPUHASH_BENCH_EVICTION, GPUHASH_BENCH_FIND_PATH
// (never tile: the CPU has no tiles, and the benchmark runs tile
// configurations on CUDA only) and GPUHASH_BENCH_BACKYARD.

#include <cstdint>

#include "gpuhash/bucketed_cuckoo_map_impl.hpp"
#include "gpuhash/cpu/backend.hpp"

GPUHASH_INSTANTIATE_BUCKETED_CUCKOO_MAP(
    std::uint32_t, std::uint32_t, gpuhash::cpu_backend,
    gpuhash::bucketed_cuckoo_config<GPUHASH_BENCH_BUCKET_BYTES, GPUHASH_BENCH_CHOICES,
                                    gpuhash::bucketed_cuckoo_eviction::GPUHASH_BENCH_EVICTION,
                                    gpuhash::bucketed_cuckoo_find_path::GPUHASH_BENCH_FIND_PATH,
                                    GPUHASH_BENCH_BACKYARD>);
