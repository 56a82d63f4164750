#pragma once
// The store's settings (memcached's -m -I -f -n -M -C, its slab_chunk_max
// and slab_reassign options and its segmented LRU's, TEMP included), and an
// item's size as memcached counts it.

#include <cstddef>
#include <cstdint>

namespace gpuhash::server::store {

/// memcached's LRU settings: its LRU maintainer, its segmented LRU and its
/// TEMP segment. The `lru` command changes them while the server runs
/// (item_store::set_lru).
struct lru_settings {
  /// memcached's LRU maintainer (its default, -o lru_maintainer): classes
  /// are juggled. false (-o no_lru_maintainer or no_modern): never, and the
  /// LRU is flat.
  bool maintainer = true;
  /// memcached's segmented LRU (with the maintainer): a class keeps HOT,
  /// WARM and COLD segments. false (`lru mode flat`, or no maintainer): new
  /// items go to COLD, the one LRU memcached keeps without segments, a read
  /// moves an item as there, and juggles drain HOT and WARM into COLD.
  bool segmented = true;
  std::size_t hot_lru_pct = 20;   ///< HOT's share of its class's item bytes
  std::size_t warm_lru_pct = 40;  ///< WARM's share of its class's item bytes
  /// An item idle longer than COLD's tail age times this leaves HOT (WARM).
  double hot_max_factor = 0.2;
  double warm_max_factor = 2.0;
  /// memcached's temp_lru (-o temporary_ttl or `lru temp_ttl`, which need
  /// the maintainer): an item whose expiry is at most temporary_ttl seconds
  /// away when it is linked goes to the class's TEMP segment, which is
  /// never evicted.
  bool temp_lru = false;
  std::uint32_t temporary_ttl = 61;  ///< seconds
};

struct store_config {
  std::size_t memory_limit = 64u << 20;  ///< bytes of slab pages, all shards together (-m)
  std::size_t item_size_max = 1u << 20;  ///< largest item, memcached's size (-I)
  double growth_factor = 1.25;           ///< chunk size ratio of neighbouring classes (-f)
  std::size_t chunk_size_min = 48;       ///< smallest chunk's room past the item header (-n)
  /// The largest class's chunk (-o slab_chunk_max); larger items are chunked.
  std::size_t slab_chunk_max = 512u << 10;
  /// -o slab_reassign: with it, or with chunked items, each page counts a
  /// whole 1 MB in total_malloced; without both, its chunks' bytes.
  bool slab_reassign = true;
  bool evict = true;        ///< false: -M, allocation fails when full
  bool cas_enabled = true;  ///< false: -C, items show CAS 0 and are 8 bytes smaller
  lru_settings lru;         ///< each store's LRU settings at start
};

/// An item's size as memcached counts it (its ITEM_ntotal): in `stats`'
/// bytes, `stats items`' mem_requested, metadump's and `me`'s size, and for
/// the class it is stored in. memcached's 48-byte header, its 8-byte CAS
/// unless -C, the key and its NUL, 4 bytes of client flags unless they are
/// 0, the value and its "\r\n".
constexpr std::size_t reported_size(std::size_t key_bytes, std::size_t value_bytes,
                                    std::uint32_t client_flags, bool cas_enabled) noexcept {
  constexpr std::size_t memcached_header = 48;
  return memcached_header + (cas_enabled ? 8 : 0) + key_bytes + 1 +
         (client_flags != 0 ? sizeof(client_flags) : 0) + value_bytes + 2;
}

}  // namespace gpuhash::server::store
