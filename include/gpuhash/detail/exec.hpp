#pragma once
// exec<Backend>: how a design's per-key functor runs over a batch. Engines are
// written once against it; the CPU specialization runs on the thread pool, the
// CUDA one (compiled only by nvcc) launches grid-stride kernels.
//
//   for_each(n, f, stream)                    f(i) for every i in [0, n)
//   for_each_tally(n, f, counters, stream[, share])
//                                             same; f returns a status, and the
//                                             inserted/erased/full counts are
//                                             added to *counters
//   for_each_batch(n, f, counters, stream[, share])
//                                             a batch functor (detail/batch.hpp):
//                                             out = f.run(i), then f.finish(i, out);
//                                             counts out.result into *counters
//                                             unless counters is null
//     (share: the threads the GPU keeps in flight, launch_share.hpp)
//   select_if(in, n, out, pred, stream)       stream compaction; returns the count
//   count_if(in, n, pred, stream)             how many elements satisfy pred (waits)
//   exclusive_scan(in, n, out, stream)        out[i] = sum of in[0, i); returns the total (waits)
//   sort_by_key(keys, n, sorted, order, s[, end_bit])
//                                             stable sort by bits [0, end_bit):
//                                             sorted[i] = keys[order[i]]
//   stable_partition(n, ways, way_of, place, counts, s[, align])
//                                             place(i, at) with at = i's position
//                                             once [0, n) is grouped by way_of(i)
//                                             in way order, stably, each group
//                                             from a multiple of align; counts[w] =
//                                             group sizes, in host memory (waits)

namespace gpuhash::detail {
template <class Backend>
struct exec;
}  // namespace gpuhash::detail

#include "gpuhash/detail/cpu/exec.hpp"
#if defined(__CUDACC__)
#include "gpuhash/detail/cuda/exec.cuh"
#endif
