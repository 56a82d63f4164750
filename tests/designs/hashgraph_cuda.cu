// HashGraph, static and dynamic, on the CUDA backend (a .cu file: the static
// tables are header-only).

#include "gpuhash/cuda/backend.hpp"
#include "hashgraph_dynamic_tests.hpp"
#include "hashgraph_static_tests.hpp"

namespace gpuhash::testing {
INSTANTIATE_TYPED_TEST_SUITE_P(hashgraph, hashgraph_static, ::testing::Types<cuda_backend>);
INSTANTIATE_TYPED_TEST_SUITE_P(hashgraph, hashgraph_dynamic,
                               hashgraph_dynamic_tables<cuda_backend>);
}  // namespace gpuhash::testing
