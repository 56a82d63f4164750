// Cuckoo Node Hashing on the CUDA backend.

#include "cuckoo_node_tests.hpp"
#include "gpuhash/cuda/backend.hpp"

namespace gpuhash::testing {
INSTANTIATE_TYPED_TEST_SUITE_P(cuckoo_node, cuckoo_node, cuckoo_node_tables<cuda_backend>);
}  // namespace gpuhash::testing
