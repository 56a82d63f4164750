#pragma once
// Which physical limit (limits.hpp) each operation of a design is judged
// against: the cheapest memory access pattern that could do the operation's
// work. The default is the targets' yardstick, a random 64-byte read per find
// and a read-then-CAS with write-back per insert or erase.

#include <string_view>

#include "gpuhash/bucketed_cuckoo_map.hpp"
#include "gpuhash/dachash_map.hpp"
#include "gpuhash/hashgraph_dynamic_map.hpp"
#include "gpuhash/linear_probing_map.hpp"

namespace gpuhash::bench {

template <class Table>
struct access_profile {
  static constexpr std::string_view find = "random_read_64";
  static constexpr std::string_view write = "read_then_cas_write";
};

/// Linear probing reads 8 or 16 bytes per probe, one sector (view.hpp).
template <class Key, class Value, class Backend>
struct access_profile<linear_probing_map<Key, Value, Backend>> {
  static constexpr std::string_view find = "random_read_32";
  static constexpr std::string_view write = "read_then_cas_write";
};

/// Bucketed cuckoo reads whole buckets: a hit usually one, a miss one or two;
/// the same bytes whether one thread or one tile per key reads them.
template <class Key, class Value, class Backend, std::uint32_t BucketBytes, std::uint32_t Choices,
          detail::bucketed_cuckoo::eviction_policy Eviction,
          detail::bucketed_cuckoo::find_path FindPath>
struct access_profile<basic_map<detail::bucketed_cuckoo::engine<Key, Value, Backend, BucketBytes,
                                                                Choices, Eviction, FindPath>>> {
  static constexpr std::string_view find = BucketBytes == 32   ? "random_read_32"
                                           : BucketBytes == 64 ? "random_read_64"
                                                               : "random_read_128";
  static constexpr std::string_view write = "read_then_cas_write";
};

/// DACHash reads whole super nodes: a search at short chains one node, a
/// write one node and a CAS.
template <class Key, class Value, class Backend, class Preset>
struct access_profile<basic_map<detail::dachash::engine<Key, Value, Backend, Preset>>> {
  static constexpr std::string_view find = Preset::node_bytes <= 32   ? "random_read_32"
                                           : Preset::node_bytes == 64 ? "random_read_64"
                                                                      : "random_read_128";
  static constexpr std::string_view write = "read_then_cas_write";
};

/// Dynamic HashGraph reads a bucket's start (CSR, Sliced Ellpack: one read)
/// and then a 16-byte window of slots; Ellpack computes the start.
template <class Key, class Value, class Backend, segment_layout Segments, class Hash,
          class KeyEqual>
struct access_profile<
    basic_map<detail::hashgraph::dynamic_engine<Key, Value, Backend, Segments, Hash, KeyEqual>>> {
  static constexpr std::string_view find =
      Segments == segment_layout::ellpack ? "random_read_32" : "two_reads_64";
  static constexpr std::string_view write = "read_then_cas_write";
};

}  // namespace gpuhash::bench
