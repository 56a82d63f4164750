#pragma once
// find_path::tile: the bucketed cuckoo table's find and contains batches with
// one cooperative tile per key. A tile has one lane per 16-byte piece of a
// bucket and each lane reads its piece with one weak vector load, so a
// bucket's pieces are adjacent addresses of one warp instruction, which can
// be served as one coalesced request; one thread per key issues BucketBytes /
// 16 loads, and ncu on the H200 counts each as its own L2 request. Whether
// that is faster is measured in cuckoo.bucket_size (the -tile variants). The
// probe order
// and stop rules are table_view::find's (docs/designs/bucketed_cuckoo.md): the
// key's buckets in choice order, a bucket that two choices share once, the
// slots of a bucket in order; stop at the key or at an empty slot (invariant
// (I)). Compiled only by nvcc (included from engine_impl.hpp under
// __CUDACC__).

#include <cooperative_groups.h>

#include <cstdint>

#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/detail/batch.hpp"
#include "gpuhash/detail/bucketed_cuckoo/find_path.hpp"
#include "gpuhash/detail/cuda/launch.cuh"
#include "gpuhash/host_device.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash::detail::bucketed_cuckoo {

/// Lanes per key: one per 16-byte piece of a bucket.
template <class View>
inline constexpr unsigned find_tile_size = View::slots_per_bucket *
                                           sizeof(typename View::slot_type) / 16;

/// Searches `key` with a tile of find_tile_size<View> lanes. Every lane of the
/// tile calls it with the same key, so every branch below is uniform over the
/// tile, and gets the same outcome. Without WantValue (contains) no value is
/// read.
template <bool WantValue, class View, class Tile>
__device__ GPUHASH_FORCEINLINE key_outcome<typename View::mapped_type> find_in_tile(
    const Tile& tile, const View& view, typename View::key_type key) {
  using Key = typename View::key_type;
  using Value = typename View::mapped_type;
  using slot_ops = typename View::slot_ops;
  using slot_type = typename View::slot_type;
  constexpr std::uint32_t slots_per_lane = 16 / sizeof(slot_type);

  key_outcome<Value> out;  // invalid_key, as batch_functor answers reserved keys
  if (View::is_reserved(key)) return out;
  out.result = status::not_found;
  std::uint64_t indices[View::choices];
  GPUHASH_UNROLL
  for (std::uint32_t choice = 0; choice < View::choices; ++choice) {
    indices[choice] = view.bucket_index(key, choice);
    bool repeated = false;
    GPUHASH_UNROLL
    for (std::uint32_t earlier = 0; earlier < choice; ++earlier)
      repeated |= indices[earlier] == indices[choice];
    if (repeated) continue;
    slot_type* piece = view.bucket(indices[choice]) + tile.thread_rank() * slots_per_lane;
    slot_type copy[slots_per_lane];
    slot_ops::template load<slots_per_lane>(piece, copy);

    // This lane's first slot that ends the search (the key, or an empty slot)
    // among those it read.
    bool stops = false;
    bool hit = false;
    Value value{};
    GPUHASH_UNROLL
    for (std::uint32_t j = 0; j < slots_per_lane; ++j) {
      if (stops) continue;
      const Key seen = slot_ops::settled_key(piece + j, copy[j]);
      hit = seen == key;
      stops = hit || seen == slot_ops::empty_key;
      if constexpr (WantValue) {
        if (hit) value = slot_ops::value(piece + j, copy[j]);
      }
    }
    // Lanes hold the bucket's slots in probe order, so the search ends at the
    // lowest lane that stops; none stops: every slot holds another key or a
    // tombstone, and the search goes on to the next bucket.
    const unsigned stopping = tile.ballot(stops);
    if (stopping == 0) continue;
    const auto first = static_cast<unsigned>(__ffs(static_cast<int>(stopping)) - 1);
    if (((tile.ballot(hit) >> first) & 1U) != 0) {
      out.result = status::found;
      if constexpr (WantValue) out.value = tile.shfl(value, first);
    }
    return out;
  }
  return out;
}

/// Runs a find or contains batch with one tile per key over a grid-stride
/// loop. The loop is uniform per warp (the warp's first key decides), as in
/// for_each_batch_kernel, so the warp reconverges after the searches and its
/// tiles' first lanes store their results together.
template <batch_kind Kind, class View, class Key, class Value>
__global__ void __launch_bounds__(cuda::block_size)
    find_tile_kernel(batch_functor<Kind, View, Key, Value> f) {
  namespace cg = cooperative_groups;
  constexpr unsigned tile_size = find_tile_size<View>;
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
  static void run(const View& view, const batch<Key, Value>& args, cudaStream_t stream) {
    if (args.kind == batch_kind::find)
      launch(batch_functor<batch_kind::find, View, Key, Value>{view, args}, stream);
    else
      launch(batch_functor<batch_kind::contains, View, Key, Value>{view, args}, stream);
  }

 private:
  template <batch_kind Kind, class View, class Key, class Value>
  static void launch(const batch_functor<Kind, View, Key, Value>& f, cudaStream_t stream) {
    if (f.args.n == 0) return;
    const auto kernel = find_tile_kernel<Kind, View, Key, Value>;
    const std::uint64_t threads = f.args.n * find_tile_size<View>;
    kernel<<<cuda::grid_size(kernel, threads), cuda::block_size, 0, stream>>>(f);
    GPUHASH_CUDA_CHECK_LAUNCH(stream);
  }
};

}  // namespace gpuhash::detail::bucketed_cuckoo
