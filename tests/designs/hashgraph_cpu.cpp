// HashGraph, static and dynamic, on the CPU backend.

#include "gpuhash/cpu/backend.hpp"
#include "hashgraph_dynamic_tests.hpp"
#include "hashgraph_static_tests.hpp"

namespace gpuhash::testing {
INSTANTIATE_TYPED_TEST_SUITE_P(hashgraph, hashgraph_static, ::testing::Types<cpu_backend>);
INSTANTIATE_TYPED_TEST_SUITE_P(hashgraph, hashgraph_dynamic, hashgraph_dynamic_tables<cpu_backend>);
}  // namespace gpuhash::testing
