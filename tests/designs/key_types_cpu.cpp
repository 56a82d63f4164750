#include "bucketed_cuckoo_key_types_tests.hpp"
#include "gpuhash/bucketed_cuckoo_map_impl.hpp"
#include "gpuhash/cpu/backend.hpp"
#include "key_types_tests.hpp"

namespace gpuhash::testing {
using cpu_designs =
    ::testing::Types<linear_probing_design<cpu_backend>, hashgraph_dynamic_design<cpu_backend>,
                     bucketed_cuckoo_design<cpu_backend>>;
INSTANTIATE_TYPED_TEST_SUITE_P(cpu, key_types, cpu_designs, design_name);
INSTANTIATE_TYPED_TEST_SUITE_P(cpu, wide_value_types, with_wide_values_t<cpu_designs>, design_name);
INSTANTIATE_TYPED_TEST_SUITE_P(cpu, hashgraph_key_types, cpu_backend);
using cpu_cuckoo_designs =
    ::testing::Types<bucketed_cuckoo_design<cpu_backend>, two_choice_cuckoo_design<cpu_backend>>;
INSTANTIATE_TYPED_TEST_SUITE_P(cpu, cuckoo_key_types, cpu_cuckoo_designs, design_name);
}  // namespace gpuhash::testing
