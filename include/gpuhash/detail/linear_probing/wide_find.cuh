#pragma once
// Find and contains batches of wide values with one cooperative tile of
// threads per key (wide_view::find_into), for the tables whose slots are
// linear probing's (table_views.hpp), run by table_batches.hpp. Compiled
// only by nvcc (included from the engines' member definitions under
// __CUDACC__).

#include <cooperative_groups.h>

#include <cstdint>

#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/detail/batch.hpp"
#include "gpuhash/detail/cuda/launch.cuh"
#include "gpuhash/detail/linear_probing/wide_view.hpp"
#include "gpuhash/key_types.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash::detail::linear_probing {

/// One tile per key over a grid-stride loop (uniform over each tile). Keys
/// of the user's types are searched as their words; a wide value is stored
/// as itself, so the found value goes straight to the caller's array.
template <batch_kind Kind, class WordView, class Key, class Value>
__global__ void __launch_bounds__(cuda::block_size)
    wide_find_kernel(WordView view, batch<Key, Value> args) {
  namespace cg = cooperative_groups;
  constexpr unsigned tile_size = WordView::copy_tile_size;
  const auto tile = cg::tiled_partition<tile_size>(cg::this_thread_block());
  const std::uint64_t stride = std::uint64_t{gridDim.x} * (blockDim.x / tile_size);
  for (std::uint64_t i = (std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x) / tile_size;
       i < args.n; i += stride) {
    const auto key = to_word(args.keys[i]);
    status result = status::invalid_key;
    if (!WordView::is_reserved(key))
      result = view.find_into(tile, key, Kind == batch_kind::find ? args.values + i : nullptr);
    if (tile.thread_rank() != 0) continue;
    if (Kind == batch_kind::find && args.statuses != nullptr)
      args.statuses[i] = result;
    else
      args.flags[i] = result == status::found;
  }
}

template <>
struct wide_finds<cuda_backend> {
  static constexpr bool available = true;

  /// Runs a batch of kind find or contains.
  template <class WordView, class Key, class Value>
  static void run(const WordView& view, const batch<Key, Value>& args, cudaStream_t stream) {
    if (args.n == 0) return;
    const auto kernel = args.kind == batch_kind::find
                            ? wide_find_kernel<batch_kind::find, WordView, Key, Value>
                            : wide_find_kernel<batch_kind::contains, WordView, Key, Value>;
    const std::uint64_t threads = args.n * WordView::copy_tile_size;
    kernel<<<cuda::grid_size(kernel, threads), cuda::block_size, 0, stream>>>(view, args);
    GPUHASH_CUDA_CHECK_LAUNCH(stream);
  }
};

}  // namespace gpuhash::detail::linear_probing
