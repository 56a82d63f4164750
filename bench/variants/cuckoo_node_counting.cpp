// cnh.table1's probe-counting Cuckoo Node Hashing engines (128-slot nodes,
// our insert policy and the paper's) on the CPU backend (cuckoo_node_variants.hpp).

#include <cstdint>

#include "cuckoo_node_variants.hpp"
#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/cuckoo_node_map_impl.hpp"

GPUHASH_INSTANTIATE_CUCKOO_NODE_MAP(std::uint32_t, std::uint32_t, gpuhash::cpu_backend,
                                    gpuhash::bench::probe_counting_preset);
GPUHASH_INSTANTIATE_CUCKOO_NODE_MAP(std::uint32_t, std::uint32_t, gpuhash::cpu_backend,
                                    gpuhash::bench::probe_counting_paper_insert_preset);
