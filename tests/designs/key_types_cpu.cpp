#include "gpuhash/cpu/backend.hpp"
#include "key_types_tests.hpp"

namespace gpuhash::testing {
INSTANTIATE_TYPED_TEST_SUITE_P(cpu, key_types, ::testing::Types<cpu_backend>);
}  // namespace gpuhash::testing
