// cnh.table1's probe-counting Cuckoo Node Hashing engines (128-slot nodes,
// our insert policy and the paper's) on the CPU backend (cuckoo_node_variants.hpp).

#include <cstdint>

#include "cuckoo_node_variants.hpp"
#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/detail/cuckoo_node/engine_impl.hpp"

namespace gpuhash::detail::cuckoo_node {
template class engine<std::uint32_t, std::uint32_t, cpu_backend, bench::probe_counting_preset>;
template class engine<std::uint32_t, std::uint32_t, cpu_backend,
                      bench::probe_counting_paper_insert_preset>;
}  // namespace gpuhash::detail::cuckoo_node
