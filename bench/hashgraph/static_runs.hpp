#pragma once
// Timed runs of static HashGraph (gpuhash/hashgraph.hpp) for the hashgraph.*
// experiments. The tables are header-only, so their CUDA instantiations need
// nvcc: the runs are compiled once per backend (static_runs_cpu.cpp,
// static_runs_cuda.cu) behind this plain interface. Rules of basic_ops.hpp:
// fresh keys per repetition, setup outside the timed region, a warm-up then
// the median of >= 5, every result checked after timing.

#include <string>

#include "../basic_ops.hpp"
#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/hashgraph.hpp"
#if defined(GPUHASH_HAS_CUDA)
#include "gpuhash/cuda/backend.hpp"
#endif

namespace gpuhash::bench {

/// What a run times.
enum class hashgraph_work {
  build,           ///< building from the point's n distinct keys
  probe_standard,  ///< then retrieving all of them, Alg. 6
  probe_binned,    ///< ... with Probe-New, Alg. 7
};

/// One static table configuration: a set (32-bit keys) or a 32/32 map.
struct static_case {
  bool map = false;
  pair_layout pairs = pair_layout::array_of_structures;
  segment_layout segments = segment_layout::csr;
  hashgraph_build build = hashgraph_build::binned;
  hashgraph_work work = hashgraph_work::build;
  std::uint64_t buckets_per_bin = 4096;
};

/// The design's name in results: hashgraph_set_csr, hashgraph_map_ellpack_soa, ...
std::string static_case_label(const static_case& c);

template <class Backend>
point_report time_static_hashgraph(const sweep_point& point, const static_case& c);

/// std::unordered_set<std::uint32_t> with the same Murmur hash (the thesis'
/// CPU reference): build by inserting the keys one by one, or find them all.
point_report time_unordered_set(const sweep_point& point, hashgraph_work work);

extern template point_report time_static_hashgraph<cpu_backend>(const sweep_point&,
                                                                const static_case&);
#if defined(GPUHASH_HAS_CUDA)
extern template point_report time_static_hashgraph<cuda_backend>(const sweep_point&,
                                                                 const static_case&);
#endif

}  // namespace gpuhash::bench
