#pragma once
// A bucketed cuckoo search by one cooperative tile of threads per key, for
// bucketed_cuckoo_find_path::tile batches (cooperative_find.cuh) and refs'
// cooperative find (map_ref.hpp). A tile has one lane per 16-byte piece of a bucket
// (table_view::find_tile_size) and each lane reads its piece with one weak
// vector load, so a bucket's pieces are adjacent addresses of one warp
// instruction, which can be served as one coalesced request; one thread per
// key issues BucketBytes / 16 loads, and ncu on the H200 counts each as its
// own L2 request. Whether that is faster is measured in bucketed_cuckoo.bucket_size
// (the -tile variants). The probe order and stop rules are table_view::find's
// (docs/designs/bucketed_cuckoo.md): the key's buckets in choice order, a
// bucket that two choices share once, the slots of a bucket in order; stop at
// the key or at an empty slot (invariant (I)). Device code: compiled only by
// nvcc.

#include <cstdint>

#include "gpuhash/detail/view_writes.hpp"
#include "gpuhash/host_device.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash::detail::bucketed_cuckoo {

/// Searches `key` with a tile of View::find_tile_size lanes. Every lane of the
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

}  // namespace gpuhash::detail::bucketed_cuckoo
