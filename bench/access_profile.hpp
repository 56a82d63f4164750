#pragma once
// Which physical limit (limits.hpp) each operation of a design is judged
// against: the cheapest memory access pattern that could do the operation's
// work.

#include <cstdint>
#include <string_view>

#include "gpuhash/hashgraph_dynamic_map.hpp"  // segment_layout

namespace gpuhash::bench {

/// The random read of `bytes` (a bucket, a node) that a search costs at least.
constexpr std::string_view random_read_of(std::uint32_t bytes) {
  return bytes <= 32 ? "random_read_32" : bytes == 64 ? "random_read_64" : "random_read_128";
}

/// What a find of Table's design reads, told by its engine's geometry
/// (basic_map::engine_type):
///  * linear probing: 8 or 16 bytes per probe, one sector (view.hpp);
///  * bucketed cuckoo: whole buckets, a hit usually one, a miss one or two,
///    the same bytes whether one thread or one tile per key reads them;
///  * DACHash: whole super nodes, one at short chains;
///  * dynamic HashGraph: a bucket's start (CSR, Sliced Ellpack: one read)
///    and then a 16-byte window of slots; Ellpack computes the start;
///  * any other: the targets' yardstick, a random 64-byte read.
template <class Table>
constexpr std::string_view find_profile() {
  if constexpr (requires { typename Table::engine_type; }) {
    using engine = typename Table::engine_type;
    if constexpr (Table::design_name == "linear_probing")
      return "random_read_32";
    else if constexpr (requires { engine::bucket_bytes; })
      return random_read_of(engine::bucket_bytes);
    else if constexpr (requires { engine::node_bytes; })
      return random_read_of(engine::node_bytes);
    else if constexpr (requires { engine::layout; })
      return engine::layout == segment_layout::ellpack ? "random_read_32" : "two_reads_64";
  }
  return "random_read_64";
}

/// Which physical limit (limits.hpp) each operation of Table's design is
/// judged against: the cheapest memory access pattern that could do the
/// operation's work; a write, a read-then-CAS with write-back.
template <class Table>
struct access_profile {
  static constexpr std::string_view find = find_profile<Table>();
  static constexpr std::string_view write = "read_then_cas_write";
};

}  // namespace gpuhash::bench
