#include "gpuhash/cuda/backend.hpp"
#include "string_map_tests.hpp"

namespace gpuhash::testing {
INSTANTIATE_TYPED_TEST_SUITE_P(cuda, string_map_test, ::testing::Types<cuda_backend>);
}  // namespace gpuhash::testing
