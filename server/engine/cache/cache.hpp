#pragma once
// One shard's cache: its items (the store) and its index, kept consistent
// while the index's entries are still being written. Commands work on it
// (engine/commands/); the batch pipeline runs its index work
// (engine/batch/). Only the thread running the shard's batch touches it.
//
// The consistency protocol (docs/designs/server.md, "One batch at a time"):
// the entries of items linked or unlinked by a batch's resolve go to the
// index with the next batch, and their statuses may come one batch later
// still. Meanwhile the host keeps what the index may not show yet:
//   - fresh_: items linked by this resolve (their inserts are not sent);
//   - in_flight_: items linked by the last resolve (their inserts run with
//     this batch, behind its finds);
//   - overflow_: items whose insert the index refused (a 17th entry under
//     one signature): reachable from here alone;
//   - pending_: the entries to insert and erase with the next batch, as net
//     changes (an insert and an erase of one entry cancel);
//   - refused_: refused inserts whose items were unlinked since: their
//     erases will find no entry and are not counted as misses.
// Invariants: at most one linked item per key; every linked item has an
// index entry or is in fresh_, in_flight_ or overflow_. Entries of unlinked
// items are erased by the next batch; until then they only point at an
// item whose key or linked flag rejects them (find_item confirms every
// match against the full key).

#include <array>
#include <cstdint>
#include <memory>
#include <memory_resource>
#include <span>
#include <string_view>
#include <unordered_map>

#include "engine/cache/node_pool.hpp"
#include "engine/cache/pending_changes.hpp"
#include "engine/key_hash.hpp"
#include "index/index_port.hpp"
#include "store/item_store.hpp"

namespace gpuhash::server::engine {

using store::location;

enum class store_mode : std::uint8_t { set, add, replace, append, prepend, cas };
enum class store_result : std::uint8_t {
  stored,
  not_stored,
  exists,
  not_found,
  too_large,
  no_memory,
  no_memory_reading,  ///< an item stored in chunks found none for its data (memcached's read)
};

/// What happened to items, counted by the cache (`stats`).
struct item_counts {
  std::uint64_t get_expired = 0, get_flushed = 0;
  std::uint64_t total_items = 0;  ///< items stored since start
  std::uint64_t store_too_large = 0, store_no_memory = 0;
  std::uint64_t index_erase_misses = 0;  ///< must stay 0: an erase that found no entry
  std::uint64_t index_failovers = 0;     ///< GPU failures survived by moving to the CPU
};

/// What happened to one size class's items (`stats items`; their sums are
/// `stats`' totals), counted by the cache, which knows the items' expiry,
/// as memcached's lru_pull_tail counts them. The store counts the class's
/// evictions, reclaims, moves and allocations that failed.
struct class_item_counts {
  std::uint64_t evicted_nonzero = 0;    ///< live items evicted that had an expiry time
  std::uint64_t evicted_unfetched = 0;  ///< live items evicted that were never read
  std::uint64_t expired_unfetched = 0;  ///< dead items reclaimed that were never read
  std::int64_t evicted_time = 0;        ///< seconds the last evicted item had gone unread
};
using class_item_table = std::array<class_item_counts, store::size_classes_max + 1>;

/// Which CAS values a shard issues: shard s of n issues s + 1, s + 1 + n,
/// ..., so that they are unique over all shards.
struct cas_sequence {
  std::size_t shard = 0;
  std::size_t shards = 1;
};

/// A key a command is about, and the batch's find for it (the search-th).
struct key_ref {
  std::string_view key;
  std::size_t search;
};

class cache {
 public:
  /// A cache whose store counts its chunks in `ledger` (shared by the
  /// shards), which must outlive it. Its index's signatures are `hasher`'s.
  cache(store::slab_ledger& ledger, std::unique_ptr<index::index_port> index, cas_sequence cas,
        key_hasher hasher);
  cache(const cache&) = delete;
  cache& operator=(const cache&) = delete;

  // ---- the batch's index work (engine/batch/) ----------------------------------

  /// The batch's clock (Unix seconds), read once per batch; the store's
  /// too, whose LRU juggles its classes when it reaches a new second (items
  /// it reclaims then have their entries erased with this batch).
  void set_now(std::int64_t now) {
    now_ = now;
    store_.set_now(now);
  }
  std::int64_t now() const noexcept { return now_; }
  /// Starts the batch's index work: the finds come first.
  void clear_finds() { index_->clear(); }
  /// A key's index signature (the routing gives most: key_hash.hpp).
  index::signature_type signature(std::string_view key) const noexcept {
    return hasher_.signature(key);
  }
  /// Queues a find for the key of `signature`; the n-th queued is
  /// find_item(key, n)'s.
  void find(index::signature_type signature) { index_->find(signature); }
  /// Queues a find for each signature's key, in order.
  void find(std::span<const index::signature_type> signatures) { index_->find(signatures); }
  /// Queues the entries linked and unlinked since the last batch, then runs
  /// the batch on the index and reads the statuses it settled. A device
  /// failure moves the index to the CPU, losing nothing; so does a move
  /// --index=auto wants (to the CPU or the GPU), in place of the run.
  void run_index(index::wait_work* while_waiting);
  /// The resolve is over: its items' inserts go out with the next batch.
  void end_resolve();
  /// Whether inserts or erases wait for the next batch.
  bool has_unsent_changes() const noexcept { return !pending_.empty(); }

  // ---- items (commands) -----------------------------------------------------

  /// The live item under `key`, whose find was the batch's `search`-th, or
  /// no_location. An expired or flushed item found on the way is unlinked.
  location find_item(std::string_view key, std::size_t search);
  store::item& at(location where) noexcept { return store_.at(where); }
  /// A read or touch of the item (item_store::bump: memcached's do_item_bump).
  /// The item stays linked, even when a touch has made it dead.
  void bump(location where) { store_.bump(where); }
  /// An incr in place (item_store::update: memcached's do_item_update).
  void update(location where) { store_.update(where); }
  void unlink(location where);
  /// Stores `data` under `key` as `mode` says, over `existing` (the item
  /// find_item gave for it, or no_location); `stored`, if not null, gets
  /// the new item. The index entries it changes take the signature of the
  /// key's find (the key is not hashed again). As memcached, the request's
  /// item is allocated first, whatever the mode; an append or prepend then
  /// allocates the joined item, and is not stored when that finds no memory.
  /// `cas`: what a cas compares the item's CAS with; append and prepend
  /// compare with it too unless it is 0 (ms's C, as memcached's simplified
  /// check), answering exists when they differ.
  store_result store_value(key_ref key, location existing, std::string_view data,
                           std::uint32_t client_flags, std::int64_t expires_at, store_mode mode,
                           std::uint64_t cas, location* stored);
  bool is_live(const store::item& item) const noexcept;
  /// Whether memcached's lru_pull_tail takes the item for dead: expired
  /// before this second (a get already misses it during it) or flushed.
  bool is_reclaimable(const store::item& item) const noexcept;
  /// memcached's exptime rule: 0 never; up to 30 days relative; above,
  /// absolute Unix time; negative, already expired.
  std::int64_t expiry_of(std::int64_t exptime) const noexcept;
  std::uint64_t next_cas() noexcept {
    last_cas_ = cas_counter_++ * cas_.shards + cas_.shard + 1;
    return last_cas_;
  }
  /// flush_all: items stored so far are gone now, or those stored up to
  /// `delay` seconds from now once that time comes (memcached keeps one
  /// flush time: the last flush_all replaces a delayed one still to come).
  /// The store's juggles then reclaim them from the LRU tails.
  void flush(std::int64_t delay);
  /// When the last flush_all takes effect, as memcached's flush_all sets
  /// settings.oldest_live: now, or its delay's time (Unix seconds, absolute
  /// as given for a delay past 30 days); 0 before any flush_all.
  std::int64_t flushed_at() const noexcept { return flushed_at_; }

  const store::item_store& store() const noexcept { return store_; }
  store::item_store& store() noexcept { return store_; }
  const index::index_port& index() const noexcept { return *index_; }
  index::index_port& index() noexcept { return *index_; }
  std::size_t overflowed() const noexcept { return overflow_.size(); }
  const item_counts& counts() const noexcept { return counts_; }
  item_counts& counts() noexcept { return counts_; }
  /// Indexed by size class (item::size_class; 0 unused).
  const class_item_table& class_counts() const noexcept { return class_counts_; }
  class_item_table& class_counts() noexcept { return class_counts_; }

 private:
  /// Hidden by a flush_all that has taken effect.
  bool is_flushed(const store::item& item) const noexcept;
  /// Links an item whose key has `signature`, in place of `replaced` (of
  /// the same key) when there is one.
  void link(location where, location replaced, index::signature_type signature);
  /// Drops an unlinked item from the host maps and queues the erase of its
  /// entry, whose signature is `signature` (the item's key's).
  void forget_entry(location where, index::signature_type signature);
  void queue_entry(index::signature_type signature, location where, int change);

  /// Items by the index signature of their key: keys that share one are
  /// told apart by their items' keys, and the signature, a keyed hash
  /// computed once (key_hash.hpp), is the map's hash.
  using key_locations = std::pmr::unordered_multimap<index::signature_type, location>;
  /// The location `map` holds for `key` (of `signature`), or no_location.
  location located(const key_locations& map, index::signature_type signature,
                   std::string_view key) const;
  /// `map` holds `where` for its item's key (of `signature`), in place of
  /// what it held for that key.
  void locate(key_locations& map, index::signature_type signature, location where);
  /// `map` no longer holds `where`; false if it did not.
  static bool unlocate(key_locations& map, index::signature_type signature, location where);
  void send_changes();
  void settle(const index::settled_changes& settled);
  bool move_index(index::index_site to, const char* failure);

  store::item_store store_;
  std::unique_ptr<index::index_port> index_;
  key_hasher hasher_;
  cas_sequence cas_;
  item_counts counts_;
  class_item_table class_counts_{};
  std::int64_t now_ = 0;
  std::uint64_t cas_counter_ = 0;  // cas values this shard has issued
  std::uint64_t last_cas_ = 0;     // the last of them
  std::int64_t flush_time_ = 0;    // items stored at or before it are gone once now >= it
  std::uint64_t flush_cas_ = 0;    // items with a cas at or below it are gone
  std::int64_t flushed_at_ = 0;    // flushed_at()

  pending_changes pending_;
  // The host maps below take their nodes from a pool of the shard's own
  // (one thread at a time runs a shard's batches): each set adds and drops
  // several nodes, and malloc and free would be a visible part of the
  // server's time (docs/results/server.md).
  node_pool node_pool_;
  key_locations fresh_{&node_pool_};
  key_locations in_flight_{&node_pool_};
  key_locations overflow_{&node_pool_};
  std::pmr::unordered_map<std::uint64_t, int> refused_{&node_pool_};
};

}  // namespace gpuhash::server::engine
