// Cuckoo Node Hashing on the CPU backend.

#include "cuckoo_node_tests.hpp"
#include "gpuhash/cpu/backend.hpp"

namespace gpuhash::testing {
INSTANTIATE_TYPED_TEST_SUITE_P(cuckoo_node, cuckoo_node, cuckoo_node_tables<cpu_backend>);
}  // namespace gpuhash::testing
