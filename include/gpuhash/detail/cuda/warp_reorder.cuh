#pragma once
// The warp-cooperative reorder's placement (Cuckoo Node Hashing's Alg. 3,
// detail/reorder.hpp) on CUDA: one hardware warp per group of 32 keys.
// Compiled only by nvcc (included from reorder.hpp under __CUDACC__).
//
// The warp keeps a queue of its lanes whose key is not yet placed (a
// ballot). Each round takes the first of them: every lane reads the fill
// count of one of the 32 rows that follow the chosen key's row (the 32
// counts are adjacent, so one coalesced read), the first lane that sees room
// claims a position there with an atomic add, and the key is placed if the
// claim is below the row's width. With no room in the 32 rows, the chosen
// key's search moves 32 rows on. Every branch that decides the loop depends
// on ballots and shuffles, so the warp runs it in step.

#include <cstdint>

#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/cuda/error.hpp"
#include "gpuhash/detail/atomic.hpp"
#include "gpuhash/detail/cuda/launch.cuh"

namespace gpuhash::detail {

namespace cuda {

template <class Key, class BucketOf>
__global__ void __launch_bounds__(block_size)
    cooperative_reorder_kernel(place_group_cooperatively<Key, BucketOf> f) {
  constexpr unsigned all_lanes = 0xffffffffU;
  const unsigned lane = threadIdx.x % 32;
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  // Uniform per warp (the warp's first key decides), so all 32 lanes take
  // part in every ballot.
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i - lane < f.n;
       i += stride) {
    bool pending = i < f.n;
    std::uint64_t start = pending ? f.bucket_of(f.keys[i]) / f.combined : 0;
    for (unsigned queue; (queue = __ballot_sync(all_lanes, pending)) != 0;) {
      const int chosen = __ffs(static_cast<int>(queue)) - 1;
      const std::uint64_t position = __shfl_sync(all_lanes, i, chosen);
      const std::uint64_t row = (__shfl_sync(all_lanes, start, chosen) + lane) % f.rows;
      const unsigned with_room = __ballot_sync(all_lanes, load_relaxed(f.sizes + row) < f.width);
      if (with_room == 0) {  // no room in these 32 rows: the chosen key looks further on
        if (lane == static_cast<unsigned>(chosen)) start = (start + 32) % f.rows;
        continue;
      }
      bool placed = false;
      if (lane == static_cast<unsigned>(__ffs(static_cast<int>(with_room)) - 1)) {
        const std::uint32_t index = fetch_add_relaxed(f.sizes + row, std::uint32_t{1});
        if (index < f.width) {
          f.space[row * f.width + index] = position;
          placed = true;
        }
      }
      // A lost race leaves the key queued; the next round reads the counts again.
      if (__any_sync(all_lanes, placed) && lane == static_cast<unsigned>(chosen)) pending = false;
    }
  }
}

}  // namespace cuda

template <>
struct cooperative_placement<cuda_backend> {
  template <class Key, class BucketOf>
  static void run(const place_group_cooperatively<Key, BucketOf>& f, cudaStream_t stream) {
    const auto kernel = cuda::cooperative_reorder_kernel<Key, BucketOf>;
    kernel<<<cuda::grid_size(kernel, f.n), cuda::block_size, 0, stream>>>(f);
    GPUHASH_CUDA_CHECK_LAUNCH(stream);
  }
};

}  // namespace gpuhash::detail
