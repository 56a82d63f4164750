#pragma once
// The DACHash configurations that dachash.fig7_1 (node sizes) and
// dachash.tiles (many-to-one tile sizes) compare, for 32/32-bit pairs, and
// fig7_1's for 64/64 (from 32-byte nodes: a node holds a pair and the next
// index). The
// library compiles 64-byte nodes with 8-lane tiles (the thesis preset) and
// 128-byte ones (the paper and slab presets); 16- and 32-byte nodes and the
// other tile sizes are instantiated by dachash_variant.cpp (CPU) and .cu
// (CUDA), which bench/CMakeLists.txt compiles only when
// GPUHASH_BENCH_VARIANTS is ON.

#include "gpuhash/dachash_config.hpp"
#include "support/designs.hpp"

namespace gpuhash::bench {

#if defined(GPUHASH_BENCH_VARIANTS)
using node_size_configurations = support::type_list<dachash_preset<16>, dachash_preset<32>,
                                                    dachash_thesis_preset, dachash_paper_preset>;
using wide_node_size_configurations =
    support::type_list<dachash_preset<32>, dachash_thesis_preset, dachash_paper_preset>;
/// 64-byte nodes (8 cells of 32/32) read by tiles of 1 to 32 lanes.
using tile_size_configurations =
    support::type_list<dachash_preset<64, 1>, dachash_preset<64, 2>, dachash_preset<64, 4>,
                       dachash_thesis_preset, dachash_preset<64, 16>, dachash_preset<64, 32>>;
#else
using node_size_configurations = support::type_list<dachash_thesis_preset, dachash_paper_preset>;
using wide_node_size_configurations = node_size_configurations;
using tile_size_configurations = support::type_list<dachash_thesis_preset>;
#endif

}  // namespace gpuhash::bench
