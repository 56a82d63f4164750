#pragma once
// Cuckoo Node Hashing's configurations: the node (slots, |H|) and the probe
// counting switch are compile-time, the reorder a table starts with can be
// changed at run time (engine::configure).

#include <cstdint>
#include <string_view>

#include "gpuhash/detail/reorder_scheme.hpp"

namespace gpuhash::detail::cuckoo_node {

struct settings {
  /// Reorder (the paper's IV): buckets combined into one reorder bucket,
  /// its combining factor; 0 runs batches in the caller's order.
  std::uint64_t combined_buckets = 0;
  /// The paper's warp-cooperative reorder (Alg. 3) or DACHash's (Alg. 1).
  reorder_scheme reorder = reorder_scheme::warp_cooperative;
};

/// Slots: pairs per Cuckoo Node; Choices: |H|, the positions a key may take
/// in a node; CountProbes: searches count their probes (the paper's Table I,
/// read with engine::probes()), off it costs nothing; LocalSpans: a key's
/// positions lie in one 64-byte span of the node (our variant, view.hpp);
/// PaperInsert: the paper's own insert policy instead of ours (view.hpp;
/// for reproducing its Table I).
template <std::uint32_t Slots = 32, std::uint32_t Choices = 4, std::uint64_t CombinedBuckets = 0,
          bool CountProbes = false, bool LocalSpans = false, bool PaperInsert = false>
struct preset {
  static constexpr std::string_view name = "cuckoo_node";
  static constexpr std::uint32_t slots = Slots;
  static constexpr std::uint32_t choices = Choices;
  static constexpr bool count_probes = CountProbes;
  static constexpr bool local_spans = LocalSpans;
  static constexpr bool paper_insert = PaperInsert;
  static constexpr settings initial{CombinedBuckets, reorder_scheme::warp_cooperative};
};

/// The library's default: 32-slot nodes (256 bytes of 32/32 pairs), |H| = 4,
/// no reorder (measured: docs/results/cuckoo_node.md).
struct default_preset : preset<> {};
/// The paper's settings (its V.B): nodes of 2^7 key slots, |H| = 4, the
/// warp-cooperative reorder with a combining factor of 2^7.
struct paper_preset : preset<128, 4, 128> {
  static constexpr std::string_view name = "cuckoo_node_paper";
};
/// Our variant of the paper's node: 128 slots, |H| = 4 within one 64-byte
/// span, no reorder (measured against the paper's layout in
/// docs/results/cuckoo_node.md).
struct local_preset : preset<128, 4, 0, false, true> {
  static constexpr std::string_view name = "cuckoo_node_local";
};

}  // namespace gpuhash::detail::cuckoo_node
