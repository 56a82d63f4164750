#include "gpuhash/cuda/backend.hpp"
#include "key_types_tests.hpp"

namespace gpuhash::testing {
INSTANTIATE_TYPED_TEST_SUITE_P(cuda, key_types, ::testing::Types<cuda_backend>);
}  // namespace gpuhash::testing
