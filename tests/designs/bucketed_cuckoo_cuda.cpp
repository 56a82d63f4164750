#include <cstdint>

#include "bucketed_cuckoo_tests.hpp"
#include "gpuhash/cuda/backend.hpp"

namespace gpuhash::testing {
// The random-walk eviction policy and the tile find path are instantiated for
// these tests in bucketed_cuckoo_random_walk.cu and bucketed_cuckoo_tile.cu
// (the library compiles only lookahead eviction and one thread per find).
using cuda_cuckoo_tables = ::testing::Types<
    bucketed_cuckoo_map<std::uint32_t, std::uint32_t, cuda_backend>,
    bucketed_cuckoo_map<std::uint64_t, std::uint64_t, cuda_backend>,
    bucketed_cuckoo_map_with<std::uint32_t, std::uint32_t, cuda_backend,
                             bucketed_cuckoo_config<32, 2, bucketed_cuckoo_eviction::random_walk>>,
    bucketed_cuckoo_map_with<std::uint32_t, std::uint32_t, cuda_backend,
                             bucketed_cuckoo_config<32, 2, bucketed_cuckoo_eviction::lookahead,
                                                    bucketed_cuckoo_find_path::tile>>,
    bucketed_cuckoo_map_with<std::uint64_t, std::uint64_t, cuda_backend,
                             bucketed_cuckoo_config<64, 2, bucketed_cuckoo_eviction::lookahead,
                                                    bucketed_cuckoo_find_path::tile>>>;
INSTANTIATE_TYPED_TEST_SUITE_P(bucketed_cuckoo, bucketed_cuckoo, cuda_cuckoo_tables);
}  // namespace gpuhash::testing
