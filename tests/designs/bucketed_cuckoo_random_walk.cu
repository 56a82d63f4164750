// The bucketed cuckoo engine with random-walk eviction on the CUDA backend,
// for bucketed_cuckoo_cuda's tests (the library compiles only the default,
// lookahead eviction).

#include <cstdint>

#include "gpuhash/bucketed_cuckoo_map_impl.hpp"
#include "gpuhash/cuda/backend.hpp"

GPUHASH_INSTANTIATE_BUCKETED_CUCKOO_MAP(
    std::uint32_t, std::uint32_t, gpuhash::cuda_backend,
    gpuhash::bucketed_cuckoo_config<32, 2, gpuhash::bucketed_cuckoo_eviction::random_walk>);
