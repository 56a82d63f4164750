#include "gpuhash/cpu/backend.hpp"
#include "string_map_tests.hpp"

namespace gpuhash::testing {
INSTANTIATE_TYPED_TEST_SUITE_P(cpu, string_map_test, ::testing::Types<cpu_backend>);
}  // namespace gpuhash::testing
