#include "bucketed_cuckoo_key_types_tests.hpp"
#include "gpuhash/cuda/backend.hpp"
#include "key_types_tests.hpp"

namespace gpuhash::testing {
using cuda_designs =
    ::testing::Types<linear_probing_design<cuda_backend>, hashgraph_dynamic_design<cuda_backend>,
                     bucketed_cuckoo_design<cuda_backend>>;
INSTANTIATE_TYPED_TEST_SUITE_P(cuda, key_types, cuda_designs, design_name);
INSTANTIATE_TYPED_TEST_SUITE_P(cuda, wide_value_types, with_wide_values_t<cuda_designs>,
                               design_name);
INSTANTIATE_TYPED_TEST_SUITE_P(cuda, hashgraph_key_types, cuda_backend);
INSTANTIATE_TYPED_TEST_SUITE_P(cuda, cuckoo_key_types, bucketed_cuckoo_design<cuda_backend>,
                               design_name);
}  // namespace gpuhash::testing
