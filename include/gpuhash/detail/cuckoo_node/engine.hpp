#pragma once
// The Cuckoo Node Hashing engine: buckets of chained Cuckoo Nodes over the
// node pool that DACHash uses (detail/node_pool.hpp), one thread per key
// (view.hpp). The public face is gpuhash::cuckoo_node_map. Members are in
// engine_impl.hpp, compiled into the library for 32/32 and 64/64-bit pairs
// with the default, paper and local presets (gpuhash/cuckoo_node_config.hpp)
// on each backend; other presets compile in the user's own .cpp (CPU) or .cu
// (CUDA) file (gpuhash/cuckoo_node_map_impl.hpp).
//
// Capacity and growth, as DACHash's: the bucket count is fixed at
// construction (the capacity hint over a node's slots, so that the head
// nodes alone would hold the hint); the pool starts with a quarter as many
// nodes as there are buckets. Capacity counts the slots of the head nodes
// and of every pool node. Growth never rebuilds: it cleans (frees the nodes
// that erases emptied) and, if the table still needs room, adds a pool
// chunk; chains get longer as the table grows past its hint.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "gpuhash/cuckoo_node_config.hpp"
#include "gpuhash/detail/batch.hpp"
#include "gpuhash/detail/counters.hpp"
#include "gpuhash/detail/cuckoo_node/view.hpp"
#include "gpuhash/detail/node_pool.hpp"

namespace gpuhash::detail::cuckoo_node {

template <class Key, class Value, class Backend, class Preset = cuckoo_node_default_preset>
class engine {
  static_assert((sizeof(Key) == 4 && sizeof(Value) == 4) ||
                    (sizeof(Key) == 8 && sizeof(Value) == 8),
                "gpuhash::cuckoo_node_map stores 32/32 or 64/64-bit key/value pairs: use "
                "std::uint32_t or std::uint64_t for both");

 public:
  using key_type = Key;
  using mapped_type = Value;
  using backend_type = Backend;
  using stream_type = typename Backend::stream_type;
  using view_type = chain_view<Key, Value, Preset::slots, Preset::choices, Preset::count_probes,
                               Preset::local_spans, Preset::paper_insert>;
  using node_type = typename view_type::node_type;

  static constexpr std::string_view name = Preset::name;
  /// The longest eviction walk within a node that settings may ask for
  /// (cuckoo_node_settings::max_loop; the view records a walk to undo it).
  static constexpr std::uint32_t longest_walk = 64;
  /// Keys spread over buckets unevenly: at half the slots, about one bucket
  /// in ten already needs a second node.
  static constexpr float default_max_load_factor = 0.5f;
  /// Erase empties its slot at once (no tombstones: see view.hpp).
  static constexpr bool erase_frees_slot = true;
  static constexpr std::uint32_t slots_per_node = Preset::slots;
  static constexpr std::uint32_t choices = Preset::choices;
  /// Searches count their probes (probes(), reset_probes()).
  static constexpr bool counts_probes = Preset::count_probes;

  static constexpr bool is_reserved(Key key) noexcept { return view_type::is_reserved(key); }
  static constexpr std::span<const Key> reserved_keys() noexcept {
    return view_type::reserved_keys;
  }

  engine(std::size_t min_capacity, std::uint64_t seed, stream_type stream);

  std::size_t capacity() const noexcept {
    return (buckets_ + pool_.nodes()) * std::size_t{slots_per_node};
  }
  std::size_t memory_bytes() const noexcept {
    return buckets_ * (sizeof(node_type) + sizeof(std::uint32_t)) + pool_.memory_bytes();
  }
  std::size_t buckets() const noexcept { return buckets_; }
  std::size_t pool_nodes() const noexcept { return pool_.nodes(); }
  /// Pool nodes not in any chain (waits for the stream).
  std::size_t free_nodes(stream_type stream) const { return pool_.free_nodes(stream); }

  const cuckoo_node_settings& settings() const noexcept { return settings_; }
  /// Takes effect from the next batch.
  void configure(const cuckoo_node_settings& s);

  /// Runs a batch, through the reorder when the settings switch it on (its
  /// time is part of the batch's).
  void execute_async(const batch<Key, Value>& args, table_counters* counters, stream_type stream);
  /// Cleans, then adds pool chunks until the capacity reaches `min_capacity`.
  void rehash(std::size_t min_capacity, stream_type stream);
  /// The paper's clean: unlinks the nodes (other than heads) that erases
  /// emptied and returns them to the pool. Returns the pool's free nodes.
  std::size_t reclaim(stream_type stream);
  void clear(stream_type stream);
  /// Writes the `count` stored pairs (count must equal the table's size).
  void retrieve_all(Key* keys, Value* values, std::size_t count, stream_type stream) const;
  /// The probes counted since the last reset (counts_probes only; waits).
  probe_tally probes(stream_type stream) const requires counts_probes;
  void reset_probes(stream_type stream) requires counts_probes;

  /// The design's per-key algorithms over this table's storage, for batches
  /// and refs (map_ref.hpp); valid until the pool grows (rehash).
  view_type view() const {
    probe_tally* tally = nullptr;
    if constexpr (counts_probes) tally = const_cast<probe_tally*>(tally_.data());
    return view_type(const_cast<node_type*>(heads_.data()),
                     const_cast<std::uint32_t*>(versions_.data()), buckets_, seed_, pool_.view(),
                     settings_.max_loop, tally);
  }

 private:
  void run_in_two_passes(const batch<Key, Value>& args, table_counters* counters,
                         stream_type stream);

  typename Backend::template buffer<node_type> heads_;
  typename Backend::template buffer<std::uint32_t> versions_;
  std::size_t buckets_ = 0;
  std::uint64_t seed_ = 0;
  node_pool<node_type, Backend> pool_;
  typename Backend::template buffer<probe_tally> tally_;
  cuckoo_node_settings settings_ = Preset::initial;
};

}  // namespace gpuhash::detail::cuckoo_node
