#pragma once
// memcached 1.6's slab classes: the chunk sizes its slabs_init builds from
// -n, -f and slab_chunk_max, the class an item of a given size goes to
// (slabs_clsid), and the chunks a chunked item takes (do_item_alloc and
// do_item_alloc_chunk). Numbers only: slab_ledger counts the chunks,
// item_store holds the items.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "store/store_config.hpp"

namespace gpuhash::server::store {

/// memcached's size classes are numbered 1 to 63.
inline constexpr std::size_t size_classes_max = 63;
/// memcached's slab page (settings.slab_page_size), whatever -I.
inline constexpr std::size_t slab_page_bytes = std::size_t{1} << 20;

/// The chunks memcached takes for an item larger than slab_chunk_max: a
/// header chunk (the item's header and key), then data chunks of the
/// largest class, then one smaller chunk for what is left, if anything is.
struct chunked_layout {
  std::size_t header_class = 0;
  std::size_t full_chunks = 0;  ///< chunks of the largest class
  std::size_t tail_class = 0;   ///< 0: the full chunks hold the whole value
};

class slab_classes {
 public:
  /// memcached's table for these settings. Throws std::invalid_argument,
  /// saying which setting, where no table can be built: a factor not above
  /// 1, an item_size_max outside 1 byte to 1 GB, a slab_chunk_max that does
  /// not divide the 1 MB page or leaves no room past a chunk's header.
  explicit slab_classes(const store_config& config);

  /// The largest class's number (memcached's power_largest).
  std::size_t largest() const noexcept { return chunk_sizes_.size(); }
  /// A class's chunk size and chunks per page; classes are numbered from 1.
  std::size_t chunk_size(std::size_t size_class) const noexcept {
    return chunk_sizes_[size_class - 1];
  }
  std::size_t chunks_per_page(std::size_t size_class) const noexcept {
    return slab_page_bytes / chunk_size(size_class);
  }
  /// What one more page of the class adds to total_malloced (memcached's
  /// do_slabs_newslab): the whole page, or only its chunks when neither
  /// slab_reassign nor chunked items are on.
  std::size_t page_cost(std::size_t size_class) const noexcept;

  /// memcached's slabs_clsid: the first class whose chunks hold
  /// `total_bytes`, the largest class for what is larger (a chunked item),
  /// 0 for 0 bytes or more than item_size_max.
  std::size_t class_for(std::size_t total_bytes) const noexcept;
  /// The first class whose chunks hold `bytes`, else the largest (for a
  /// chunk of a chunked item, or of an item whose size is already checked).
  std::size_t class_holding(std::size_t bytes) const noexcept;
  /// Whether an item of `total_bytes` is chunked (larger than slab_chunk_max).
  bool is_chunked(std::size_t total_bytes) const noexcept {
    return total_bytes > config_.slab_chunk_max;
  }
  /// The chunks of a chunked item (is_chunked of its reported_size).
  chunked_layout layout_of(std::size_t key_bytes, std::size_t value_bytes,
                           std::uint32_t client_flags) const noexcept;

  const store_config& config() const noexcept { return config_; }

 private:
  /// class_holding looks sizes up to this in a table, larger ones up in
  /// the chunk sizes.
  static constexpr std::size_t small_bytes = 4096;
  std::size_t search_class_holding(std::size_t bytes) const noexcept;

  store_config config_;
  std::vector<std::size_t> chunk_sizes_;  ///< class c's at c - 1
  /// class_holding(8 n) at n, for sizes up to small_bytes.
  std::vector<std::uint8_t> class_by_eighths_;
};

}  // namespace gpuhash::server::store
