#include <cstdint>

#include "bucketed_cuckoo_tests.hpp"
#include "gpuhash/cuda/backend.hpp"

namespace gpuhash::testing {
// The lookahead eviction policy is instantiated for these tests in
// bucketed_cuckoo_lookahead.cu (it is not compiled into the library).
using cuda_cuckoo_tables =
    ::testing::Types<bucketed_cuckoo_map<std::uint32_t, std::uint32_t, cuda_backend>,
                     bucketed_cuckoo_map<std::uint64_t, std::uint64_t, cuda_backend>,
                     basic_map<detail::bucketed_cuckoo::engine<
                         std::uint32_t, std::uint32_t, cuda_backend, 32, 2,
                         detail::bucketed_cuckoo::eviction_policy::lookahead>>>;
INSTANTIATE_TYPED_TEST_SUITE_P(bucketed_cuckoo, bucketed_cuckoo, cuda_cuckoo_tables);
}  // namespace gpuhash::testing
