#pragma once
// DACHash's configurations (docs/designs/dachash.md): a preset fixes the
// node size and the many-to-one tile size at compile time, each pair a set
// of kernels of its own, and gives the settings a table starts with
// (mapping, reorder), which change at run time
// (table.engine().configure(...)). A table of one: dachash_map_with
// (gpuhash/dachash_map.hpp).
//
// The library compiles the three named presets below; others compile where
// gpuhash/dachash_map_impl.hpp is included, or once in a file that
// instantiates them (GPUHASH_INSTANTIATE_DACHASH_MAP).

#include <cstdint>
#include <string_view>

#include "gpuhash/reorder_scheme.hpp"

namespace gpuhash {

/// DACHash's thread-data mapping schemes (thesis chapter 6). Many-to-one
/// runs where the backend has tiles (CUDA); elsewhere a batch runs
/// one-to-one, with the same results.
enum class dachash_mapping : std::uint8_t {
  one_to_one,   ///< Alg. 2: one thread per key
  many_to_one,  ///< Alg. 3: one tile of the preset's tile size per key
  /// For mixed batches (thesis 7.1.3), many-to-one when the expected chain
  /// length passes the threshold tau, one-to-one below it; batches of one
  /// kind run one-to-one, which the thesis found faster at every length
  /// (its Fig. 7.3a).
  dynamic,
};

/// A DACHash table's run-time settings (engine().settings(),
/// engine().configure(...), taking effect from the next batch).
struct dachash_settings {
  dachash_mapping mapping = dachash_mapping::dynamic;
  /// The thesis' tau: the expected chain length (stored keys over twice the
  /// pairs of a bucket's nodes: 0.5 when they would fill one node per
  /// bucket) above which the dynamic scheme uses many-to-one.
  double threshold = 0.6;
  /// Reorder (thesis chapter 5): buckets combined into one row of Alg. 1;
  /// 0 runs batches in the caller's order. Off by default: it costs a pass
  /// over the batch and a gather and scatter of its arrays, which pays off
  /// only when chains are long enough to share cached nodes (measured in
  /// dachash.fig7_2 and fig7_4).
  std::uint64_t combined_buckets = 0;
  /// Which reorder runs when combined_buckets is set: the thesis' (Alg. 1),
  /// or Cuckoo Node Hashing's warp-cooperative one.
  reorder_scheme reorder = reorder_scheme::rows;
};

/// NodeBytes: a node's size, 64 (16x4 bytes) the thesis' own; TileSize:
/// the lanes of the many-to-one mapping, 0 for one lane per slot-sized cell
/// of a node (8 for 64-byte nodes of 32/32 pairs), so that a tile reads a
/// node in one request; Mapping and CombinedBuckets: the settings a table
/// starts with.
template <std::uint32_t NodeBytes = 64, unsigned TileSize = 0,
          dachash_mapping Mapping = dachash_mapping::dynamic, std::uint64_t CombinedBuckets = 0>
struct dachash_preset {
  static constexpr std::string_view name = "dachash";
  static constexpr std::uint32_t node_bytes = NodeBytes;
  template <class Key>
  static constexpr unsigned tile_size = TileSize != 0 ? TileSize
                                                      : (NodeBytes / (2 * sizeof(Key)) < 32
                                                             ? NodeBytes / (2 * sizeof(Key))
                                                             : 32);
  static constexpr dachash_settings initial{Mapping, 0.6, CombinedBuckets};
};

/// The thesis' choices (dachash_map): 16x4-byte nodes, the dynamic mapping
/// with tau 0.6, reorder off (switched on per table, or by the paper preset).
struct dachash_thesis_preset : dachash_preset<> {};
/// DACHash as the Cuckoo Node Hashing paper ran it against its own table
/// (dachash_paper_map): nodes of 32 (x4 bytes), reorder with a combining
/// factor of 2^10.
struct dachash_paper_preset : dachash_preset<128, 0, dachash_mapping::dynamic, 1024> {
  static constexpr std::string_view name = "dachash_paper";
};
/// SlabHash's design inside DACHash's code (dachash_slab_map), for the
/// thesis' comparisons on the same inputs: 128-byte nodes (15 pairs and a
/// next index), a warp per key (warp-cooperative work sharing), no reorder.
struct dachash_slab_preset : dachash_preset<128, 32, dachash_mapping::many_to_one, 0> {
  static constexpr std::string_view name = "dachash_slab";
};

}  // namespace gpuhash
