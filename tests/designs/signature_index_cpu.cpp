#include "gpuhash/cpu/backend.hpp"
#include "signature_index_tests.hpp"

namespace gpuhash::testing {
using cpu_indexes = ::testing::Types<signature_index<cpu_backend>>;
INSTANTIATE_TYPED_TEST_SUITE_P(signature_index, signature_index_test, cpu_indexes);
}  // namespace gpuhash::testing
