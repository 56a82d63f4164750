#pragma once
// Grid-stride kernels that run a per-key functor over a batch, and the grid
// size that fills the device with them. Compiled only by nvcc.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "gpuhash/cuda/error.hpp"
#include "gpuhash/cuda/occupancy.hpp"
#include "gpuhash/detail/atomic.hpp"
#include "gpuhash/detail/counters.hpp"
#include "gpuhash/detail/launch_share.hpp"

namespace gpuhash::detail::cuda {

inline constexpr int block_size = 256;

template <class F>
__global__ void __launch_bounds__(block_size) for_each_kernel(std::uint64_t n, F f) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
    f(i);
}

/// Adds a warp's tallies to the table's counters: one atomic per warp and
/// nonzero counter. All 32 lanes must call it.
__device__ inline void add_warp_tally(const status_tally& tally, table_counters* counters) {
  __syncwarp();
  const std::uint32_t inserted = __reduce_add_sync(0xffffffffU, tally.inserted);
  const std::uint32_t erased = __reduce_add_sync(0xffffffffU, tally.erased);
  const std::uint32_t full = __reduce_add_sync(0xffffffffU, tally.full);
  if (threadIdx.x % 32 == 0) {
    if (inserted != 0) fetch_add_relaxed<std::uint64_t>(&counters->inserted, inserted);
    if (erased != 0) fetch_add_relaxed<std::uint64_t>(&counters->erased, erased);
    if (full != 0) fetch_add_relaxed<std::uint64_t>(&counters->full, full);
  }
}

template <class F>
__global__ void __launch_bounds__(block_size)
    for_each_tally_kernel(std::uint64_t n, F f, table_counters* counters) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  status_tally tally;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
    tally.count(f(i));
  add_warp_tally(tally, counters);  // all lanes get here: none returns early
}

/// Runs a batch functor (detail/batch.hpp) over [0, n). The grid-stride loop
/// is uniform per warp (the warp's first index decides), so the warp
/// reconverges after the divergent run() and stores its results together:
/// whole sectors instead of scattered partial ones (measured on the H200: an
/// insert kernel runs 12.9 G/s this way, 11.3 with divergent stores).
template <class F>
__global__ void __launch_bounds__(block_size)
    for_each_batch_kernel(std::uint64_t n, F f, table_counters* counters) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  const unsigned lane = threadIdx.x % 32;
  status_tally tally;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i - lane < n;
       i += stride) {
    const bool active = i < n;
    typename F::outcome_type out{};
    if (active) out = f.run(i);
    __syncwarp();
    if (active) {
      f.finish(i, out);
      tally.count(out.result);
    }
  }
  if (counters != nullptr) add_warp_tally(tally, counters);
}

/// Blocks for a grid-stride launch of `kernel` over n items: enough to cover n,
/// at most `share` of those the device runs at once (more would only add
/// launch overhead; how many keep memory busiest depends on the kernel:
/// launch_share.hpp).
template <class Kernel>
int grid_size(Kernel kernel, std::uint64_t n, launch_share share = {}) {
  // Kernels of one signature (a find and a contains kernel, say) share this
  // function, Kernel being their pointer type, and may differ in registers:
  // each kernel's residency is asked once per thread and kept beside it.
  thread_local std::vector<std::pair<Kernel, int>> known;
  auto entry = std::find_if(known.begin(), known.end(),
                            [&](const std::pair<Kernel, int>& e) { return e.first == kernel; });
  if (entry == known.end())
    entry = known.insert(known.end(), {kernel, gpuhash::cuda::resident_blocks(kernel, block_size)});
  const std::uint64_t needed = (n + block_size - 1) / block_size;
  return static_cast<int>(
      std::min<std::uint64_t>(needed, static_cast<std::uint64_t>(share.of(entry->second))));
}

}  // namespace gpuhash::detail::cuda
