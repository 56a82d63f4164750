// The bucketed cuckoo table with one tile per key for finds
// (bucketed_cuckoo_find_path::tile)
// on the CUDA backend, for bucketed_cuckoo_cuda's tests (the library compiles
// only one thread per key): 32/32 pairs in 32-byte buckets (two lanes of two
// slots) and 64/64 pairs in 64-byte buckets (four lanes of one slot).

#include <cstdint>

#include "gpuhash/bucketed_cuckoo_map_impl.hpp"
#include "gpuhash/cuda/backend.hpp"

GPUHASH_INSTANTIATE_BUCKETED_CUCKOO_MAP(
    std::uint32_t, std::uint32_t, gpuhash::cuda_backend,
    gpuhash::bucketed_cuckoo_config<32, 2, gpuhash::bucketed_cuckoo_eviction::lookahead,
                                    gpuhash::bucketed_cuckoo_find_path::tile>);
GPUHASH_INSTANTIATE_BUCKETED_CUCKOO_MAP(
    std::uint64_t, std::uint64_t, gpuhash::cuda_backend,
    gpuhash::bucketed_cuckoo_config<64, 2, gpuhash::bucketed_cuckoo_eviction::lookahead,
                                    gpuhash::bucketed_cuckoo_find_path::tile>);
