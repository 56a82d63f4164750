#pragma once
// The DACHash node sizes that dachash.fig7_1 compares, for 32/32-bit pairs.
// The library compiles 64-byte nodes (the thesis preset) and 128-byte ones
// (the paper and slab presets); 16- and 32-byte nodes are instantiated by
// dachash_variant.cpp (CPU) and .cu (CUDA), which bench/CMakeLists.txt
// compiles only when GPUHASH_BENCH_VARIANTS is ON.

#include "gpuhash/detail/dachash/engine.hpp"
#include "support/designs.hpp"

namespace gpuhash::bench {

#if defined(GPUHASH_BENCH_VARIANTS)
using node_size_configurations =
    support::type_list<detail::dachash::preset<16>, detail::dachash::preset<32>,
                       detail::dachash::thesis_preset, detail::dachash::paper_preset>;
#else
using node_size_configurations =
    support::type_list<detail::dachash::thesis_preset, detail::dachash::paper_preset>;
#endif

}  // namespace gpuhash::bench
