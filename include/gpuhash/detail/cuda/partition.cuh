#pragma once
// The kernels of exec<cuda_backend>::stable_partition: [0, n) grouped by a
// way number per index, stably, in two passes over tiles of
// `partition_tile_size` indices. Compiled only by nvcc.
//
//  1. count_ways: each tile's count of every way, written way-major
//     (tile_counts[way * tiles + tile]);
//  2. an exclusive scan of tile_counts (exec's), which gives (way, tile)
//     its first position: every index of an earlier way, then those of
//     this way in earlier tiles;
//  3. place_ways: each tile again, every index placed at its (way, tile)'s
//     first position plus the indices of its way before it in the tile,
//     so a way keeps index order; moved on by its way's shift where the
//     ways' groups start at multiples of an alignment (aligned_way_shifts).
//
// A warp owns a contiguous run of `partition_items` x 32 indices of its
// tile, a step of 32 at a time, so a tile's order is warp by warp, then
// step by step, then lane by lane. Lanes of one way in a step find each
// other with __match_any_sync, so a warp does one step per 32 indices
// whatever the number of ways. Against a radix sort of (way, 64-bit index)
// pairs and then a gather of what moves, this reads an index's way twice
// and writes what `place` writes, besides a count per (way, tile): 8 bytes
// per partition_tile_size indices and way, and their scan.

#include <cuda_runtime.h>

#include <cstdint>

#include "gpuhash/detail/cuda/launch.cuh"
#include "gpuhash/detail/round_up.hpp"

namespace gpuhash::detail::cuda {

inline constexpr int partition_warps = block_size / 32;
/// Indices a thread handles, one per step.
inline constexpr int partition_items = 8;
/// Indices of a tile, one block's share.
inline constexpr std::uint64_t partition_tile_size = std::uint64_t{block_size} * partition_items;

/// Lanes of this warp below the caller.
__device__ inline std::uint32_t lanes_below() {
  return (1U << (threadIdx.x % 32)) - 1;
}

/// The index a lane takes at `step` of its warp's run.
__device__ inline std::uint64_t partition_index(int step) {
  return std::uint64_t{blockIdx.x} * partition_tile_size +
         std::uint64_t{threadIdx.x / 32} * (32 * partition_items) +
         static_cast<std::uint64_t>(step) * 32 + threadIdx.x % 32;
}

/// A lane at one step of its warp's run: its index, the index's way and the
/// lanes of the warp with the same way. All 32 lanes must make it.
struct partition_step {
  std::uint64_t i;
  bool active;  ///< i < n: lanes past the end have no way
  std::uint32_t way;
  std::uint32_t peers;

  /// `way`: the index's way, read only where i < n.
  __device__ partition_step(std::uint64_t index, std::uint64_t n, std::uint32_t index_way)
      : i(index),
        active(index < n),
        way(active ? index_way : ~0U),  // no active lane has way ~0U
        peers(__match_any_sync(0xffffffffU, way)) {}

  /// The first lane of its way in the step, which speaks for the others.
  __device__ bool leads() const { return active && (peers & lanes_below()) == 0; }
  /// The indices of its way before it in the step.
  __device__ std::uint32_t rank() const { return __popc(peers & lanes_below()); }
  /// The indices of its way in the step.
  __device__ std::uint32_t size() const { return __popc(peers); }
};

/// The lane's step `step`, its way read by way_of.
template <class WayOf>
__device__ partition_step step_of(std::uint64_t n, const WayOf& way_of, int step) {
  const std::uint64_t i = partition_index(step);
  return partition_step(i, n, i < n ? way_of(i) : ~0U);
}

/// Pass 1: tile_counts[way * tiles + tile] = indices of `way` in the tile.
/// Dynamic shared memory: `ways` counters.
template <class WayOf>
__global__ void __launch_bounds__(block_size)
    count_ways(std::uint64_t n, std::uint32_t ways, WayOf way_of, std::uint64_t tiles,
               std::uint64_t* tile_counts) {
  extern __shared__ std::uint32_t way_counts[];
  for (std::uint32_t w = threadIdx.x; w < ways; w += blockDim.x) way_counts[w] = 0;
  __syncthreads();
#pragma unroll
  for (int step = 0; step < partition_items; ++step) {
    const partition_step lane = step_of(n, way_of, step);
    if (lane.leads()) atomicAdd(&way_counts[lane.way], lane.size());
  }
  __syncthreads();
  for (std::uint32_t w = threadIdx.x; w < ways; w += blockDim.x)
    tile_counts[std::uint64_t{w} * tiles + blockIdx.x] = way_counts[w];
}

/// Pass 3: place(i, first[way * tiles + tile] + shifts[way] + the indices
/// of i's way before i in the tile); no shifts where `shifts` is null.
/// Dynamic shared memory: partition_warps x ways counters.
template <class WayOf, class Place>
__global__ void __launch_bounds__(block_size)
    place_ways(std::uint64_t n, std::uint32_t ways, WayOf way_of, Place place, std::uint64_t tiles,
               const std::uint64_t* first, const std::uint64_t* shifts) {
  extern __shared__ std::uint32_t before[];  // [warp * ways + way]
  const std::uint32_t warp = threadIdx.x / 32;
  for (std::uint32_t k = threadIdx.x; k < partition_warps * ways; k += blockDim.x) before[k] = 0;
  __syncthreads();
  // Each warp's count of every way over its run (one leader per way and
  // step writes, and the steps are ordered by __syncwarp).
  std::uint32_t way_of_step[partition_items];
#pragma unroll
  for (int step = 0; step < partition_items; ++step) {
    const partition_step lane = step_of(n, way_of, step);
    way_of_step[step] = lane.way;
    if (lane.leads()) before[warp * ways + lane.way] += lane.size();
    __syncwarp();
  }
  __syncthreads();
  // Each way's counts per warp become the counts in the warps before.
  for (std::uint32_t w = threadIdx.x; w < ways; w += blockDim.x) {
    std::uint32_t running = 0;
    for (int v = 0; v < partition_warps; ++v) {
      const std::uint32_t count = before[v * ways + w];
      before[v * ways + w] = running;
      running += count;
    }
  }
  __syncthreads();
  // Then, step by step, the indices of each way before this step in the
  // warp's run.
#pragma unroll
  for (int step = 0; step < partition_items; ++step) {
    const partition_step lane(partition_index(step), n, way_of_step[step]);
    const std::uint32_t earlier = lane.active ? before[warp * ways + lane.way] : 0;
    __syncwarp();
    if (lane.active)
      place(lane.i, first[std::uint64_t{lane.way} * tiles + blockIdx.x] +
                        (shifts == nullptr ? 0 : shifts[lane.way]) + earlier + lane.rank());
    if (lane.leads()) before[warp * ways + lane.way] = earlier + lane.size();
    __syncwarp();
  }
}

/// Shared memory of place_ways for `ways` (count_ways needs less).
inline std::size_t place_ways_shared_bytes(std::uint32_t ways) {
  return std::size_t{partition_warps} * ways * sizeof(std::uint32_t);
}

/// counts[w] = starts[(w + 1) * tiles] - starts[w * tiles], the last
/// way's end being `total`.
struct way_sizes {
  const std::uint64_t* starts;
  std::uint64_t tiles;
  std::uint32_t ways;
  std::uint64_t total;
  std::uint64_t* counts;

  __device__ void operator()(std::uint64_t w) const {
    const std::uint64_t end = w + 1 == ways ? total : starts[(w + 1) * tiles];
    counts[w] = end - starts[w * tiles];
  }
};

/// shifts[w]: how far way w's group moves when every group starts at the
/// first multiple of `align` after the group before it ends (the padding
/// of the groups before it). One thread: ways are few.
struct aligned_way_shifts {
  const std::uint64_t* sizes;
  std::uint32_t ways;
  std::uint64_t align;
  std::uint64_t* shifts;

  __device__ void operator()(std::uint64_t) const {
    std::uint64_t aligned_end = 0;
    std::uint64_t packed_end = 0;
    for (std::uint32_t w = 0; w < ways; ++w) {
      aligned_end = round_up(aligned_end, align);
      shifts[w] = aligned_end - packed_end;
      aligned_end += sizes[w];
      packed_end += sizes[w];
    }
  }
};

}  // namespace gpuhash::detail::cuda
