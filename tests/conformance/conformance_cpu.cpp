// The conformance suite on the CPU backend (runs in CI).

#include "conformance.hpp"
#include "designs.hpp"
#include "gpuhash/cpu/backend.hpp"

namespace gpuhash::testing {
INSTANTIATE_TYPED_TEST_SUITE_P(conformance, conformance, conformance_tables<cpu_backend>);
}  // namespace gpuhash::testing
