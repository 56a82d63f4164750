#pragma once
// DACHash's thread-data mapping schemes (thesis chapter 6) and the settings a
// table runs with. The one-to-one mapping (one thread per key, Alg. 2) runs
// on every backend; the many-to-one mapping (a tile of lanes per key, Alg. 3)
// where the backend has tiles (CUDA: many_to_one.cuh); elsewhere it runs as
// one-to-one, with the same results. The dynamic scheme (thesis 7.1.3)
// applies to mixed batches only: it runs one-to-one below the threshold tau
// of the expected chain length (stored keys over twice the pairs of a
// bucket's nodes: 0.5 when they would fill one node per bucket) and
// many-to-one above; batches of one kind run one-to-one, which the thesis
// found faster at every length (its Fig. 7.3a).

#include <cstdint>
#include <string_view>

#include "gpuhash/detail/reorder_scheme.hpp"

namespace gpuhash::detail::dachash {

enum class mapping_scheme : std::uint8_t {
  one_to_one,   ///< Alg. 2: one thread per key
  many_to_one,  ///< Alg. 3: one tile of TileSize lanes per key
  dynamic,      ///< for mixed batches, many-to-one when the expected length passes tau
};

struct settings {
  mapping_scheme mapping = mapping_scheme::dynamic;
  /// The thesis' tau: the expected chain length above which the dynamic
  /// scheme uses many-to-one.
  double threshold = 0.6;
  /// Reorder (thesis chapter 5): buckets combined into one row of Alg. 1;
  /// 0 runs batches in the caller's order. Off by default: it costs a pass
  /// over the batch and a gather and scatter of its arrays, which pays off
  /// only when chains are long enough to share cached nodes (measured in
  /// dachash.fig7_2 and fig7_4).
  std::uint64_t combined_buckets = 0;
  /// Which reorder runs when combined_buckets is set: the thesis' (Alg. 1),
  /// or Cuckoo Node Hashing's warp-cooperative one (detail/reorder.hpp).
  reorder_scheme reorder = reorder_scheme::rows;
};

/// The thesis' node size, 16x4 bytes (docs/designs/dachash.md).
inline constexpr std::uint32_t default_node_bytes = 64;

/// A DACHash configuration: the node size and the many-to-one tile size are
/// compile-time (each pair is its own set of kernels), the settings a table
/// starts with can be changed at run time (engine::configure). A tile size
/// of 0 means one lane per slot-sized cell of a node (8 for 64-byte nodes of
/// 32/32 pairs), so a tile reads a node in one request.
template <std::uint32_t NodeBytes = default_node_bytes, unsigned TileSize = 0,
          mapping_scheme Mapping = mapping_scheme::dynamic, std::uint64_t CombinedBuckets = 0>
struct preset {
  static constexpr std::string_view name = "dachash";
  static constexpr std::uint32_t node_bytes = NodeBytes;
  template <class Key>
  static constexpr unsigned tile_size = TileSize != 0 ? TileSize
                                                      : (NodeBytes / (2 * sizeof(Key)) < 32
                                                             ? NodeBytes / (2 * sizeof(Key))
                                                             : 32);
  static constexpr settings initial{Mapping, 0.6, CombinedBuckets};
};

/// The thesis' choices: 16x4-byte nodes, the dynamic mapping with tau 0.6,
/// reorder off (switched on per table, or by the paper preset).
struct thesis_preset : preset<> {};
/// DACHash as the Cuckoo Node Hashing paper ran it against its own table:
/// nodes of 32 (x4 bytes), reorder with a combining factor of 2^10.
struct paper_preset : preset<128, 0, mapping_scheme::dynamic, 1024> {
  static constexpr std::string_view name = "dachash_paper";
};
/// SlabHash's design inside DACHash's code, for the thesis' comparisons on
/// the same inputs: 128-byte nodes (15 pairs and a next index), a warp per
/// key (warp-cooperative work sharing), no reorder.
struct slab_preset : preset<128, 32, mapping_scheme::many_to_one, 0> {
  static constexpr std::string_view name = "dachash_slab";
};

/// Runs batches with the many-to-one mapping on backends that have tiles.
/// This primary template is for backends that do not; the CUDA
/// specialization is in many_to_one.cuh (nvcc only).
template <class Backend>
struct many_to_one_mapping {
  static constexpr bool available = false;
};

}  // namespace gpuhash::detail::dachash
