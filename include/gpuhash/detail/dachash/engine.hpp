#pragma once
// The DACHash engine: buckets of chained super nodes over a node pool, and
// batch execution by the one-to-one, many-to-one or dynamic mapping
// (mapping.hpp). The public face is gpuhash::dachash_map and its presets
// (gpuhash/dachash_config.hpp). Members are defined in engine_impl.hpp and
// compiled into the library for 32/32 and 64/64-bit pairs with the thesis,
// paper and slab presets on each backend; other presets compile in the
// user's own .cpp (CPU) or .cu (CUDA) file (gpuhash/dachash_map_impl.hpp).
//
// Capacity and growth. The bucket count is fixed at construction: the
// capacity hint over the pairs a node holds, so that the head nodes alone
// would hold the hint if keys spread evenly; the pool starts with at least
// half as many nodes as there are buckets, enough for the chains that outgrow
// their head when the hint's number of keys is stored (about 30% of buckets
// at 7 pairs per node). Capacity counts the slots of the head nodes and of
// every pool node. Growth never rebuilds (thesis 4.3): it cleans the chains
// (returning nodes that erases emptied) and, if the table still needs room,
// adds a pool chunk; chains get longer as the table grows past its hint.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "gpuhash/detail/batch.hpp"
#include "gpuhash/detail/counters.hpp"
#include "gpuhash/detail/dachash/mapping.hpp"
#include "gpuhash/detail/dachash/view.hpp"
#include "gpuhash/detail/launch_share.hpp"
#include "gpuhash/detail/node_pool.hpp"

namespace gpuhash::detail::dachash {

template <class Key, class Value, class Backend, class Preset = dachash_thesis_preset>
class engine {
  static_assert((sizeof(Key) == 4 && sizeof(Value) == 4) ||
                    (sizeof(Key) == 8 && sizeof(Value) == 8),
                "gpuhash::dachash_map stores 32/32 or 64/64-bit key/value pairs: use "
                "std::uint32_t or std::uint64_t for both");

 public:
  using key_type = Key;
  using mapped_type = Value;
  using backend_type = Backend;
  using stream_type = typename Backend::stream_type;
  using view_type = chain_view<Key, Value, Preset::node_bytes>;
  using node_type = typename view_type::node_type;
  using slot_type = typename view_type::slot_type;

  static constexpr std::string_view name = Preset::name;
  /// Chains leave the tail of their last node empty; above about 0.8 of all
  /// slots the pool runs dry before the load limit is reached.
  static constexpr float default_max_load_factor = 0.75f;
  /// Erase leaves a tombstone until clean.
  static constexpr bool erase_frees_slot = false;
  static constexpr std::uint32_t node_bytes = Preset::node_bytes;
  static constexpr std::uint32_t pairs_per_node = node_type::pairs;
  static constexpr unsigned tile_size = Preset::template tile_size<Key>;
  /// The GPU's threads in flight for one-thread-per-key batches: half the
  /// resident blocks, measured best on the H200 (inserts +22% to +59% at
  /// loads 0.5 to 0.95 over 8/8, finds +11% to +21%) (launch_share.hpp).
  static constexpr launch_share batch_share{4};

  static constexpr bool is_reserved(Key key) noexcept { return view_type::is_reserved(key); }
  static constexpr std::span<const Key> reserved_keys() noexcept {
    return view_type::reserved_keys;
  }

  engine(std::size_t min_capacity, std::uint64_t seed, stream_type stream);

  std::size_t capacity() const noexcept {
    return (buckets_ + pool_.nodes()) * std::size_t{pairs_per_node};
  }
  std::size_t memory_bytes() const noexcept {
    return buckets_ * sizeof(node_type) + pool_.memory_bytes();
  }
  std::size_t buckets() const noexcept { return buckets_; }
  std::size_t pool_nodes() const noexcept { return pool_.nodes(); }
  /// Pool nodes not in any chain (waits for the stream).
  std::size_t free_nodes(stream_type stream) const { return pool_.free_nodes(stream); }
  /// Pool diagnostics (node_pool::empty_entries_popped); tests check it is 0.
  std::size_t empty_entries_popped(stream_type stream) const {
    return pool_.empty_entries_popped(stream);
  }
  /// The thesis' expected length for `keys` stored keys: keys over twice
  /// the pairs of a bucket's head, so 0.5 when they would fill one node per
  /// bucket and 1 two (its Fig. 7.1).
  double expected_chain_length(std::size_t keys) const noexcept {
    return static_cast<double>(keys) / (2.0 * static_cast<double>(buckets_ * pairs_per_node));
  }

  const dachash_settings& settings() const noexcept { return settings_; }
  /// Takes effect from the next batch.
  void configure(const dachash_settings& s) { settings_ = s; }
  /// The mapping a batch runs with: the setting, or the dynamic scheme's
  /// choice (which reads the table's counters, waiting for the stream, for
  /// mixed batches only); one-to-one on backends without tiles.
  dachash_mapping mapping_for(const batch<Key, Value>& args, const table_counters* counters,
                              stream_type stream) const;

  void execute_async(const batch<Key, Value>& args, table_counters* counters, stream_type stream);
  /// Cleans, then adds pool chunks until the capacity reaches `min_capacity`.
  void rehash(std::size_t min_capacity, stream_type stream);
  /// The thesis' clean: compacts every chain and returns the nodes it frees
  /// to the pool. Returns the pool's free nodes afterwards.
  std::size_t reclaim(stream_type stream);
  void clear(stream_type stream);
  /// Writes the `count` stored pairs (count must equal the table's size).
  void retrieve_all(Key* keys, Value* values, std::size_t count, stream_type stream) const;

  /// The design's per-key algorithms over this table's storage, for batches
  /// and refs (map_ref.hpp); valid until the pool grows (rehash).
  view_type view() const {
    return view_type(const_cast<node_type*>(heads_.data()), buckets_, seed_, pool_.view());
  }

 private:
  /// Runs a batch, in the given order, with the mapping the settings choose.
  void run_mapped(const batch<Key, Value>& args, table_counters* counters, stream_type stream);
  /// Runs a batch in the reorder's order and puts the results back in the
  /// caller's.
  void run_reordered(const batch<Key, Value>& args, table_counters* counters, stream_type stream);

  typename Backend::template buffer<node_type> heads_;
  std::size_t buckets_ = 0;
  std::uint64_t seed_ = 0;
  node_pool<node_type, Backend> pool_;
  dachash_settings settings_ = Preset::initial;
};

}  // namespace gpuhash::detail::dachash
