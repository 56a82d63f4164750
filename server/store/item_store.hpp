#pragma once
// One shard's items (key, value and metadata) in host memory, with
// memcached 1.6's segmented LRU per size class and memcached's allocation:
// each chunk memcached would take for an item is asked of the slab_ledger
// shared by the shards, and when it has none the class's COLD tail is
// reclaimed (dead items) or evicted (memcached's do_item_alloc_pull and
// lru_pull_tail).
//
// The LRU (docs/designs/server.md, "The LRU"): a class's items are in HOT,
// WARM or COLD, or with temp_lru in TEMP. A linked item enters TEMP when its
// expiry is at most temporary_ttl seconds away, else HOT; a second read
// marks it active; memcached's LRU maintainer (lru_maintainer_juggle)
// reclaims TEMP's dead tail, moves HOT's and WARM's tails to COLD past their
// share of the class's bytes or their age, active ones to WARM, and a read
// of an active COLD item moves it to WARM. TEMP's items never move and are
// never evicted. There is no maintainer thread here: the store juggles a
// class after each change the maintainer would act on (a link, an unlink,
// an allocation that pulled the class's tails; after the reads that mark
// items active, once, when the batch ends: end_batch) and every class when
// the clock (set_now) reaches a new second, so what it holds depends on the
// requests, their batches and seconds alone. Without
// segments (lru_settings::segmented off), new items go to the one LRU
// memcached keeps then, COLD, and juggles drain HOT and WARM into it.
//
// The bytes live in the store's own memory: 1 MB pages carved into chunks
// of memcached's classes, and a block of its own for an item memcached
// stores in chunks (larger than slab_chunk_max), so that every value is
// contiguous. A store takes a page when its own chunks of a class run out;
// the ledger, not the pages, holds the items to the memory limit. A freed
// item's memory stays readable (its header says it is not linked) for
// stale index entries: a page's chunk for good, a block until the owner has
// ended three more batches (end_batch).
//
// Threading: an item_store is used by one thread only (the engine's batch
// thread); it takes no locks of its own (the ledger has its own). Items are
// named by a 32-bit location, which is what the signature index stores.

#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <span>
#include <string_view>
#include <vector>

#include "store/slab_classes.hpp"
#include "store/slab_ledger.hpp"
#include "store/store_config.hpp"

namespace gpuhash::server::store {

/// An item's name: a page number and a chunk number within the page, or,
/// with block_location set, the number of an item's own block.
using location = std::uint32_t;
inline constexpr location no_location = 0xFFFFFFFFu;
inline constexpr location block_location = 0x80000000u;

/// memcached's LRU segments of a class (its HOT_LRU, WARM_LRU, COLD_LRU and
/// TEMP_LRU), in memcached's order.
enum class lru_segment : std::uint8_t { hot, warm, cold, temp };
inline constexpr std::size_t lru_segments = 4;
constexpr std::size_t segment_index(lru_segment segment) noexcept {
  return static_cast<std::size_t>(segment);
}

/// An item's metadata; the key and value follow it in the same chunk.
struct item {
  location lru_prev = no_location;
  location lru_next = no_location;
  std::uint32_t value_bytes = 0;   ///< value length, its trailing "\r\n" excluded
  std::uint32_t client_flags = 0;  ///< set by allocate: its size depends on them
  std::int64_t expires_at = 0;     ///< absolute Unix seconds; 0: never
  std::int64_t stored_at = 0;      ///< Unix seconds of the last store (flush_all compares it)
  /// Unix seconds of the last access as memcached's item time counts it
  /// (metadump's "la"): set by the owner when it links the item, then by
  /// bump and update as memcached's do_item_bump and do_item_update set it.
  std::int64_t accessed_at = 0;
  std::uint64_t cas = 0;
  std::uint8_t key_bytes = 0;
  /// memcached's class of the item (its LRU's), numbered from 1; 0: a free chunk.
  std::uint8_t size_class = 0;
  bool linked = false;   ///< in the LRU (and, for the engine, in the index)
  bool fetched = false;  ///< read since it was stored (metadump's "fetch")
  /// Read again since it was fetched or last moved (memcached's ITEM_ACTIVE).
  bool active = false;
  lru_segment segment = lru_segment::cold;  ///< while linked
  bool stale = false;                       ///< invalidated by a meta delete with I (mg reports X)
  bool win_sent = false;  ///< a client was told to recache it (mg's W; later ones get Z)

  std::string_view key() const noexcept {
    return {reinterpret_cast<const char*>(this + 1), key_bytes};
  }
  /// The value's bytes, followed in memory by "\r\n" (written by
  /// item_store::allocate), so a reply can send value and terminator at once.
  std::span<char> value() noexcept {
    return {reinterpret_cast<char*>(this + 1) + key_bytes, value_bytes};
  }
  std::span<const char> value() const noexcept {
    return {reinterpret_cast<const char*>(this + 1) + key_bytes, value_bytes};
  }
};

enum class allocation_error : std::uint8_t {
  none,
  too_large,      ///< larger than item_size_max as memcached counts it, or a key over 255 bytes
  out_of_memory,  ///< the ledger had no chunk and nothing was evictable (or -M)
  /// A chunked item's header chunk was had, a data chunk was not (memcached
  /// fails such a store while it reads the value, and counts no outofmemory).
  out_of_memory_reading,
};

/// Why an item left its LRU's tail to make room (memcached's lru_pull_tail).
enum class tail_removal : std::uint8_t {
  reclaimed,  ///< dead (expired or flushed): memcached's reclaimed
  evicted,    ///< live: memcached's evicted
};

/// One size class of the store, for `stats items`; memcached's chunk
/// counts are the ledger's (slab_numbers).
struct class_stats {
  std::size_t linked_items = 0;
  std::size_t requested_bytes = 0;  ///< the linked items' reported sizes (mem_requested)
  /// The linked items in each segment (number_hot, number_warm, number_cold,
  /// number_temp).
  std::array<std::size_t, lru_segments> segment_items{};
  // Counts since start or the last reset_counts:
  std::uint64_t evictions = 0;    ///< live items evicted to make room
  std::uint64_t reclaimed = 0;    ///< dead items taken from an LRU tail
  std::uint64_t outofmemory = 0;  ///< allocations that found no chunk (-M, or nothing evictable)
  /// memcached's: passes of an allocation that found no chunk and pulled the tails.
  std::uint64_t direct_reclaims = 0;
  std::uint64_t evicted_active = 0;    ///< evicted while marked active
  std::uint64_t moves_to_cold = 0;     ///< from HOT or WARM
  std::uint64_t moves_to_warm = 0;     ///< active items from HOT or COLD
  std::uint64_t moves_within_lru = 0;  ///< active items from WARM's tail to its head
  /// accessed_at of each segment's tail (0 when empty): COLD's is `stats
  /// items`' age, HOT's and WARM's age_hot and age_warm.
  std::array<std::int64_t, lru_segments> oldest_access{};
};

class item_store {
 public:
  /// A store whose chunks are counted in `ledger`, which must outlive it.
  explicit item_store(slab_ledger& ledger);
  ~item_store();
  item_store(const item_store&) = delete;
  item_store& operator=(const item_store&) = delete;

  /// Called with each item taken from an LRU tail to make room, after it
  /// is unlinked and before its chunk is reused, so the owner can drop its
  /// index entry and count it. It must not allocate or throw.
  using removal_handler = std::function<void(location, const item&, tail_removal)>;
  void on_removal(removal_handler handler);
  /// Tells whether an item at an LRU tail is dead (expired or flushed, as
  /// memcached's lru_pull_tail sees it: the owner knows expiry and
  /// flush_all). Without one, no item is dead.
  using dead_check = std::function<bool(const item&)>;
  void on_dead_check(dead_check check);

  /// An unlinked item with room for the key and `value_bytes` of value, as
  /// memcached's do_item_alloc: each chunk it needs comes from the ledger,
  /// the dead items at its class's LRU tail (up to 5) reclaimed first, and
  /// when the ledger has none the least recently used item evicted (never
  /// `keep`: the item an append or an incr is copying from). The key and
  /// `client_flags` are copied in, the value is left for the caller to
  /// fill, "\r\n" is written after it, other metadata is zeroed. The
  /// classes whose tails it pulled are juggled by the link or release that
  /// follows, or at once when it fails.
  location allocate(std::string_view key, std::size_t value_bytes, std::uint32_t client_flags,
                    allocation_error& error, location keep = no_location);
  /// The size class (numbered from 1) an item with this key, value and
  /// flags goes to; 0 when it is too large for any.
  std::size_t class_for(std::size_t key_bytes, std::size_t value_bytes,
                        std::uint32_t client_flags) const noexcept;
  /// Gives back an item that was allocated and never linked (a store that
  /// failed or was abandoned), then juggles the classes whose tails its
  /// allocation pulled. A linked item is given back by unlink, not here.
  void release(location where);

  item& at(location where) noexcept { return *chunk(where); }
  const item& at(location where) const noexcept { return *chunk(where); }

  /// The owner's clock (Unix seconds), read once per batch: the LRU's ages
  /// and the times bump and update set are its. A new second juggles every
  /// class (memcached's maintainer moves idle items on its own time).
  void set_now(std::int64_t now);
  std::int64_t now() const noexcept { return now_; }

  /// Puts an item at the head of its class's TEMP when temp_lru is on and
  /// its expiry (item::expires_at, set before the link) is now or at most
  /// temporary_ttl seconds away, as memcached's do_item_alloc chooses; else
  /// at HOT's head (COLD's when not segmented). With `replaced`, that
  /// linked item is unlinked first (memcached's do_item_replace). Then
  /// juggles the class, and the replaced item's too.
  void link(location where, location replaced = no_location);
  /// Takes an item out of the LRU and frees its chunk (a delete, or a dead
  /// item a read found), then juggles its class.
  void unlink(location where);
  /// A read of a linked item (get, gets, gat, touch, mg): memcached's
  /// do_item_bump. Segmented: the first read marks it fetched, the next
  /// active; an item made active has its time set, and then in HOT or WARM
  /// its class is left for a juggle when the batch ends (memcached's
  /// maintainer moves an active tail on its own time), in COLD it moves to
  /// WARM's head (memcached queues that move for its maintainer; here it is
  /// made at once, and the juggle after it waits for the batch's end), in
  /// TEMP it stays. Not segmented: marked fetched, then update.
  void bump(location where);
  /// memcached's do_item_update (an incr in place, an add refused over the
  /// item): segmented, an active COLD item moves to WARM (its class juggled
  /// when the batch ends), any other has its time set; not segmented, the item moves to its LRU's head with its
  /// time set when its time is more than 60 s old (ITEM_UPDATE_INTERVAL).
  void update(location where);
  /// The LRU settings from now on (memcached's `lru` command changes its
  /// settings, which its maintainer and its workers read as they go); then
  /// juggles every class. Items stay in their segments until a juggle or a
  /// read moves them.
  void set_lru(const lru_settings& lru);
  const lru_settings& lru() const noexcept { return lru_; }
  /// Juggles every class, as memcached's maintainer soon does on its own:
  /// after a flush_all that takes effect at once, whose items the juggles
  /// reclaim from the tails.
  void juggle_all();
  /// The owner ended a batch: the classes its reads left unjuggled are
  /// juggled, and blocks freed three batches ago go back to the heap, no
  /// index entry reading them any more.
  void end_batch();

  /// Calls fn(location, const item&) for every linked item: class by class,
  /// segment by segment (HOT, WARM, COLD), each from its head to its tail.
  void for_each_linked(const std::function<void(location, const item&)>& fn) const;
  /// Calls visit(const item&) for the items in the COLD segment of
  /// `size_class` (numbered from 1; any other has none), from its head to
  /// its tail, until visit returns false: what memcached's item_cachedump
  /// lists.
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
  std::size_t reported_size(const item& it) const noexcept {
    return store::reported_size(it.key_bytes, it.value_bytes, it.client_flags, cas_enabled_);
  }
  /// The store's own 1 MB pages, and the items in blocks of their own.
  std::size_t pages_allocated() const noexcept;
  std::size_t blocks_in_use() const noexcept;
  std::uint64_t evictions() const noexcept;
  std::uint64_t reclaimed() const noexcept;
  /// The juggles run (memcached's lru_maintainer_juggles counts its
  /// maintainer's rounds; here one per juggle of a class).
  std::uint64_t juggles() const noexcept { return juggles_; }
  /// Zeroes the counts (class_stats' counts and the juggles): `stats reset`.
  void reset_counts() noexcept;
  std::size_t item_size_max() const noexcept;
  const slab_ledger& ledger() const noexcept { return ledger_; }
  slab_ledger& ledger() noexcept { return ledger_; }
  /// Per size class, for `stats items`; classes numbered from 1.
  std::vector<class_stats> classes() const;

 private:
  /// One segment of a class's LRU: a list threaded through the items.
  struct lru_list {
    location head = no_location;  ///< the most recently put there
    location tail = no_location;  ///< pulled first
    std::size_t bytes = 0;        ///< its items' reported sizes (memcached's sizes_bytes)
  };
  struct size_class_state {
    class_stats counts;
    location free_head = no_location;  ///< this class's free chunks, chained through item::lru_next
    std::array<lru_list, lru_segments> lru;
    /// An allocation pulled its tails (evicted, reclaimed or moved items),
    /// or a read made an item active, since its last juggle; listed in
    /// unsettled_classes_.
    bool unsettled = false;
  };
  /// What lru_pull_tail may do to the live item it ends at.
  enum class pull_mode : std::uint8_t {
    move,   ///< move it between segments (the maintainer's juggle)
    evict,  ///< from COLD: evict it (an allocation)
  };
  /// Pages and blocks start on a cache line, so that an item whose chunk
  /// size is a multiple of it (memcached's 192-byte class, which holds
  /// bench-server's items) has its header in one line.
  static constexpr std::size_t memory_alignment = 64;
  static_assert(memory_alignment % alignof(item) == 0, "chunks hold items at 8-byte offsets");
  struct aligned_delete {
    void operator()(std::byte* memory) const noexcept {
      ::operator delete[](memory, std::align_val_t{memory_alignment});
    }
  };
  using aligned_memory = std::unique_ptr<std::byte[], aligned_delete>;
  static aligned_memory allocate_aligned(std::size_t bytes) {
    return aligned_memory(
        static_cast<std::byte*>(::operator new[](bytes, std::align_val_t{memory_alignment})));
  }
  struct page {
    aligned_memory memory;
    std::size_t size_class = 0;  ///< the class its chunks are carved for
    std::size_t chunk_size = 0;  ///< that class's
  };
  /// An item stored whole in memory of its own, and the chunks the ledger
  /// counts for it.
  struct block {
    aligned_memory memory;
    chunked_layout layout;         ///< what was taken from the ledger (all 0: none)
    std::size_t ledger_class = 0;  ///< or this one chunk
  };

  item* chunk(location where) const noexcept {
    assert(where != no_location && "no_location names no item");
    if ((where & block_location) != 0) {
      const std::size_t number = where & ~block_location;
      assert(number < blocks_.size() && blocks_[number].memory && "the location's block is freed");
      return std::launder(reinterpret_cast<item*>(blocks_[number].memory.get()));
    }
    const std::size_t page_index = where >> chunk_bits_;
    const std::size_t chunk_index = where & chunk_mask_;
    assert(page_index < pages_.size() && "the location's page was never allocated");
    const page& holder = pages_[page_index];
    assert(chunk_index < slab_page_bytes / holder.chunk_size &&
           "the location's chunk is past its page's end");
    return std::launder(
        reinterpret_cast<item*>(holder.memory.get() + chunk_index * holder.chunk_size));
  }
  bool ledger_chunk(std::size_t size_class, location keep);
  bool ledger_data_chunks(chunked_layout& layout, location keep);
  void give_back_chunks(const chunked_layout& layout) noexcept;
  int pull_tail(std::size_t size_class, lru_segment from, pull_mode mode, std::size_t total_bytes,
                std::int64_t max_age, location keep);
  bool tail_stays(const lru_list& list, lru_segment from, std::size_t total_bytes,
                  std::int64_t max_age, location keep) const;
  void remove_from_tail(size_class_state& state, location where, item& it, bool dead);
  void juggle(std::size_t size_class, location keep);
  void mark_unsettled(std::size_t size_class);
  void juggle_unsettled();
  bool is_temporary(const item& it) const noexcept;
  void move_to(size_class_state& state, location where, item& it, lru_segment to) noexcept;
  location take_chunk(std::size_t size_class);
  location take_block(std::size_t bytes, const chunked_layout& layout, std::size_t ledger_class);
  void free_item(location where, item& it) noexcept;
  bool add_page(std::size_t size_class);
  void lru_push_head(size_class_state& state, location where, item& it) noexcept;
  void lru_detach(size_class_state& state, item& it) noexcept;
  void take_out(location where, item& it) noexcept;
  bool class_is_empty(const size_class_state& state) const noexcept;
  void count_unlinked(size_class_state& state, item& it) noexcept;

  slab_ledger& ledger_;
  const slab_classes& classes_;
  lru_settings lru_;
  dead_check dead_check_;
  removal_handler removal_handler_;
  bool cas_enabled_ = true;  ///< the store's config: an item's reported size counts its CAS
  unsigned chunk_bits_ = 0;  ///< a page location's low bits: the chunk within its page
  location chunk_mask_ = 0;  ///< those bits (every item read masks a location with them)
  std::size_t nameable_pages_ = 0;
  std::vector<size_class_state> size_classes_;  ///< class c at c - 1
  std::vector<page> pages_;
  std::vector<block> blocks_;
  std::vector<location> free_blocks_;  ///< numbers of blocks_ entries whose memory is freed
  std::vector<std::size_t> unsettled_classes_;  ///< the classes marked size_class_state::unsettled
  /// Freed blocks still readable, with the batch they were freed in.
  struct retired_block {
    std::uint64_t batch;
    location number;
  };
  std::vector<retired_block> retired_blocks_;
  std::uint64_t batches_ended_ = 0;
  std::int64_t now_ = 0;
  std::uint64_t juggles_ = 0;
  std::size_t blocks_in_use_ = 0;
  std::size_t linked_items_ = 0;
  std::size_t bytes_used_ = 0;
};

// The LRU lists' links, inline: every move of the juggles runs them.

/// Moves a linked item to the head of segment `to` (its own: to its head).
inline void item_store::move_to(size_class_state& state, location where, item& it,
                                lru_segment to) noexcept {
  lru_detach(state, it);
  it.segment = to;
  lru_push_head(state, where, it);
}

inline void item_store::lru_push_head(size_class_state& state, location where, item& it) noexcept {
  lru_list& list = state.lru[segment_index(it.segment)];
  it.lru_prev = no_location;
  it.lru_next = list.head;
  if (list.head != no_location) at(list.head).lru_prev = where;
  list.head = where;
  if (list.tail == no_location) list.tail = where;
  list.bytes += reported_size(it);
  ++state.counts.segment_items[segment_index(it.segment)];
}

inline void item_store::lru_detach(size_class_state& state, item& it) noexcept {
  lru_list& list = state.lru[segment_index(it.segment)];
  if (it.lru_prev != no_location) {
    at(it.lru_prev).lru_next = it.lru_next;
  } else {
    list.head = it.lru_next;
  }
  if (it.lru_next != no_location) {
    at(it.lru_next).lru_prev = it.lru_prev;
  } else {
    list.tail = it.lru_prev;
  }
  it.lru_prev = no_location;
  it.lru_next = no_location;
  list.bytes -= reported_size(it);
  --state.counts.segment_items[segment_index(it.segment)];
}

}  // namespace gpuhash::server::store
