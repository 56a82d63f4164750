#pragma once
// DACHash: the per-key algorithms of the one-to-one mapping (thesis Alg. 2:
// one thread per key), shared by the CPU and CUDA backends, and the clean
// phase (section 4.2). Proofs: docs/designs/dachash.md.
//
// A key hashes to a bucket; the bucket is a chain of super nodes starting at
// the bucket's preallocated head node. Invariants while batches run:
//  * Slots fill in chain order. An insert claims the first empty slot of the
//    chain (a CAS from empty), and a slot never becomes empty again (erase
//    leaves a tombstone; only clean, which runs alone, empties slots). So
//    every slot before a stored key is non-empty, and a search, update or
//    erase that meets an empty slot knows the key is not further on.
//  * Tombstones are not reused while batches run, so two inserts of a key
//    always race for the same first empty slot: a key is stored at most once,
//    also when it is erased and reinserted in one batch.
//  * Nodes are only added at a chain's end, already empty. A node is
//    attached by whoever turns the full last node's next index from no_node
//    to linking_node; it pops a node and CASes its index in. Others wait
//    for the index, for a bounded time: then they link a node themselves
//    (attach_node). A search takes linking_node as the end of the chain (the
//    node being attached holds no key yet). An empty pool makes the insert
//    report `full`, and the host makes room and retries it.

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "gpuhash/detail/atomic.hpp"
#include "gpuhash/detail/batch.hpp"
#include "gpuhash/detail/dachash/super_node.hpp"
#include "gpuhash/detail/node_pool.hpp"
#include "gpuhash/detail/slot_steps.hpp"
#include "gpuhash/hash.hpp"
#include "gpuhash/host_device.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash::detail::dachash {

/// A key's bucket: a seeded hash reduced to [0, buckets).
template <class Key>
struct bucket_hash {
  seeded_hash<Key> hash;
  std::uint64_t buckets;
  GPUHASH_HD std::uint64_t operator()(Key key) const { return reduce_range(hash(key), buckets); }
};

template <class Key, class Value, std::uint32_t NodeBytes>
class chain_view : public view_writes<chain_view<Key, Value, NodeBytes>, Key, Value> {
  friend view_writes<chain_view, Key, Value>;

 public:
  using key_type = Key;
  using mapped_type = Value;
  /// 32/32: one-word slots, every change one CAS; 64/64: busy-then-publish.
  using steps =
      std::conditional_t<sizeof(Key) == 4, packed_slots<Key, Value>, pair_slots<Key, Value>>;
  using slot_type = typename steps::slot_type;
  using node_type = super_node<slot_type, NodeBytes>;
  using pool_type = node_pool_view<node_type>;
  static constexpr auto reserved_keys = steps::reserved_keys;
  static constexpr Key empty_key = steps::empty_key;
  static_assert(offsetof(node_type, next) == node_type::pairs * sizeof(slot_type),
                "scan_node reads the next index from the cell after the slots");
  /// How much of a node the device reads in one round trip (scan_node): one
  /// 32-byte sector, the unit in which L2 and DRAM serve reads. Measured on
  /// the H200 (docs/results/dachash.md): against slot-by-slot loads, 32/32
  /// search at 2^28 keys doubles; against whole 64-byte nodes, 64/64
  /// search is 15-30% faster (most keys are in the first sector) and 32/32
  /// is no slower.
  static constexpr std::uint32_t load_bytes = 32;

  chain_view() = default;
  GPUHASH_HD chain_view(node_type* heads, std::uint64_t buckets, std::uint64_t seed, pool_type pool)
      : heads_(heads), bucket_of_{seeded_hash<Key>{seed}, buckets}, pool_(pool) {}

  GPUHASH_HD static constexpr bool is_reserved(Key key) { return steps::is_reserved(key); }
  GPUHASH_HD static bool is_live(const slot_type& slot) { return steps::is_live(slot); }

  GPUHASH_HD std::uint64_t bucket_of(Key key) const { return bucket_of_(key); }
  GPUHASH_HD const bucket_hash<Key>& buckets() const { return bucket_of_; }
  GPUHASH_HD node_type& head(std::uint64_t bucket) const { return heads_[bucket]; }
  GPUHASH_HD const pool_type& pool() const { return pool_; }

  /// Thesis "search": the chain's slots in order, up to the key or the first
  /// empty slot.
  GPUHASH_HD status find(Key key, Value* value_out) const {
    node_type* node = &heads_[bucket_of(key)];
    for (;;) {
      status result = status::not_found;
      node_index next = no_node;
      const bool decided = scan_node(*node, next, [&](slot_type* slot, slot_type copy) {
        const Key seen = steps::settled_key(slot, copy);
        if (seen == key) {
          if (value_out != nullptr) *value_out = steps::value(slot, copy);
          result = status::found;
        }
        return seen == key || seen == empty_key;
      });
      if (decided) return result;
      if (next == no_node || next == linking_node) return status::not_found;
      node = &pool_.node(next);
    }
  }

  /// Thesis "delete": marks the key's slot as a tombstone (logical delete).
  GPUHASH_HD status erase(Key key) const {
    node_type* node = &heads_[bucket_of(key)];
    for (;;) {
      status result = status::not_found;
      node_index next = no_node;
      const bool decided = scan_node(*node, next, [&](slot_type* slot, slot_type copy) {
        for (;;) {
          const Key seen = steps::settled_key(slot, copy);
          if (seen == empty_key) return true;
          if (seen != key) return false;
          // Fails when a concurrent update changed the value (retry with it)
          // or a concurrent erase won (the slot then shows a tombstone).
          if (steps::bury(slot, copy)) {
            result = status::erased;
            return true;
          }
        }
      });
      if (decided) return result;
      if (next == no_node || next == linking_node) return status::not_found;
      node = &pool_.node(next);
    }
  }

  /// Thesis "clean" for one bucket: moves the chain's live pairs to its
  /// front, in order, so that only the last node in use has empty slots, and
  /// returns the nodes after it to the pool, emptied. Runs alone (no batch
  /// at the same time); buckets are cleaned in parallel.
  GPUHASH_HD void compact(std::uint64_t bucket) const {
    node_type* write_node = &heads_[bucket];
    std::uint32_t written = 0;  // pairs written to write_node
    for (node_type* read_node = write_node;;) {
      for (std::uint32_t s = 0; s < node_type::pairs; ++s) {
        const slot_type slot = read_node->slots[s];
        if (!is_live(slot)) continue;
        // The write position never passes the read position, so the node
        // after a full write_node exists.
        if (written == node_type::pairs) {
          write_node = &pool_.node(write_node->next);
          written = 0;
        }
        write_node->slots[written++] = slot;
      }
      if (read_node->next == no_node) break;
      read_node = &pool_.node(read_node->next);
    }
    for (std::uint32_t s = written; s < node_type::pairs; ++s) empty(write_node->slots[s]);
    node_index unused = write_node->next;
    write_node->next = no_node;
    while (unused != no_node) {
      node_type& node = pool_.node(unused);
      const node_index after = node.next;
      for (slot_type& slot : node.slots) empty(slot);
      node.next = no_node;
      pool_.push(unused);
      unused = after;
    }
  }

  /// Polls of a next index held at linking_node before a waiting thread
  /// links a node there itself (attach_node). Each poll sleeps briefly
  /// (spin_pause), so at full speed this is far longer than an attach takes
  /// (one pop and one CAS): a waiter that gives up pops a node the chain may
  /// not need, which stays empty until clean returns it.
  static constexpr std::uint32_t attach_patience = 1u << 14;

  /// Returns the index of the node after `last`, attaching one if `last` is
  /// the chain's end, or no_node if it is and the pool is empty. The thread
  /// that turns last's next index from no_node to linking_node pops a node
  /// and CASes its index in; the others wait for it. A thread that waited
  /// attach_patience polls stops waiting: it pops a node and links it in the
  /// attacher's place (link_at_end), and the attacher, finding its CAS lost,
  /// links its own node further on. So no insert waits without bound for an
  /// attach (under compute-sanitizer a waiter's warp-mate that set the
  /// marker was seen never to run again), no popped node is lost, and no
  /// push runs during a batch. (Public for the many-to-one mapping, whose
  /// tiles attach nodes the same way.)
  GPUHASH_HD node_index attach_node(node_type& last) const {
    node_index seen = load_acquire(&last.next);
    for (std::uint32_t polls = 0;;) {
      if (seen == no_node) {
        seen = compare_exchange_acquire(&last.next, no_node, linking_node);
        if (seen != no_node) continue;
        const node_index fresh = pool_.pop();
        // Links it (or, with an empty pool, gives the end back so that
        // waiting threads try and report `full` too). The node was emptied
        // before the batch began: nothing needs publishing with it.
        seen = compare_exchange_acquire(&last.next, linking_node, fresh);
        if (seen == linking_node) return fresh;
        // A waiter ran out of patience and linked a node here.
        if (fresh != no_node) link_at_end(pool_.node(seen), fresh);
        return seen;
      }
      if (seen != linking_node) return seen;
      if (++polls == attach_patience) {
        const node_index fresh = pool_.pop();
        if (fresh == no_node) {
          // The pool is empty, but the attacher may have linked its node.
          seen = load_acquire(&last.next);
          return seen == linking_node ? no_node : seen;
        }
        link_at_end(last, fresh);
        return load_acquire(&last.next);
      }
      spin_pause();
      seen = load_acquire(&last.next);
    }
  }

 private:
  /// Links `fresh` (a popped, empty node) at the first next index from
  /// `start` on that is no_node or linking_node (taking the place of a node
  /// being attached). A lost CAS shows what is there now (a node someone
  /// linked, walked past; or no_node, given back by an attacher whose pool
  /// was empty, tried again); each one means another thread's step, so the
  /// walk ends.
  GPUHASH_HD void link_at_end(node_type& start, node_index fresh) const {
    node_type* node = &start;
    node_index seen = load_acquire(&node->next);
    for (;;) {
      if (seen != no_node && seen != linking_node) {
        node = &pool_.node(seen);
        seen = load_acquire(&node->next);
        continue;
      }
      const node_index expected = seen;
      seen = compare_exchange_acquire(&node->next, expected, fresh);
      if (seen == expected) return;
    }
  }

  /// Calls visit(slot address, copy of the slot) for the node's slots in
  /// order until it returns true, and returns whether it did; if not, `next`
  /// holds the node's next index. On the device the node is read in pieces of
  /// `load_bytes`, each in one round trip of weak vector loads (as the
  /// bucketed cuckoo table reads a bucket: see load_pair_for_probe), a piece
  /// only when the slots before it did not decide; on the host slot by slot.
  /// The copies may be stale: every change made from one is a CAS that
  /// re-checks the slot, and a stale no_node or linking_node is re-read by
  /// attach_node with acquire loads. The node behind a
  /// next index was emptied before the batch began, so reading it needs no
  /// acquire on the index. `visit` takes the copy by value: taken by
  /// reference, the pieces went to local memory (ptxas stack frames of
  /// 48-176 bytes in the write kernels, and mixed batches ran at half speed).
  template <class Visit>
  GPUHASH_HD static bool scan_node(node_type& node, node_index& next, Visit&& visit) {
#if defined(__CUDA_ARCH__)
    constexpr std::uint32_t per_load =
        (load_bytes < sizeof(node_type) ? load_bytes : sizeof(node_type)) / sizeof(slot_type);
    GPUHASH_UNROLL
    for (std::uint32_t first = 0; first < node_type::cells; first += per_load) {
      slot_type copy[per_load];
      steps::template load<per_load>(reinterpret_cast<const slot_type*>(&node) + first, copy);
      GPUHASH_UNROLL
      for (std::uint32_t i = 0; i < per_load; ++i) {
        if (first + i == node_type::pairs) {
          next = node_type::next_in(copy[i]);
        } else if (visit(&node.slots[first + i], copy[i])) {
          return true;
        }
      }
    }
#else
    for (std::uint32_t s = 0; s < node_type::pairs; ++s) {
      slot_type copy = steps::load_one(&node.slots[s]);
      if (visit(&node.slots[s], copy)) return true;
    }
    next = load_acquire(&node.next);
#endif
    return false;
  }

  GPUHASH_HD static void empty(slot_type& slot) {
    if constexpr (sizeof(Key) == 4) {
      slot = steps::empty_slot;
    } else {
      slot = {empty_key, ~Value{0}};
    }
  }

  /// The writes of view_writes (upsert is the thesis' "insert": it updates
  /// a key that is present).
  template <write_mode Mode, class Op = no_apply_op>
  GPUHASH_HD status write(Key key, Value value, Op op = {}) const {
    node_type* node = &heads_[bucket_of(key)];
    for (;;) {
      status result = status::not_found;
      node_index next = no_node;
      const bool decided = scan_node(*node, next, [&](slot_type* slot, slot_type copy) {
        // Re-examine the slot until it holds neither our key nor empty: a
        // lost CAS means someone else changed it, and that change decides.
        for (;;) {
          const Key seen = steps::settled_key(slot, copy);
          if (seen == key) {
            if constexpr (Mode == write_mode::insert_if_absent) {
              result = status::exists;
              return true;
            }
            if constexpr (Mode == write_mode::insert_or_apply) {
              // Not done when lost to another write of the key (unlike an
              // upsert): apply_value retries with the value that write left.
              if (steps::apply_value(slot, copy, value, op)) {
                result = status::updated;
                return true;
              }
              continue;  // erased meanwhile: the copy shows the tombstone
            }
            // Lost to another write of the key's value: an upsert counts as
            // done, ordered just before the one that won (retrying would
            // serialize every writer of a hot key); a ref's insert_or_assign
            // retries (write_mode says why).
            if (steps::set_value(slot, copy, value) ||
                (Mode != write_mode::insert_or_assign && steps::settled_key(slot, copy) == key)) {
              result = status::updated;
              return true;
            }
            continue;  // erased meanwhile: the slot now holds a tombstone
          }
          if (seen != empty_key) return false;
          if constexpr (Mode == write_mode::update_if_present) return true;  // not_found
          if (steps::claim(slot, copy, key, value)) {
            result = status::inserted;
            return true;
          }
        }
      });
      if (decided) return result;
      if (next == no_node || next == linking_node) {
        if constexpr (Mode == write_mode::update_if_present) return status::not_found;
        next = attach_node(*node);
        if (next == no_node) return status::full;
      }
      node = &pool_.node(next);
    }
  }

  node_type* heads_ = nullptr;
  bucket_hash<Key> bucket_of_{};
  pool_type pool_{};
};

}  // namespace gpuhash::detail::dachash
