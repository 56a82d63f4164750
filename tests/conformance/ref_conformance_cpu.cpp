// The refs' conformance suite on the CPU backend (runs in CI): every design's
// ref called from several threads.

#include "designs.hpp"
#include "gpuhash/cpu/backend.hpp"
#include "ref_conformance.hpp"

namespace gpuhash::testing {
INSTANTIATE_TYPED_TEST_SUITE_P(refs, ref_conformance, conformance_tables<cpu_backend>);
}  // namespace gpuhash::testing
