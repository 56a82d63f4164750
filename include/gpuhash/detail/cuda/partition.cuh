#pragma once
// The kernels of exec<cuda_backend>::stable_partition: [0, n) grouped by a
// way number per index, stably, in two passes over tiles of one block's
// width. Compiled only by nvcc.
//
//  1. count_ways: each tile's count of every way, written way-major
//     (tile_counts[way * tiles + tile]);
//  2. an exclusive scan of tile_counts (exec's), which gives (way, tile)
//     its first position: every index of an earlier way, then those of
//     this way in earlier tiles;
//  3. place_ways: each tile again, every index placed at its (way, tile)'s
//     first position plus the indices of its way before it in the tile
//     (earlier warps, then earlier lanes), so a way keeps index order.
//
// Lanes of one way in a warp find each other with __match_any_sync, so a
// warp does one step per tile whatever the number of ways. Against a radix
// sort of (way, 64-bit index) pairs and then a gather of what moves, this
// reads an index's way twice and writes what `place` writes, besides a
// count per (way, tile): 8 bytes per 256 indices and way, and their scan.

#include <cuda_runtime.h>

#include <cstdint>

#include "gpuhash/detail/cuda/launch.cuh"

namespace gpuhash::detail::cuda {

inline constexpr int partition_warps = block_size / 32;

/// Lanes of this warp below the caller.
__device__ inline std::uint32_t lanes_below() {
  return (1U << (threadIdx.x % 32)) - 1;
}

/// The warp's lanes with the caller's way (inactive lanes pass a way of
/// ~0U, which no active lane has).
__device__ inline std::uint32_t lanes_of_way(std::uint32_t way) {
  return __match_any_sync(0xffffffffU, way);
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
  const std::uint64_t tile = blockIdx.x;
  const std::uint64_t i = tile * block_size + threadIdx.x;
  const bool active = i < n;
  const std::uint32_t way = active ? way_of(i) : ~0U;
  const std::uint32_t peers = lanes_of_way(way);
  if (active && (peers & lanes_below()) == 0) atomicAdd(&way_counts[way], __popc(peers));
  __syncthreads();
  for (std::uint32_t w = threadIdx.x; w < ways; w += blockDim.x)
    tile_counts[std::uint64_t{w} * tiles + tile] = way_counts[w];
}

/// Pass 3: place(i, first[way * tiles + tile] + the indices of i's way
/// before i in the tile). Dynamic shared memory: partition_warps x ways
/// counters.
template <class WayOf, class Place>
__global__ void __launch_bounds__(block_size)
    place_ways(std::uint64_t n, std::uint32_t ways, WayOf way_of, Place place, std::uint64_t tiles,
               const std::uint64_t* first) {
  extern __shared__ std::uint32_t before[];  // [warp * ways + way]
  const std::uint32_t warp = threadIdx.x / 32;
  for (std::uint32_t k = threadIdx.x; k < partition_warps * ways; k += blockDim.x) before[k] = 0;
  __syncthreads();
  const std::uint64_t tile = blockIdx.x;
  const std::uint64_t i = tile * block_size + threadIdx.x;
  const bool active = i < n;
  const std::uint32_t way = active ? way_of(i) : ~0U;
  const std::uint32_t peers = lanes_of_way(way);
  if (active && (peers & lanes_below()) == 0) before[warp * ways + way] = __popc(peers);
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
  if (active)
    place(i, first[std::uint64_t{way} * tiles + tile] + before[warp * ways + way] +
                 __popc(peers & lanes_below()));
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

}  // namespace gpuhash::detail::cuda
