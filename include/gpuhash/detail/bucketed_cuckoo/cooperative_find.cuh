#pragma once
// bucketed_cuckoo_find_path::tile: the bucketed cuckoo table's find and
// contains batches with one cooperative tile per key (the search itself:
// tile_find.cuh). Compiled only by nvcc (included from engine_impl.hpp under
// __CUDACC__).

#include <cooperative_groups.h>

#include <cstdint>

#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/detail/batch.hpp"
#include "gpuhash/detail/bucketed_cuckoo/find_path.hpp"
#include "gpuhash/detail/bucketed_cuckoo/tile_find.cuh"
#include "gpuhash/detail/cuda/launch.cuh"
#include "gpuhash/host_device.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash::detail::bucketed_cuckoo {

/// Runs a find or contains batch with one tile per key over a grid-stride
/// loop. The loop is uniform per warp (the warp's first key decides), as in
/// for_each_batch_kernel, so the warp reconverges after the searches and its
/// tiles' first lanes store their results together.
template <batch_kind Kind, class View, class Key, class Value>
__global__ void __launch_bounds__(cuda::block_size)
    find_tile_kernel(batch_functor<Kind, View, Key, Value> f) {
  namespace cg = cooperative_groups;
  constexpr unsigned tile_size = View::find_tile_size;
  const auto tile = cg::tiled_partition<tile_size>(cg::this_thread_block());
  const std::uint64_t stride = std::uint64_t{gridDim.x} * (blockDim.x / tile_size);
  const unsigned tile_in_warp = (threadIdx.x % 32) / tile_size;
  for (std::uint64_t i = (std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x) / tile_size;
       i - tile_in_warp < f.args.n; i += stride) {
    const bool active = i < f.args.n;  // uniform over the tile
    key_outcome<Value> out;
    if (active) out = find_in_tile<Kind == batch_kind::find>(tile, f.view, f.args.keys[i]);
    __syncwarp();
    if (active && tile.thread_rank() == 0) f.finish(i, out);
  }
}

template <>
struct cooperative_finds<cuda_backend> {
  static constexpr bool available = true;

  /// Runs a batch of kind find or contains.
  template <class View, class Key, class Value>
  static void run(const View& view, const batch<Key, Value>& args, cudaStream_t stream,
                  launch_share share) {
    if (args.kind == batch_kind::find)
      launch(batch_functor<batch_kind::find, View, Key, Value>{view, args}, stream, share);
    else
      launch(batch_functor<batch_kind::contains, View, Key, Value>{view, args}, stream, share);
  }

 private:
  template <batch_kind Kind, class View, class Key, class Value>
  static void launch(const batch_functor<Kind, View, Key, Value>& f, cudaStream_t stream,
                     launch_share share) {
    if (f.args.n == 0) return;
    const auto kernel = find_tile_kernel<Kind, View, Key, Value>;
    const std::uint64_t threads = f.args.n * View::find_tile_size;
    kernel<<<cuda::grid_size(kernel, threads, share), cuda::block_size, 0, stream>>>(f);
    GPUHASH_CUDA_CHECK_LAUNCH(stream);
  }
};

}  // namespace gpuhash::detail::bucketed_cuckoo
