#include <cstdint>

#include "bucketed_cuckoo_tests.hpp"
#include "gpuhash/cuda/backend.hpp"

namespace gpuhash::testing {
using cuda_cuckoo_tables =
    ::testing::Types<bucketed_cuckoo_map<std::uint32_t, std::uint32_t, cuda_backend>,
                     bucketed_cuckoo_map<std::uint64_t, std::uint64_t, cuda_backend>>;
INSTANTIATE_TYPED_TEST_SUITE_P(bucketed_cuckoo, bucketed_cuckoo, cuda_cuckoo_tables);
}  // namespace gpuhash::testing
