#pragma once
// The super node of DACHash (thesis section 4.1): a small array of key/value
// slots and the index of the next node of the bucket's chain.
//
// Node size. The thesis measures nodes of "4x4, 8x4, 16x4 and 32x4 bytes"
// and says 32x4 bytes is a cache line: we read NxW as the node's bytes, N
// words of 4 bytes, the sizes a cooperative group of N lanes loads one word
// each. A node of NodeBytes bytes is NodeBytes / sizeof(slot) slot-sized
// cells; the last cell holds the next-node index (as SlabHash's slab does),
// the others hold pairs. So a 64-byte node (16x4, the thesis' choice) holds
// 7 pairs of 32/32 bits or 3 of 64/64; a 128-byte node, 15 or 7.
//
// An empty node is all one bits: empty slots and next == no_node, so a
// whole chunk of nodes is emptied by one byte fill.

#include <cstdint>
#include <cstring>

#include "gpuhash/detail/node_pool.hpp"
#include "gpuhash/host_device.hpp"

namespace gpuhash::detail::dachash {

template <class Slot, std::uint32_t NodeBytes>
struct alignas(NodeBytes) super_node {
  static constexpr std::uint32_t cells = NodeBytes / sizeof(Slot);
  static constexpr std::uint32_t pairs = cells - 1;
  static_assert((NodeBytes & (NodeBytes - 1)) == 0 && NodeBytes % sizeof(Slot) == 0,
                "gpuhash::dachash_map: the node size must be a power of two and a multiple of "
                "the slot size (8 bytes for 32/32 pairs, 16 for 64/64)");
  static_assert(pairs >= 1,
                "gpuhash::dachash_map: a node needs room for a pair and the next-node index: "
                "at least 16 bytes for 32/32 pairs, 32 bytes for 64/64");

  Slot slots[pairs];
  node_index next;
  std::uint8_t unused[sizeof(Slot) - sizeof(node_index)];

  /// The next index in a copy of the node's last cell (a whole node copied
  /// as `cells` slots, as chain_view::scan_node does).
  GPUHASH_HD static node_index next_in(const Slot& last_cell) {
    node_index next;
    std::memcpy(&next, &last_cell, sizeof next);
    return next;
  }
};

}  // namespace gpuhash::detail::dachash
