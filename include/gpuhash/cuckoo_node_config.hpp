#pragma once
// Cuckoo Node Hashing's configurations (docs/designs/cuckoo_node.md): a
// preset fixes the node (slots, |H|) and the probe counting at compile time,
// each a set of kernels of its own, and gives the reorder settings a table
// starts with, which change at run time (table.engine().configure(...)). A
// table of one: cuckoo_node_map_with (gpuhash/cuckoo_node_map.hpp).
//
// The library compiles the three named presets below; others compile where
// gpuhash/cuckoo_node_map_impl.hpp is included, or once in a file that
// instantiates them (GPUHASH_INSTANTIATE_CUCKOO_NODE_MAP).

#include <cstdint>
#include <string_view>

#include "gpuhash/reorder_scheme.hpp"

namespace gpuhash {

/// A Cuckoo Node table's run-time settings (engine().settings(),
/// engine().configure(...), taking effect from the next batch).
struct cuckoo_node_settings {
  /// Reorder (the paper's IV): buckets combined into one reorder bucket,
  /// its combining factor; 0 runs batches in the caller's order.
  std::uint64_t combined_buckets = 0;
  /// The paper's warp-cooperative reorder (Alg. 3) or DACHash's (Alg. 1).
  reorder_scheme reorder = reorder_scheme::warp_cooperative;
  /// Eviction steps an insert may take in a node in a batch's first pass
  /// (our insert policy, batches run without the reorder): an insert that
  /// needs a longer walk, or a node from the pool, waits for a second pass
  /// over those inserts alone, with the full max_loop, so that a few long
  /// walks do not hold whole warps (docs/results/cuckoo_node.md, "Inserts
  /// above load 0.5"). 0: one pass.
  std::uint32_t first_pass_walk = 8;
  /// The bound on an insert's eviction walk within one node, after which it
  /// goes on to the next node (the paper's max_loop): 1 to 64.
  std::uint32_t max_loop = 64;
};

/// Slots: pairs per Cuckoo Node; Choices: |H|, the positions a key may take
/// in a node; CombinedBuckets: the reorder's combining factor a table
/// starts with (0: no reorder); CountProbes: searches count their probes
/// (the paper's Table I, read with engine().probes()), off it costs
/// nothing; LocalSpans: a key's |H| positions are every slot of two spans
/// of |H| / 2 pairs, 32 or 64 bytes each (our variant,
/// detail/cuckoo_node/view.hpp); PaperInsert: the
/// paper's own insert policy instead of ours (for reproducing its Table I).
template <std::uint32_t Slots = 32, std::uint32_t Choices = 4, std::uint64_t CombinedBuckets = 0,
          bool CountProbes = false, bool LocalSpans = false, bool PaperInsert = false>
struct cuckoo_node_preset {
  static constexpr std::string_view name = "cuckoo_node";
  static constexpr std::uint32_t slots = Slots;
  static constexpr std::uint32_t choices = Choices;
  static constexpr bool count_probes = CountProbes;
  static constexpr bool local_spans = LocalSpans;
  static constexpr bool paper_insert = PaperInsert;
  static constexpr cuckoo_node_settings initial{CombinedBuckets, reorder_scheme::warp_cooperative};
};

/// The library's default (cuckoo_node_map): 32-slot nodes (256 bytes of
/// 32/32 pairs), |H| = 4, no reorder (measured: docs/results/cuckoo_node.md).
struct cuckoo_node_default_preset : cuckoo_node_preset<> {};
/// The paper's settings (its V.B; cuckoo_node_paper_map): nodes of 2^7 key
/// slots, |H| = 4, the warp-cooperative reorder with a combining factor of
/// 2^7.
struct cuckoo_node_paper_preset : cuckoo_node_preset<128, 4, 128> {
  static constexpr std::string_view name = "cuckoo_node_paper";
};
/// Our variant of the paper's node (cuckoo_node_local_map): 128 slots,
/// |H| = 8, every slot of two spans of 4 pairs (a 32-byte sector of 32/32
/// pairs, 64 bytes of 64/64), no reorder (docs/designs/cuckoo_node.md).
struct cuckoo_node_local_preset : cuckoo_node_preset<128, 8, 0, false, true> {
  static constexpr std::string_view name = "cuckoo_node_local";
};

}  // namespace gpuhash
