#include <cstdint>

#include "bucketed_cuckoo_tests.hpp"

namespace gpuhash::testing {
using cpu_cuckoo_tables =
    ::testing::Types<bucketed_cuckoo_map<std::uint32_t, std::uint32_t, cpu_backend>,
                     bucketed_cuckoo_map<std::uint64_t, std::uint64_t, cpu_backend>>;
INSTANTIATE_TYPED_TEST_SUITE_P(bucketed_cuckoo, bucketed_cuckoo, cpu_cuckoo_tables);
}  // namespace gpuhash::testing
