#pragma once
// Linear probing (open addressing), per-key algorithms shared by the CPU and
// CUDA backends. One thread owns one key; it walks the slots from the key's
// home slot h(k) to the right, wrapping around.
//
// Invariants that make concurrent batches safe (proofs in docs/architecture.md
// and docs/designs/linear_probing.md):
//  * A slot's key only moves forward through   empty -> (busy ->) key -> tombstone.
//    Nothing becomes empty again while batches run (only clear() and rehash(),
//    which run alone), so a probe that passed a slot never needs to look back.
//  * Inserts claim only empty slots, never tombstones. Two inserts of one key
//    walk the same sequence; whichever claims a slot first makes the other read
//    the key there. So a key is stored at most once, also when it is erased and
//    reinserted within one batch (cuCollections issue #606 is the failure mode
//    of reusing tombstones concurrently). Tombstones are reclaimed by rehash.

#include <array>
#include <cstdint>
#include <type_traits>

#include "gpuhash/detail/atomic.hpp"
#include "gpuhash/detail/slot_layouts.hpp"
#include "gpuhash/detail/slot_steps.hpp"
#include "gpuhash/detail/typed_view.hpp"
#include "gpuhash/detail/view_writes.hpp"
#include "gpuhash/hash.hpp"
#include "gpuhash/host_device.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash::detail::linear_probing {

/// Where a key's probe sequence starts: its hash reduced onto the slots. The
/// views take this as a policy so that dynamic HashGraph, whose probe starts
/// at the key's bucket (detail/hashgraph/dynamic_engine.hpp), reuses them.
template <class Key>
struct hashed_home {
  seeded_hash<Key> hash;
  std::uint64_t capacity = 0;
  GPUHASH_HD std::uint64_t operator()(Key key) const { return reduce_range(hash(key), capacity); }
};

/// Where a view's slots live, which decides how a search may read them on
/// the device.
enum class slot_memory : std::uint8_t {
  /// Global memory (a table's own storage): 16-byte windows by weak
  /// ld.global vector loads (packed_view).
  global,
  /// Any memory, a block's shared memory included (gpuhash/
  /// local_linear_probing.hpp): one slot at a time by generic atomic loads.
  any,
};

/// Walks the probe sequence of a key: home slot, then right, wrapping around.
struct probe_sequence {
  std::uint64_t position;
  std::uint64_t capacity;
  GPUHASH_HD GPUHASH_FORCEINLINE void advance() {
    position = position + 1 == capacity ? 0 : position + 1;
  }
};

/// 32-bit keys and values: the pair lives in one 64-bit word (key in the low
/// half), so every change of a slot is one 64-bit CAS and readers always see a
/// matching key and value.
///
/// Searches read slots two at a time (an aligned 16-byte window, one vector
/// load) in probe order, so a probe that runs past its home slot less often
/// costs a second memory round trip. The capacity is even. Copies of slots may be
/// stale by the time they are examined (see load_pair_for_probe); that is safe
/// because a slot only moves forward (empty -> key -> tombstone) and every
/// change is a CAS against the copy, which fails and returns the current
/// content if the copy was stale. Measurements of the alternatives (one slot
/// per probe, 32-byte windows, relaxed loads): docs/results/linear_probing.md.
template <class Key, class Value, class Home = hashed_home<Key>,
          slot_memory Memory = slot_memory::global, class Equal = word_equal>
class packed_view : public packed_pair<Key, Value>,
                    public view_writes<packed_view<Key, Value, Home, Memory, Equal>, Key, Value> {
  using layout = packed_pair<Key, Value>;
  friend view_writes<packed_view, Key, Value>;

 public:
  using key_type = Key;
  using mapped_type = Value;
  using layout::empty_key;
  using layout::empty_slot;
  using layout::key_of;
  using layout::pack;
  using layout::tombstone_key;
  using layout::value_of;
  using typename layout::slot_type;
  static constexpr std::uint64_t window_slots = 2;

  packed_view() = default;
  GPUHASH_HD packed_view(slot_type* slots, std::uint64_t capacity, Home home, Equal equal = {})
      : slots_(slots), capacity_(capacity), home_(home), equal_(equal) {}

  GPUHASH_HD status find(Key key, Value* value_out) const {
#if defined(__CUDA_ARCH__)
    constexpr probe_reads reads =
        Memory == slot_memory::global ? probe_reads::windows : probe_reads::slots;
#else
    constexpr probe_reads reads = probe_reads::slots;  // a CPU cache line holds 8 slots anyway
#endif
    status result = status::not_found;
    probe<reads>(key, [&](slot_type seen, slot_type*) {
      if (equal_(key_of(seen), key)) {
        if (value_out != nullptr) *value_out = value_of(seen);
        result = status::found;
        return true;
      }
      return key_of(seen) == empty_key;  // the key would be here: absent
    });
    return result;
  }

  GPUHASH_HD status erase(Key key) const {
    status result = status::not_found;
    probe<probe_reads::slots>(key, [&](slot_type seen, slot_type* address) {
      while (equal_(key_of(seen), key)) {
        // The CAS fails if a concurrent upsert changed the value (retry with
        // it) or a concurrent erase won (the loop then sees the tombstone).
        const slot_type current = compare_exchange_relaxed(address, seen, pack(tombstone_key, 0));
        if (current == seen) {
          result = status::erased;
          return true;
        }
        seen = current;
      }
      return key_of(seen) == empty_key;
    });
    return result;
  }

 private:
  /// How a probe reads slots. Searches on the GPU read 16-byte windows with
  /// weak loads (fastest for reads; on the CPU, one slot at a time measured
  /// faster); writes read one slot at a time with relaxed loads,
  /// which measured faster ahead of the CAS (8.2 vs 9.5 G/s inserts at load
  /// 0.5 on the H200), presumably because weak loads allocate L1 lines that the
  /// CAS, done at L2, never uses.
  enum class probe_reads { windows, slots };

  /// Calls visit(copy of slot, its address) for the slots of the key's probe
  /// sequence, in order, until visit returns true. Returns false if it never
  /// did (every slot of the table was visited).
  template <probe_reads Reads, class Visit>
  GPUHASH_HD bool probe(Key key, Visit&& visit) const {
    std::uint64_t slot = home_(key);
    for (std::uint64_t visited = 0; visited < capacity_;) {
      if constexpr (Reads == probe_reads::windows) {
        const word_pair window = load_pair_for_probe(slots_ + (slot & ~std::uint64_t{1}));
        if ((slot & 1) == 0) {  // the window's first slot: both are in probe order
          if (visit(window.first, slots_ + slot)) return true;
          ++slot;
          if (++visited == capacity_) break;
        }
        if (visit(window.second, slots_ + slot)) return true;
      } else {
        if (visit(load_relaxed(slots_ + slot), slots_ + slot)) return true;
      }
      ++visited;
      slot = slot + 1 == capacity_ ? 0 : slot + 1;
    }
    return false;
  }

  template <write_mode Mode, class Op = no_apply_op>
  GPUHASH_HD status write(Key key, Value value, Op op = {}) const {
    const slot_type desired = pack(key, value);
    status result = Mode == write_mode::update_if_present ? status::not_found : status::full;
    probe<probe_reads::slots>(key, [&](slot_type seen, slot_type* address) {
      // Re-examine this slot until it holds neither our key nor empty: a lost
      // CAS means someone else changed it, and that change decides what we do.
      for (;;) {
        if (equal_(key_of(seen), key)) {
          if constexpr (Mode == write_mode::insert_if_absent) {
            result = status::exists;
            return true;
          }
          if constexpr (Mode == write_mode::insert_or_apply) {
            // Unlike an upsert, an apply lost to another write of the key is
            // not done: it retries with the value that write left.
            if (packed_slots<Key, Value>::apply_value(address, seen, value, op)) {
              result = status::updated;
              return true;
            }
            continue;  // erased meanwhile: `seen` shows the tombstone, walk on
          }
          // The stored key stays as it was written (an equal key may differ
          // in its bytes under a key-equality policy).
          const slot_type current =
              compare_exchange_relaxed(address, seen, pack(key_of(seen), value));
          // Lost to another write of this key's value: an upsert counts as
          // done, ordered just before the one that won (its value stays).
          // Retrying instead serializes every writer of a hot key: Zipf
          // upserts at exponent 0.99 ran at 0.007 G/s that way. A ref's
          // insert_or_assign retries (write_mode says why).
          if (current == seen ||
              (Mode != write_mode::insert_or_assign && equal_(key_of(current), key))) {
            result = status::updated;
            return true;
          }
          seen = current;  // erased (tombstone): walk on
        } else if (key_of(seen) == empty_key) {
          if constexpr (Mode == write_mode::update_if_present) {
            result = status::not_found;
            return true;
          }
          const slot_type current = compare_exchange_relaxed(address, seen, desired);
          if (current == seen) {
            result = status::inserted;
            return true;
          }
          seen = current;  // claimed by someone: maybe by our key
        } else {
          return false;
        }
      }
    });
    return result;
  }

  slot_type* slots_ = nullptr;
  std::uint64_t capacity_ = 0;
  Home home_{};
  Equal equal_{};
};

/// The searches of the views whose slots publish a key word after its value
/// (pair_view, wide_view): one slot per probe step, each key read once no
/// writer is half-way through it (Layout::published_key), a found key's
/// value by Layout::published_value. The views add their writes.
template <class Layout, class Key, class Value, class Home, class Equal>
class published_search {
 public:
  using slot_type = typename Layout::slot_type;

  published_search() = default;
  GPUHASH_HD published_search(slot_type* slots, std::uint64_t capacity, Home home, Equal equal)
      : slots_(slots), capacity_(capacity), home_(home), equal_(equal) {}

  GPUHASH_HD status find(Key key, Value* value_out) const {
    probe_sequence probe = start(key);
    for (std::uint64_t step = 0; step < capacity_; ++step, probe.advance()) {
      slot_type& slot = slots_[probe.position];
      const Key seen = Layout::published_key(slot);
      if (equal_(seen, key)) {
        if (value_out != nullptr) *value_out = Layout::published_value(slot);
        return status::found;
      }
      if (seen == Layout::empty_key) return status::not_found;
    }
    return status::not_found;
  }

  GPUHASH_HD status erase(Key key) const {
    probe_sequence probe = start(key);
    for (std::uint64_t step = 0; step < capacity_; ++step, probe.advance()) {
      slot_type& slot = slots_[probe.position];
      const Key seen = Layout::published_key(slot);
      if (equal_(seen, key)) {
        // Only a concurrent erase can change a published key: whoever wins erased it.
        return compare_exchange_relaxed(&slot.key, seen, Layout::tombstone_key) == seen
                   ? status::erased
                   : status::not_found;
      }
      if (seen == Layout::empty_key) return status::not_found;
    }
    return status::not_found;
  }

 protected:
  GPUHASH_HD probe_sequence start(Key key) const { return {home_(key), capacity_}; }

  slot_type* slots_ = nullptr;
  std::uint64_t capacity_ = 0;
  Home home_{};
  Equal equal_{};
};

/// 64-bit keys and values (and every other pair of words but 32/32): key and
/// value are separate words of a 16- or 32-byte slot, written under published_pair's protocol
/// (busy, value, release the key); readers load the key with acquire order.
template <class Key, class Value, class Home = hashed_home<Key>, class Equal = word_equal>
class pair_view
    : public published_pair<Key, Value>,
      public published_search<published_pair<Key, Value>, Key, Value, Home, Equal>,
      public view_writes<pair_view<Key, Value, Home, Equal>, Key, Value, write_mode::upsert> {
  using layout = published_pair<Key, Value>;
  using search = published_search<layout, Key, Value, Home, Equal>;
  // insert_or_assign runs as upsert: the value word is written by a store, which lands.
  friend view_writes<pair_view, Key, Value, write_mode::upsert>;

 public:
  using key_type = Key;
  using mapped_type = Value;
  using layout::busy_key;
  using layout::empty_key;
  using layout::tombstone_key;
  using search::erase;
  using search::find;
  using typename layout::slot_type;
  static constexpr std::uint64_t window_slots = 1;

  pair_view() = default;
  GPUHASH_HD pair_view(slot_type* slots, std::uint64_t capacity, Home home, Equal equal = {})
      : search(slots, capacity, home, equal) {}

 private:
  using search::capacity_;
  using search::equal_;
  using search::slots_;
  using search::start;

  template <write_mode Mode, class Op = no_apply_op>
  GPUHASH_HD status write(Key key, Value value, Op op = {}) const {
    probe_sequence probe = start(key);
    for (std::uint64_t step = 0; step < capacity_; ++step, probe.advance()) {
      slot_type& slot = slots_[probe.position];
      Key seen = layout::published_key(slot);
      for (;;) {
        if (equal_(seen, key)) {
          if constexpr (Mode == write_mode::insert_if_absent) return status::exists;
          if constexpr (Mode == write_mode::insert_or_apply) {
            slot_type copy{key, Value{}};
            pair_slots<Key, Value>::apply_value(&slot, copy, value, op);
            return status::updated;
          }
          // A concurrent erase may tombstone the slot around this store; the
          // update then simply happened first in the serial order.
          store_relaxed(&slot.value, value);
          return status::updated;
        }
        if (seen != empty_key) break;
        if constexpr (Mode == write_mode::update_if_present) return status::not_found;
        seen = compare_exchange_relaxed(&slot.key, empty_key, busy_key);
        if (seen == empty_key) {
          layout::publish(slot, key, value);
          return status::inserted;
        }
        if (seen == busy_key) seen = layout::published_key(slot);
      }
    }
    return Mode == write_mode::update_if_present ? status::not_found : status::full;
  }
};

/// The view for a key/value width: packed for 32/32, pairs for every other
/// (64/64, and user types' 4-, 8- and 16-byte words: their searches read one
/// slot at a time in any memory).
template <class Key, class Value, class Home = hashed_home<Key>,
          slot_memory Memory = slot_memory::global, class Equal = word_equal>
using view_for = std::conditional_t<sizeof(Key) == 4 && sizeof(Value) == 4,
                                    packed_view<Key, Value, Home, Memory, Equal>,
                                    pair_view<Key, Value, Home, Equal>>;

}  // namespace gpuhash::detail::linear_probing
