#pragma once
// The server's items (key, value and metadata) in host memory: memcached's
// slab allocator (size classes of chunks carved from 1 MB pages, a memory
// limit) and an LRU list per class, with eviction of the least recently used
// item when memory runs out.
//
// Threading: an item_store is used by one thread only (the engine's batch
// thread); it takes no locks. Items are named by a 32-bit location, which is
// what the signature index stores.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace gpuhash::server::store {

/// memcached's size classes are numbered 1 to 63.
inline constexpr std::size_t size_classes_max = 63;

/// An item's name: page number and chunk number within the page.
using location = std::uint32_t;
inline constexpr location no_location = 0xFFFFFFFFu;

/// An item's metadata; the key and value follow it in the same chunk.
struct item {
  location lru_prev = no_location;
  location lru_next = no_location;
  std::uint32_t value_bytes = 0;  ///< value length, its trailing "\r\n" excluded
  std::uint32_t client_flags = 0;
  std::int64_t expires_at = 0;   ///< absolute Unix seconds; 0: never
  std::int64_t stored_at = 0;    ///< Unix seconds of the last store (flush_all compares it)
  std::int64_t accessed_at = 0;  ///< Unix seconds of the last access (metadump's "la")
  std::uint64_t cas = 0;
  std::uint8_t key_bytes = 0;
  std::uint8_t size_class = 0;  ///< numbered from 1, as in item_store::classes(); 0: a free chunk
  bool linked = false;          ///< in the LRU (and, for the engine, in the index)
  bool fetched = false;         ///< read since it was stored (metadump's "fetch")
  bool stale = false;           ///< invalidated by a meta delete with I (mg reports X)
  bool win_sent = false;        ///< a client was told to recache it (mg's W; later ones get Z)

  std::string_view key() const noexcept;
  /// The value's bytes, followed in memory by "\r\n" (written by
  /// item_store::allocate), so a reply can send value and terminator at once.
  std::span<char> value() noexcept;
  std::span<const char> value() const noexcept;
};

struct store_config {
  std::size_t memory_limit = 64u << 20;  ///< bytes for pages (memcached's -m)
  std::size_t item_size_max = 1u << 20;  ///< largest value (memcached's -I)
  double growth_factor = 1.25;           ///< chunk size ratio of neighbouring classes (-f)
  std::size_t chunk_size_min = 48;       ///< smallest chunk's room for key and value (-n)
  bool evict = true;                     ///< false: -M, allocation fails when full
  bool cas_enabled = true;               ///< false: -C, items show CAS 0 and are 8 bytes smaller
};

/// An item's size as memcached reports it (its ITEM_ntotal), in `stats`'
/// bytes, `stats items`' mem_requested and metadump's size: memcached's
/// 48-byte header, its 8-byte CAS unless -C, the key and its NUL, the value
/// and its "\r\n". What an item takes here is its chunk (`stats slabs`).
constexpr std::size_t reported_size(std::size_t key_bytes, std::size_t value_bytes,
                                    bool cas_enabled) noexcept {
  constexpr std::size_t memcached_header = 48;
  return memcached_header + (cas_enabled ? 8 : 0) + key_bytes + 1 + value_bytes + 2;
}

enum class allocation_error : std::uint8_t {
  none,
  too_large,      ///< key + value exceed item_size_max, or the key 255 bytes: no class holds it
  out_of_memory,  ///< no free chunk, no page left, nothing evictable (or -M)
};

struct class_stats {
  std::size_t chunk_size = 0;
  std::size_t chunks_per_page = 0;
  std::size_t pages = 0;
  std::size_t used_chunks = 0;
  std::size_t free_chunks = 0;
  std::size_t linked_items = 0;
  std::size_t requested_bytes = 0;  ///< the linked items' reported sizes (mem_requested)
  // Counts since start or the last reset_counts:
  std::uint64_t evictions = 0;     ///< live items evicted to make room
  std::uint64_t reclaimed = 0;     ///< dead items whose chunk was taken for a new one
  std::uint64_t outofmemory = 0;   ///< allocations that found no chunk (-M, or nothing evictable)
  std::int64_t oldest_access = 0;  ///< accessed_at of the LRU tail (0 when empty)
};

class item_store {
 public:
  explicit item_store(store_config config);
  ~item_store();
  item_store(const item_store&) = delete;
  item_store& operator=(const item_store&) = delete;

  /// Called with each item evicted to make room, after it is unlinked and
  /// before its chunk is reused, so the owner can drop its index entry. It
  /// must not allocate or throw.
  using eviction_handler = std::function<void(location, const item&)>;
  void on_eviction(eviction_handler handler);
  /// Tells whether an item is dead (expired or flushed: the store keeps no
  /// clock). A dead item near its LRU tail is reused before anything is
  /// evicted, and even with -M; the eviction handler is called for it too,
  /// and it counts in reclaimed(), not evictions().
  using dead_check = std::function<bool(const item&)>;
  void on_dead_check(dead_check check);

  /// An unlinked item with room for the key and `value_bytes` of value; the
  /// key is copied in, the value is left for the caller to fill, "\r\n" is
  /// written after it, metadata is zeroed. May evict the least recently used
  /// items of the same class, never `keep` (the item an append or an incr
  /// is copying from).
  location allocate(std::string_view key, std::size_t value_bytes, allocation_error& error,
                    location keep = no_location);
  /// The size class (numbered from 1) an item with this key and value goes
  /// to; 0 when it is too large for any.
  std::size_t class_for(std::size_t key_bytes, std::size_t value_bytes) const noexcept;
  /// Gives back an item that was allocated and never linked (a store that
  /// failed or was abandoned). A linked item is given back by unlink, not here.
  void release(location where);

  item& at(location where) noexcept;
  const item& at(location where) const noexcept;

  /// Puts an item at the head of its class's LRU.
  void link(location where);
  /// Takes an item out of the LRU and frees its chunk.
  void unlink(location where);
  /// Moves a linked item to the head of its LRU (a read or touch).
  void bump(location where);

  /// Calls fn(location, const item&) for every linked item: class by class,
  /// each from the most to the least recently used.
  void for_each_linked(const std::function<void(location, const item&)>& fn) const;
  /// Calls visit(const item&) for the linked items of `size_class`
  /// (numbered from 1; any other has none), from the most to the least
  /// recently used, until visit returns false.
  void visit_class(std::size_t size_class, const std::function<bool(const item&)>& visit) const;
  /// Calls visit(location, const item&) for the linked items in location
  /// order from `from` on, until visit returns false; returns the location
  /// to go on from (the one visit refused), or no_location once every item
  /// was visited. Between two calls items may come and go: an item linked
  /// all along is visited once.
  location visit_linked_from(location from,
                             const std::function<bool(location, const item&)>& visit) const;

  std::size_t linked_items() const noexcept;
  /// The linked items' sizes as memcached reports them (reported_size).
  std::size_t bytes_used() const noexcept;
  std::size_t reported_size(const item& it) const noexcept;
  std::size_t pages_allocated() const noexcept;
  std::size_t page_size() const noexcept;
  std::uint64_t evictions() const noexcept;
  std::uint64_t reclaimed() const noexcept;
  /// Zeroes the counts (evictions, reclaimed, outofmemory): `stats reset`.
  void reset_counts() noexcept;
  std::size_t item_size_max() const noexcept;
  std::size_t memory_limit() const noexcept;
  /// Changes the limit for pages allocated from now on (memcached's
  /// cache_memlimit); false, and nothing changes, below what is allocated.
  bool set_memory_limit(std::size_t bytes);
  /// Per size class, for `stats slabs` and `stats items`; classes numbered from 1.
  std::vector<class_stats> classes() const;

 private:
  struct size_class_state {
    std::size_t chunk_size = 0;
    std::size_t chunks_per_page = 0;
    std::size_t pages = 0;
    std::size_t used_chunks = 0;  ///< allocated, linked or not
    std::size_t free_chunks = 0;
    std::size_t linked_items = 0;
    std::size_t requested_bytes = 0;
    std::uint64_t evictions = 0;
    std::uint64_t reclaimed = 0;
    std::uint64_t outofmemory = 0;
    location free_head = no_location;  ///< free chunks, chained through item::lru_next
    location lru_head = no_location;   ///< the most recently used
    location lru_tail = no_location;   ///< the least recently used: evicted first
  };
  struct page {
    std::unique_ptr<std::byte[]> memory;
    std::size_t class_index = 0;
  };

  item* chunk(location where) const noexcept;
  size_class_state& class_at(location where) noexcept;
  location take_free_chunk(size_class_state& state) noexcept;
  void free_chunk(location where, item& it) noexcept;
  bool add_page(std::size_t class_index);
  location evict_tail(size_class_state& state, location keep);
  location reclaim_tail(size_class_state& state, location keep);
  void lru_push_head(size_class_state& state, location where, item& it) noexcept;
  void lru_detach(size_class_state& state, item& it) noexcept;
  void count_unlinked(size_class_state& state, item& it) noexcept;

  store_config config_;
  std::size_t page_size_ = 0;
  /// memory_limit / page_size, at least 1, at most what locations can name.
  std::size_t max_pages_ = 0;
  std::size_t nameable_pages_ = 0;
  dead_check dead_check_;
  unsigned chunk_bits_ = 0;  ///< a location's low bits: the chunk within its page
  std::vector<size_class_state> size_classes_;
  std::vector<page> pages_;
  eviction_handler eviction_handler_;
  std::size_t linked_items_ = 0;
  std::size_t bytes_used_ = 0;
};

}  // namespace gpuhash::server::store
