#pragma once
// DACHash's many-to-one mapping (thesis chapter 6, Alg. 3): a tile of Tile
// lanes (1 to 32) takes Tile keys and runs their operations one at a time. The tile reads a super
// node together, each lane a run of adjacent slots (one coalesced request per
// node instead of one per slot), finds by ballot the first slot that holds
// the key or is empty, and one lane does the atomic step there. The probe
// order, the stop rule and every atomic step are chain_view's (view.hpp), so
// the invariants and outcomes are those of the one-to-one mapping
// (docs/designs/dachash.md); only who reads the slots differs. Every branch
// below depends on ballots and shuffles, so it is uniform over the tile.
// Compiled only by nvcc (included from engine_impl.hpp under __CUDACC__).

#include <cooperative_groups.h>

#include <algorithm>
#include <cstdint>

#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/detail/atomic.hpp"
#include "gpuhash/detail/batch.hpp"
#include "gpuhash/detail/cuda/launch.cuh"
#include "gpuhash/detail/dachash/mapping.hpp"
#include "gpuhash/detail/node_pool.hpp"
#include "gpuhash/operation.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash::detail::dachash {

template <unsigned Tile, class View>
struct tile_operations {
  using Key = typename View::key_type;
  using Value = typename View::mapped_type;
  using steps = typename View::steps;
  using slot_type = typename View::slot_type;
  using node_type = typename View::node_type;
  static constexpr std::uint32_t pairs = node_type::pairs;
  /// Slots each lane reads: a run of adjacent ones, lanes in slot order.
  static constexpr std::uint32_t slots_per_lane = (pairs + Tile - 1) / Tile;
  static_assert(Tile >= 1 && Tile <= 32 && (Tile & (Tile - 1)) == 0,
                "gpuhash::dachash_map: tiles have 1, 2, 4, 8, 16 or 32 lanes");

  /// Which lane also reads the node's next index: the first lane past the
  /// slots (the next index is the cell after them, as in SlabHash's slab,
  /// so the tile reads the whole node in one request), or the last lane when
  /// every lane holds slots.
  static constexpr std::uint32_t next_lane =
      pairs / slots_per_lane < Tile ? pairs / slots_per_lane : Tile - 1;

  /// Where a node's scan stopped: at the first slot holding the key or
  /// empty, if any (slot < pairs), which of the two, and with WantValue the
  /// key's value as the stopping lane read it; otherwise the node's next
  /// index, read in the same pass.
  struct stop {
    std::uint32_t slot = pairs;  // pairs: no slot stops (all hold other keys or tombstones)
    bool hit = false;
    Value value{};
    node_index next = no_node;
  };

  /// Reads a node, every lane its run of slots and next_lane the next index
  /// too, all at once. The next index is read relaxed: a link publishes
  /// nothing that its reader needs ordered (a popped node is empty since
  /// before the batch, and its slots change only by atomic steps), and a
  /// chain's end (no_node or linking_node) goes to write()'s acquire path.
  template <bool WantValue = false, class Group>
  __device__ static stop scan(const Group& tile, node_type* node, Key key) {
    std::uint32_t mine = pairs;
    bool hit = false;
    Value value{};
    node_index next = no_node;
    if (tile.thread_rank() == next_lane) next = load_relaxed(&node->next);
    GPUHASH_UNROLL
    for (std::uint32_t j = 0; j < slots_per_lane; ++j) {
      const std::uint32_t s = tile.thread_rank() * slots_per_lane + j;
      if (s >= pairs || mine != pairs) continue;
      slot_type* slot = &node->slots[s];
      slot_type copy = steps::load_one(slot);
      const Key seen = steps::settled_key(slot, copy);
      if (seen == key || seen == View::empty_key) {
        mine = s;
        hit = seen == key;
        if constexpr (WantValue) {
          if (hit) value = steps::value(slot, copy);
        }
      }
    }
    const unsigned stopping = tile.ballot(mine != pairs);
    const unsigned hits = tile.ballot(hit);
    stop out;
    if (stopping == 0) {
      out.next = tile.shfl(next, next_lane);
      return out;
    }
    const auto lane = static_cast<unsigned>(__ffs(static_cast<int>(stopping)) - 1);
    // With one slot per lane the stopping lane names the slot.
    out.slot = slots_per_lane == 1 ? lane : tile.shfl(mine, lane);
    out.hit = ((hits >> lane) & 1U) != 0;
    if constexpr (WantValue) out.value = tile.shfl(value, lane);
    return out;
  }

  /// Runs `op` on one lane and shares its result.
  template <class Group, class Op>
  __device__ static auto on_one_lane(const Group& tile, Op&& op) {
    decltype(op()) result{};
    if (tile.thread_rank() == 0) result = op();
    return tile.shfl(result, 0);
  }

  // The operations take the key's bucket, which the kernel hashes for all
  // of a tile's keys at once (one key per lane) before running them in turn.

  template <class Group>
  __device__ static status find(const Group& tile, const View& view, Key key, std::uint64_t bucket,
                                Value* value_out) {
    node_type* node = &view.head(bucket);
    for (;;) {
      const stop at = scan<true>(tile, node, key);
      if (at.slot != pairs) {
        if (!at.hit) return status::not_found;
        if (value_out != nullptr) *value_out = at.value;
        return status::found;
      }
      if (at.next == no_node || at.next == linking_node) return status::not_found;
      node = &view.pool().node(at.next);
    }
  }

  template <write_mode Mode, class Group>
  __device__ static status write(const Group& tile, const View& view, Key key, std::uint64_t bucket,
                                 Value value) {
    node_type* node = &view.head(bucket);
    for (;;) {
      const stop at = scan(tile, node, key);
      if (at.slot != pairs) {
        if (at.hit && Mode == write_mode::insert_if_absent) return status::exists;
        if (!at.hit && Mode == write_mode::update_if_present) return status::not_found;
        // The single-slot step of chain_view::write, on one lane; `retry`
        // means the slot changed under us and the node is scanned again.
        const status result = on_one_lane(tile, [&] {
          slot_type* slot = &node->slots[at.slot];
          slot_type copy = steps::load_one(slot);
          const Key seen = steps::settled_key(slot, copy);
          if (at.hit) {
            if (seen != key) return status::invalid_operation;  // erased meanwhile: rescan
            if (steps::set_value(slot, copy, value) || steps::settled_key(slot, copy) == key)
              return status::updated;
            return status::invalid_operation;
          }
          if (seen != View::empty_key) return status::invalid_operation;  // claimed: rescan
          return steps::claim(slot, copy, key, value) ? status::inserted
                                                      : status::invalid_operation;
        });
        if (result != status::invalid_operation) return result;
        continue;
      }
      node_index next = at.next;
      if (next == no_node || next == linking_node) {
        // An update stops: a node being attached holds no key yet.
        if (Mode == write_mode::update_if_present) return status::not_found;
        // One lane waits for or attaches the next node (chain_view::attach_node).
        next = on_one_lane(tile, [&] { return view.attach_node(*node); });
        if (next == no_node) return status::full;
      }
      node = &view.pool().node(next);
    }
  }

  template <class Group>
  __device__ static status erase(const Group& tile, const View& view, Key key,
                                 std::uint64_t bucket) {
    node_type* node = &view.head(bucket);
    for (;;) {
      const stop at = scan(tile, node, key);
      if (at.slot != pairs) {
        if (!at.hit) return status::not_found;
        const bool erased = on_one_lane(tile, [&] {
          slot_type* slot = &node->slots[at.slot];
          slot_type copy = steps::load_one(slot);
          // Retried while only the value changes; a tombstone means another
          // erase won, and the rescan walks on.
          while (steps::settled_key(slot, copy) == key)
            if (steps::bury(slot, copy)) return true;
          return false;
        });
        if (erased) return status::erased;
        continue;
      }
      if (at.next == no_node || at.next == linking_node) return status::not_found;
      node = &view.pool().node(at.next);
    }
  }

  template <class Group>
  __device__ static status run(const Group& tile, const View& view, operation op, Key key,
                               std::uint64_t bucket, Value& value) {
    switch (op) {
      case operation::search: return find(tile, view, key, bucket, &value);
      case operation::insert:
        return write<write_mode::insert_if_absent>(tile, view, key, bucket, value);
      case operation::update:
        return write<write_mode::update_if_present>(tile, view, key, bucket, value);
      case operation::upsert: return write<write_mode::upsert>(tile, view, key, bucket, value);
      case operation::erase: return erase(tile, view, key, bucket);
    }
    return status::invalid_operation;
  }
};

/// The operation a batch of kind Kind runs on its i-th key.
template <batch_kind Kind, class Key, class Value>
__device__ GPUHASH_FORCEINLINE operation operation_of(const batch<Key, Value>& args,
                                                      std::uint64_t i) {
  if constexpr (Kind == batch_kind::apply) return args.ops[i];
  if constexpr (Kind == batch_kind::insert) return operation::insert;
  if constexpr (Kind == batch_kind::upsert) return operation::upsert;
  if constexpr (Kind == batch_kind::erase) return operation::erase;
  return operation::search;  // find, contains
}

/// Thesis Alg. 3: each tile loads Tile keys at once (one per lane) and
/// hashes them (each lane its own), then runs their operations one after
/// the other, every lane helping; lane l keeps the outcome of the tile's
/// l-th key, and the tile stores its Tile outcomes together (coalesced, as
/// the keys were loaded). Batches of one kind run that kind's operation
/// without reading it per key. The grid-stride
/// loop is uniform per warp (the warp's first key decides), so the warp
/// reconverges before storing and adding its tallies.
template <unsigned Tile, batch_kind Kind, class View, class Key, class Value>
__global__ void __launch_bounds__(cuda::block_size)
    many_to_one_kernel(batch_functor<Kind, View, Key, Value> f, table_counters* counters) {
  namespace cg = cooperative_groups;
  using ops = tile_operations<Tile, View>;
  const auto tile = cg::tiled_partition<Tile>(cg::this_thread_block());
  const unsigned lane = threadIdx.x % 32;
  const std::uint64_t n = f.args.n;
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  status_tally tally;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i - lane < n;
       i += stride) {
    const bool active = i < n;
    Key key{};
    std::uint64_t bucket = 0;
    // Batches of one kind: the same operation for every key (read from no array).
    operation op = operation_of < Kind == batch_kind::apply ? batch_kind::find : Kind > (f.args, i);
    key_outcome<Value> mine;
    if (active) {
      key = f.args.keys[i];
      bucket = f.view.bucket_of(key);
      if constexpr (Kind == batch_kind::apply) op = f.args.ops[i];
      // Read by writes (insert, upsert, and apply's), written by searches.
      if constexpr (Kind == batch_kind::apply || Kind == batch_kind::insert ||
                    Kind == batch_kind::upsert)
        mine.value = f.args.values[i];
    }
    const std::uint64_t tile_first = i - tile.thread_rank();
    // The tile's keys: none for a tile wholly past the end of the batch (a
    // warp's last tiles when n is not a multiple of 32).
    const auto keys =
        static_cast<unsigned>(tile_first < n ? std::min<std::uint64_t>(Tile, n - tile_first) : 0);
    for (unsigned l = 0; l < keys; ++l) {  // uniform over the tile
      const Key k = tile.shfl(key, l);
      if (View::is_reserved(k)) continue;  // the outcome stays invalid_key
      Value value{};
      if constexpr (Kind == batch_kind::apply || Kind == batch_kind::insert ||
                    Kind == batch_kind::upsert)
        value = tile.shfl(mine.value, l);
      operation op_l = op;
      if constexpr (Kind == batch_kind::apply) op_l = tile.shfl(op, l);
      const status result = ops::run(tile, f.view, op_l, k, tile.shfl(bucket, l), value);
      if (tile.thread_rank() == l) {
        mine.result = result;
        mine.value = value;
      }
    }
    __syncwarp();
    if (active) {
      f.finish(i, mine);
      tally.count(mine.result);
    }
  }
  if (counters != nullptr) cuda::add_warp_tally(tally, counters);
}

template <>
struct many_to_one_mapping<cuda_backend> {
  static constexpr bool available = true;

  /// Runs a batch with one tile of Tile lanes per key.
  template <unsigned Tile, class View, class Key, class Value>
  static void run(const View& view, const batch<Key, Value>& args, table_counters* counters,
                  cudaStream_t stream) {
    if (args.n == 0) return;
    const auto launch = [&]<batch_kind Kind>(table_counters* tally) {
      const auto kernel = many_to_one_kernel<Tile, Kind, View, Key, Value>;
      kernel<<<cuda::grid_size(kernel, args.n), cuda::block_size, 0, stream>>>(
          batch_functor<Kind, View, Key, Value>{view, args}, tally);
      GPUHASH_CUDA_CHECK_LAUNCH(stream);
    };
    switch (args.kind) {
      case batch_kind::apply: return launch.template operator()<batch_kind::apply>(counters);
      case batch_kind::insert: return launch.template operator()<batch_kind::insert>(counters);
      case batch_kind::upsert: return launch.template operator()<batch_kind::upsert>(counters);
      case batch_kind::erase: return launch.template operator()<batch_kind::erase>(counters);
      case batch_kind::find: return launch.template operator()<batch_kind::find>(nullptr);
      case batch_kind::contains: return launch.template operator()<batch_kind::contains>(nullptr);
    }
  }
};

}  // namespace gpuhash::detail::dachash
