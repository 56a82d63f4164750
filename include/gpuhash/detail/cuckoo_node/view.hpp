#pragma once
// Cuckoo Node Hashing (cuckoo-node-hashing-paper.txt, III): a bucket is a
// chain of Cuckoo Nodes, each a small cuckoo table of `Slots` pairs in which
// a key may sit only at the positions its |H| = Choices hash functions give.
// A search probes those positions in every node of the chain (Alg. 1); an
// insert evicts within a node up to max_loop times before it moves on to the
// next node, attaching one from the pool when the chain ends (Alg. 2).
//
// Local spans (our variant): with LocalSpans, a node is cut into spans of
// |H| / 2 adjacent slots (32 or 64 bytes), and a key's |H| positions are
// every slot of two distinct spans, picked by two hash functions, instead
// of |H| single slots anywhere in the node as the paper has them. A search
// then reads two spans per node (two 32-byte sectors of 32/32 pairs with
// |H| = 8) instead of |H| scattered sectors; nodes are 64-byte aligned, so
// a 32-byte span is one sector and a 64-byte span two adjacent ones. Two
// spans per key, not one: a key with one span has a single choice of bin,
// and a span that draws more keys than it has slots sends them to a second
// node while its node has room elsewhere (docs/results/cuckoo_node.md).
// An eviction walk moves a pair to its other span (next_choice). Everything
// else is the same.
//
// Concurrency (the guarantee the paper does not give): every
// bucket has a version word used as a sequence lock.
//  * A write (insert, upsert, update, erase) takes its bucket's lock (an
//    atomic OR of 1 into the version, which owns it if the version was even), changes the chain,
//    and releases it (the next even version). Writers of one bucket are serialized, so an eviction
//    walk runs alone in its chain, two inserts of one key cannot both place it, and a walk that
//    fails is undone before the lock is released: a failed insert leaves the chain as it was.
//  * A search reads the version (waiting while it is odd), probes the chain
//    with relaxed loads, and reads the version again; if it changed, a write
//    overlapped and the search starts over. So a search never sees a chain
//    in the middle of an eviction walk: a key being moved is never reported
//    missing, and a found key comes with its value (the pair is read under
//    the same version).
// Since no search ever stops at an empty slot, erase simply empties the
// slot (the paper's logical mark is not needed under the lock), and clean
// (engine reclaim) only unlinks and frees nodes that erases emptied.
//
// Per-key methods as detail/batch.hpp requires (one thread per key).

#include <array>
#include <cstddef>
#include <cstdint>

#include "gpuhash/detail/atomic.hpp"
#include "gpuhash/detail/batch.hpp"
#include "gpuhash/detail/node_pool.hpp"
#include "gpuhash/hash.hpp"
#include "gpuhash/host_device.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash::detail::cuckoo_node {

template <class Key, class Value>
struct pair_slot {
  Key key;
  Value value;
};

/// A Cuckoo Node: its pairs and the index of the next node. All bytes 0xff
/// is empty (empty keys, no next node), as the node pool requires. Align:
/// the node's alignment (64 for local spans, else the pairs').
template <class Key, class Value, std::uint32_t Slots, std::size_t Align = alignof(Key)>
struct alignas(Align) node {
  static constexpr std::uint32_t slots = Slots;
  pair_slot<Key, Value> pairs[Slots];
  node_index next;
};

/// Probe counts of searches (the paper's Table I): slots compared, and
/// searches, for keys found and for keys not found.
struct probe_tally {
  std::uint64_t found_searches = 0;
  std::uint64_t found_probes = 0;
  std::uint64_t missed_searches = 0;
  std::uint64_t missed_probes = 0;
};

/// CountProbes (a compile-time switch): searches add their probes to a
/// probe_tally; off, the code is not there and the pointer is null. (The
/// pointer stays a member either way: an empty member marked
/// [[no_unique_address]] is laid out differently by the host compiler and by
/// nvcc's device compiler, and a view is a kernel argument.)
template <class Key, class Value, std::uint32_t Slots, std::uint32_t Choices,
          bool CountProbes = false, bool LocalSpans = false, bool PaperInsert = false>
class chain_view : public view_writes<
                       chain_view<Key, Value, Slots, Choices, CountProbes, LocalSpans, PaperInsert>,
                       Key, Value, write_mode::upsert> {
  // insert_or_assign runs as upsert: under the bucket's lock, a store lands.
  friend view_writes<chain_view, Key, Value, write_mode::upsert>;

 public:
  /// Slots of a span (local spans: half a key's positions); the node
  /// without them.
  static constexpr std::uint32_t span_slots = LocalSpans ? Choices / 2 : Slots;
  static constexpr std::size_t span_bytes = span_slots * sizeof(pair_slot<Key, Value>);

 private:
  static_assert(Choices >= 2 && Choices <= Slots,
                "gpuhash: |H| must be in [2, the slots of a node]");
  static_assert(!LocalSpans || (Choices % 2 == 0 && (span_bytes == 32 || span_bytes == 64)),
                "gpuhash: local spans take every slot of two spans of 32 or 64 bytes: |H| must "
                "be twice the pairs of one (8 for 32/32 or 64/64 pairs)");
  static_assert(!LocalSpans || (Slots % span_slots == 0 && Slots / span_slots >= 2),
                "gpuhash: local spans need a node of at least two whole spans");

 public:
  using key_type = Key;
  using mapped_type = Value;
  using node_type = node<Key, Value, Slots, LocalSpans ? 64 : alignof(Key)>;
  using pool_type = node_pool_view<node_type>;

  static constexpr Key empty_key = ~Key{0};
  /// Reserved so that 32- and 64-bit tables reject the same two values as
  /// the other designs; no slot ever holds it.
  static constexpr Key tombstone_key = ~Key{0} - 1;
  static constexpr std::array<Key, 2> reserved_keys = {empty_key, tombstone_key};
  GPUHASH_HD static constexpr bool is_reserved(Key key) { return key >= tombstone_key; }

  chain_view() = default;
  GPUHASH_HD chain_view(node_type* heads, std::uint32_t* versions, std::uint64_t buckets,
                        std::uint64_t seed, pool_type pool, std::uint32_t max_loop,
                        probe_tally* tally = nullptr)
      : heads_(heads),
        versions_(versions),
        buckets_(buckets),
        hash_{seed},
        pool_(pool),
        max_loop_(max_loop),
        tally_(tally) {}

  /// The same table for a batch's first pass (engine::execute_async): walks
  /// of at most `walk` steps in a node, and an insert that would need a
  /// longer walk or a node from the pool leaves the chain as it was and
  /// answers `full`, pending: the second pass places it.
  GPUHASH_HD chain_view first_pass(std::uint32_t walk) const {
    chain_view pass = *this;
    pass.max_loop_ = walk;
    pass.defers_ = true;
    return pass;
  }

  GPUHASH_HD status find(Key key, Value* value_out) const {
    const std::uint64_t b = bucket(key);
    std::uint32_t* version = versions_ + b;
    for (;;) {
      const std::uint32_t before = load_acquire(version);
      if ((before & 1U) != 0) {
        spin_pause();
        continue;
      }
      Value value{};
      std::uint32_t probes = 0;
      const bool found = probe_chain(b, key, &value, probes);
      fence_acquire();
      if (load_relaxed(version) != before) continue;  // a write overlapped: read again
      if constexpr (CountProbes) {
        fetch_add_relaxed<std::uint64_t>(found ? &tally_->found_searches : &tally_->missed_searches,
                                         1);
        fetch_add_relaxed<std::uint64_t>(found ? &tally_->found_probes : &tally_->missed_probes,
                                         probes);
      }
      if (!found) return status::not_found;
      if (value_out != nullptr) *value_out = value;
      return status::found;
    }
  }

  GPUHASH_HD status erase(Key key) const {
    const std::uint64_t b = bucket(key);
    const std::uint32_t held = lock(b);
    pair_slot<Key, Value>* slot = locate(b, key);
    if (slot != nullptr) store_relaxed(&slot->key, empty_key);
    unlock(b, held);
    return slot != nullptr ? status::erased : status::not_found;
  }

  /// Position of `key` under hash function `choice` of H, in [0, Slots).
  /// With local spans, choices [0, span_slots) are the slots of the key's
  /// first span in order and the rest those of its second.
  GPUHASH_HD std::uint32_t position(Key key, std::uint32_t choice) const {
    if constexpr (!LocalSpans) {
      return static_cast<std::uint32_t>(reduce_range(hash_(key, choice + 1), Slots));
    } else {
      const std::uint32_t span = choice < span_slots ? first_span(key) : second_span(key);
      return span * span_slots + choice % span_slots;
    }
  }
  GPUHASH_HD std::uint64_t bucket(Key key) const { return reduce_range(hash_(key, 0), buckets_); }
  /// Calls f(pair) for every stored pair of bucket b (between batches).
  template <class F>
  GPUHASH_HD void for_each_pair(std::uint64_t b, F&& f) const {
    for (const node_type* current = &head(b);;) {
      for (const auto& pair : current->pairs)
        if (pair.key != empty_key) f(pair);
      if (current->next == no_node) return;
      current = &node_at(current->next);
    }
  }
  GPUHASH_HD node_type& head(std::uint64_t b) const { return heads_[b]; }
  GPUHASH_HD node_type& node_at(node_index index) const { return pool_.node(index); }

 private:
  /// The writes of view_writes, under the bucket's lock (so an apply's op
  /// needs no atomics: read, op, store).
  template <write_mode Mode, class Op = no_apply_op>
  GPUHASH_HD status write(Key key, Value value, Op op = {}) const {
    const std::uint64_t b = bucket(key);
    const std::uint32_t held = lock(b);
    status result = status::not_found;
    const chain_scan found = scan(b, key);
    if (found.holder != nullptr) {
      if constexpr (Mode == write_mode::insert_if_absent) {
        result = status::exists;
      } else if constexpr (Mode == write_mode::insert_or_apply) {
        Value stored = load_relaxed(&found.holder->value);
        op(stored, value);
        store_relaxed(&found.holder->value, stored);
        result = status::updated;
      } else {
        store_relaxed(&found.holder->value, value);
        result = status::updated;
      }
    } else if constexpr (Mode != write_mode::update_if_present) {
      if constexpr (PaperInsert) {
        result = place_as_paper(b, key, value) ? status::inserted : status::full;
      } else if (found.free_candidate != nullptr) {
        write_slot(*found.free_candidate, {key, value});
        result = status::inserted;
      } else {
        result = place_by_eviction(b, key, value) ? status::inserted : status::full;
      }
    }
    unlock(b, held);
    return result;
  }

  /// Takes bucket b's lock: its version from even to odd, returned. A
  /// waiter reads the version until it is even and only then tries an
  /// atomic OR (if the version was even, this thread made it odd and owns
  /// the lock; if not, the OR changed nothing), backing off between tries.
  /// On the GPU tens of thousands of threads may wait for one bucket (a
  /// kernel's inserts into a small table): when each of them tried an OR
  /// every 20 ns, the holder's unlock queued behind their atomics, and a
  /// test of 60,000 such inserts ran for minutes instead of under a second.
  GPUHASH_HD std::uint32_t lock(std::uint64_t b) const {
    for (std::uint32_t attempt = 0;; ++attempt) {
      if ((load_relaxed(versions_ + b) & 1U) == 0) {
        const std::uint32_t before = fetch_or_acquire(versions_ + b, 1U);
        if ((before & 1U) == 0) {
          // Searches that see a write below must also see the odd version.
          fence_release();
          return before | 1U;
        }
      }
      spin_backoff(attempt);
    }
  }
  /// Releases the lock taken with version `held` (odd): the next even one.
  GPUHASH_HD void unlock(std::uint64_t b, std::uint32_t held) const {
    store_release(versions_ + b, held + 1);
  }

  /// Probes the |H| positions of `key` in every node of bucket b's chain;
  /// `probes` counts the slots compared.
  GPUHASH_HD bool probe_chain(std::uint64_t b, Key key, Value* value_out,
                              std::uint32_t& probes) const {
    node_type* current = &head(b);
    for (;;) {
      for (std::uint32_t c = 0; c < Choices; ++c) {
        pair_slot<Key, Value>& slot = current->pairs[position(key, c)];
        if constexpr (CountProbes) ++probes;
        if (load_relaxed(&slot.key) == key) {
          *value_out = load_relaxed(&slot.value);
          return true;
        }
      }
      const node_index next = load_relaxed(&current->next);
      if (next == no_node) return false;
      current = &node_at(next);
    }
  }

  /// What a writer's pass over a chain found (lock held).
  struct chain_scan {
    pair_slot<Key, Value>* holder = nullptr;          ///< the slot holding the key
    pair_slot<Key, Value>* free_candidate = nullptr;  ///< the first empty one of its positions
  };

  /// One pass over bucket b's chain (lock held): where the key is, and the
  /// first node's free candidate slot where it would go. The |H| keys of a
  /// node are loaded together, so their reads overlap instead of following
  /// one another (a write is usually for an absent key, which reads them
  /// all); the lock keeps the chain as it was seen until the write is done.
  GPUHASH_HD chain_scan scan(std::uint64_t b, Key key) const {
    chain_scan found;
    node_type* current = &head(b);
    for (;;) {
      Key seen[Choices];
      GPUHASH_UNROLL
      for (std::uint32_t c = 0; c < Choices; ++c)
        seen[c] = load_relaxed(&current->pairs[position(key, c)].key);
      const node_index next = load_relaxed(&current->next);  // overlaps the reads above
      for (std::uint32_t c = 0; c < Choices; ++c) {
        pair_slot<Key, Value>& slot = current->pairs[position(key, c)];
        if (seen[c] == key) {
          found.holder = &slot;
          return found;
        }
        if (seen[c] == empty_key && found.free_candidate == nullptr) found.free_candidate = &slot;
      }
      if (next == no_node) return found;
      current = &node_at(next);
    }
  }

  /// The slot holding `key` in bucket b (lock held), or null.
  GPUHASH_HD pair_slot<Key, Value>* locate(std::uint64_t b, Key key) const {
    return scan(b, key).holder;
  }

  /// Places an absent key in bucket b that has no free candidate slot in
  /// any node (lock held): by an eviction walk in each node in turn (undone
  /// where it fails); else in a node attached from the pool. False, with the
  /// chain unchanged, if the pool is empty.
  GPUHASH_HD bool place_by_eviction(std::uint64_t b, Key key, Value value) const {
    node_type* last = nullptr;
    for (node_type* current = &head(b);;) {
      if (evict_within(*current, key, value)) return true;
      last = current;
      const node_index next = load_relaxed(&current->next);
      if (next == no_node) break;
      current = &node_at(next);
    }
    if (defers_) return false;  // a first pass attaches no node
    const node_index attached = pool_.pop();
    if (attached == no_node) return false;
    node_type& fresh = node_at(attached);
    const pair_slot<Key, Value> pair{key, value};
    write_slot(fresh.pairs[position(key, 0)], pair);
    // Searches reach the fresh node only through this store; they validate
    // against the bucket's version, which the unlock will advance.
    store_relaxed(&last->next, attached);
    return true;
  }

  /// The paper's own Alg. 2 (PaperInsert; lock held): the key goes to its
  /// first position in the head node, evicting what is there, and the walk
  /// carries on up to max_loop steps; when it runs out, the pair it carries
  /// (another key, usually) goes on to the next node, and at the chain's end
  /// to a node attached from the pool. If the pool is empty then, every walk
  /// is undone in reverse and the insert answers `full` with the chain as it
  /// was. The walks are recorded for that (4 KB per thread), so chains of
  /// more than paper_nodes nodes, and walks of more than 64 steps, take our
  /// policy instead. For reproducing the paper's Table I, not for speed.
  static constexpr std::uint32_t paper_nodes = 32;
  GPUHASH_HD bool place_as_paper(std::uint64_t b, Key key, Value value) const {
    constexpr std::uint32_t max_walk = 64;
    if (max_loop_ > max_walk) return place_by_eviction(b, key, value);
    node_type* visited[paper_nodes];
    std::uint16_t paths[paper_nodes][max_walk];
    std::uint32_t nodes = 0;
    for (node_type* current = &head(b); current != nullptr;) {
      if (nodes == paper_nodes) return place_by_eviction(b, key, value);  // nothing moved yet
      const node_index next = load_relaxed(&current->next);
      current = next == no_node ? nullptr : &node_at(next);
      ++nodes;
    }
    pair_slot<Key, Value> carried{key, value};
    node_type* last = nullptr;
    std::uint32_t walked = 0;
    std::uint32_t function = 0;  // h1 for the key itself, then the next of H at each step
    for (node_type* current = &head(b); current != nullptr; ++walked) {
      visited[walked] = current;
      if (walk_within(*current, carried, paths[walked], function)) return true;
      last = current;
      const node_index next = load_relaxed(&current->next);
      current = next == no_node ? nullptr : &node_at(next);
    }
    const node_index attached = pool_.pop();
    if (attached != no_node) {
      write_slot(node_at(attached).pairs[position(carried.key, 0)], carried);
      store_relaxed(&last->next, attached);
      return true;
    }
    for (std::uint32_t k = walked; k-- > 0;) {  // undo, last node first
      for (std::uint32_t step = max_loop_; step-- > 0;) {
        pair_slot<Key, Value>& slot = visited[k]->pairs[paths[k][step]];
        const pair_slot<Key, Value> back = read_slot(slot);
        write_slot(slot, carried);
        carried = back;
      }
    }
    return false;
  }

  /// The paper's walk in one node (max_loop steps at most), its positions
  /// recorded in `path`: true if the carried pair found an empty slot; else
  /// `carried` is the pair left over.
  GPUHASH_HD bool walk_within(node_type& n, pair_slot<Key, Value>& carried, std::uint16_t* path,
                              std::uint32_t& function) const {
    for (std::uint32_t step = 0; step < max_loop_; ++step) {
      const std::uint32_t at = position(carried.key, function);
      function = (function + 1) % Choices;  // alternate_hash: the next of H, whoever is carried
      path[step] = static_cast<std::uint16_t>(at);
      const pair_slot<Key, Value> evicted = read_slot(n.pairs[at]);
      write_slot(n.pairs[at], carried);
      if (evicted.key == empty_key) return true;
      carried = evicted;
    }
    return false;
  }

  /// Alg. 2's eviction loop inside one node: the carried pair takes the slot
  /// of its next choice (next_choice) and carries on with the pair it
  /// evicts, up to max_loop times. On failure the walk is undone in reverse,
  /// so the node is as it was and the caller still holds (key, value).
  GPUHASH_HD bool evict_within(node_type& n, Key key, Value value) const {
    constexpr std::uint32_t max_walk = 64;  // bound of the undo record
    const std::uint32_t walk = max_loop_ < max_walk ? max_loop_ : max_walk;
    std::uint16_t path[max_walk];
    pair_slot<Key, Value> carried{key, value};
    std::uint32_t choice = 0;
    for (std::uint32_t step = 0; step < walk; ++step) {
      const std::uint32_t at = position(carried.key, choice);
      path[step] = static_cast<std::uint16_t>(at);
      const pair_slot<Key, Value> evicted = read_slot(n.pairs[at]);
      write_slot(n.pairs[at], carried);
      if (evicted.key == empty_key) return true;
      carried = evicted;
      choice = next_choice(n, carried.key, at, step);
    }
    for (std::uint32_t step = walk; step-- > 0;) {
      const pair_slot<Key, Value> back = read_slot(n.pairs[path[step]]);
      write_slot(n.pairs[path[step]], carried);
      carried = back;
    }
    return false;
  }

  /// Where a pair evicted from position `at` of node n goes at step `step`
  /// of a walk: its next function of H; with local spans, its other span
  /// (the one it was not evicted from), into a free slot there if it has
  /// one, else onto a slot picked by h_3 of the key and the step. Local
  /// spans walk like a bucketed cuckoo table: a step reads a whole span (a
  /// sector) for a free slot, and the hashed pick keeps two full spans from
  /// trading the same pairs back and forth; the walk needs fewer second
  /// nodes than a walk along a span's slots (docs/results/cuckoo_node.md).
  GPUHASH_HD std::uint32_t next_choice(const node_type& n, Key key, std::uint32_t at,
                                       std::uint32_t step) const {
    if constexpr (!LocalSpans) {
      return (choice_of(key, at) + 1) % Choices;
    } else {
      const std::uint32_t other = choice_of(key, at) < span_slots ? span_slots : 0;
      GPUHASH_UNROLL
      for (std::uint32_t j = 0; j < span_slots; ++j)
        if (load_relaxed(&n.pairs[position(key, other + j)].key) == empty_key) return other + j;
      return other + static_cast<std::uint32_t>(
                         reduce_range(murmur3_fmix64(hash_(key, 3) + step), span_slots));
    }
  }

  /// Which hash function of H put `key` at position `at` (the first that
  /// gives it, if several do).
  GPUHASH_HD std::uint32_t choice_of(Key key, std::uint32_t at) const {
    if constexpr (LocalSpans) {
      return (at / span_slots == first_span(key) ? 0 : span_slots) + at % span_slots;
    } else {
      for (std::uint32_t c = 0; c < Choices; ++c)
        if (position(key, c) == at) return c;
      return 0;
    }
  }

  /// Local spans: the key's two spans, never the same one (h_1, and h_2
  /// over the other spans).
  static constexpr std::uint32_t spans = Slots / span_slots;
  GPUHASH_HD std::uint32_t first_span(Key key) const {
    return static_cast<std::uint32_t>(reduce_range(hash_(key, 1), spans));
  }
  GPUHASH_HD std::uint32_t second_span(Key key) const {
    const auto other = static_cast<std::uint32_t>(reduce_range(hash_(key, 2), spans - 1));
    return other < first_span(key) ? other : other + 1;
  }

  GPUHASH_HD static pair_slot<Key, Value> read_slot(const pair_slot<Key, Value>& slot) {
    return {load_relaxed(&slot.key), load_relaxed(&slot.value)};
  }
  GPUHASH_HD static void write_slot(pair_slot<Key, Value>& slot, pair_slot<Key, Value> pair) {
    store_relaxed(&slot.value, pair.value);
    store_relaxed(&slot.key, pair.key);
  }

  node_type* heads_ = nullptr;
  std::uint32_t* versions_ = nullptr;
  std::uint64_t buckets_ = 1;
  hash_family<Key> hash_{};
  pool_type pool_{};
  std::uint32_t max_loop_ = 64;
  bool defers_ = false;           ///< a first pass's view (first_pass)
  probe_tally* tally_ = nullptr;  ///< used only if CountProbes
};

}  // namespace gpuhash::detail::cuckoo_node
