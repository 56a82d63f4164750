#pragma once
// The Cuckoo Node Hashing configurations gpuhash-bench needs besides the
// library's (32-slot nodes, and the paper's 128-slot ones), for 32/32-bit
// pairs:
//  * probe_counting_preset and probe_counting_paper_insert_preset,
//    cnh.table1's 128-slot nodes with probe counting and our or the
//    paper's insert policy, on the CPU (cuckoo_node_counting.cpp, always
//    built);
//  * cnh.fig12's node sizes of 8, 16, 64 and 256 slots
//    (cuckoo_node_variant.cpp and .cu), compiled only when
//    GPUHASH_BENCH_VARIANTS is ON (scripts/gpu-check turns it on).

#include "gpuhash/cuckoo_node_config.hpp"
#include "support/designs.hpp"

namespace gpuhash::bench {

using probe_counting_preset = cuckoo_node_preset<128, 4, 0, true>;
/// The same with the paper's own insert policy.
using probe_counting_paper_insert_preset = cuckoo_node_preset<128, 4, 0, true, false, true>;

#if defined(GPUHASH_BENCH_VARIANTS)
using cuckoo_node_sizes =
    support::type_list<cuckoo_node_preset<8>, cuckoo_node_preset<16>, cuckoo_node_default_preset,
                       cuckoo_node_preset<64>, cuckoo_node_paper_preset, cuckoo_node_preset<256>>;
#else
using cuckoo_node_sizes = support::type_list<cuckoo_node_default_preset, cuckoo_node_paper_preset>;
#endif

}  // namespace gpuhash::bench
