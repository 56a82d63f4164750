#include <cstdint>

#include "bucketed_cuckoo_tests.hpp"
#include "gpuhash/detail/bucketed_cuckoo/engine_impl.hpp"

namespace gpuhash::detail::bucketed_cuckoo {
// The random-walk eviction policy is not compiled into the library (its
// default is lookahead); its tests instantiate it here.
template class engine<std::uint32_t, std::uint32_t, cpu_backend, 32, 2,
                      eviction_policy::random_walk>;
}  // namespace gpuhash::detail::bucketed_cuckoo

namespace gpuhash::testing {
using cpu_cuckoo_tables =
    ::testing::Types<bucketed_cuckoo_map<std::uint32_t, std::uint32_t, cpu_backend>,
                     bucketed_cuckoo_map<std::uint64_t, std::uint64_t, cpu_backend>,
                     basic_map<detail::bucketed_cuckoo::engine<
                         std::uint32_t, std::uint32_t, cpu_backend, 32, 2,
                         detail::bucketed_cuckoo::eviction_policy::random_walk>>>;
INSTANTIATE_TYPED_TEST_SUITE_P(bucketed_cuckoo, bucketed_cuckoo, cpu_cuckoo_tables);
}  // namespace gpuhash::testing
