#pragma once
// The atomic steps on one slot of slot_layouts.hpp's two layouts, shared by
// the designs that keep pairs in slots (bucketed cuckoo, DACHash). Each step
// takes the caller's copy of the slot and, when the slot no longer holds what
// the copy shows, refreshes the copy and reports failure, so the caller
// re-examines the slot (docs/designs/bucketed_cuckoo.md).

#include <cstdint>
#include <type_traits>

#include "gpuhash/apply_ops.hpp"
#include "gpuhash/detail/atomic.hpp"
#include "gpuhash/detail/slot_layouts.hpp"
#include "gpuhash/host_device.hpp"

namespace gpuhash::detail {

/// insert_or_apply's ops that are one atomic add (apply_ops.hpp).
template <class Op>
inline constexpr bool is_atomic_add = std::is_same_v<Op, gpuhash::plus>;

/// 32-bit keys and values: packed_pair's one-word slots, every change one CAS.
template <class Key, class Value>
struct packed_slots : packed_pair<Key, Value> {
  using layout = packed_pair<Key, Value>;
  using layout::key_of;
  using layout::pack;
  using layout::tombstone_key;
  using layout::value_of;
  using typename layout::slot_type;

  /// Copies `Slots` slots starting at a 16-byte aligned address (weak vector
  /// loads on the device: see load_pair_for_probe).
  template <std::uint32_t Slots>
  GPUHASH_HD static void load(const slot_type* first, slot_type (&copy)[Slots]) {
    GPUHASH_UNROLL
    for (std::uint32_t i = 0; i < Slots; i += 2) {
      const word_pair pair = load_pair_for_probe(first + i);
      copy[i] = pair.first;
      copy[i + 1] = pair.second;
    }
  }

  /// Copies one slot.
  GPUHASH_HD static slot_type load_one(const slot_type* slot) { return load_relaxed(slot); }

  /// The key the copy shows (a packed slot is never half-written).
  GPUHASH_HD static Key settled_key(const slot_type*, slot_type& copy) { return key_of(copy); }
  /// The value of the key the copy shows.
  GPUHASH_HD static Value value(const slot_type*, const slot_type& copy) { return value_of(copy); }

  /// Puts (key, value) into a free slot (empty or tombstone) shown by `copy`.
  GPUHASH_HD static bool claim(slot_type* slot, slot_type& copy, Key key, Value value) {
    return swap_if_unchanged(slot, copy, pack(key, value));
  }
  /// Replaces the value of the key `copy` shows.
  GPUHASH_HD static bool set_value(slot_type* slot, slot_type& copy, Value value) {
    return swap_if_unchanged(slot, copy, pack(key_of(copy), value));
  }
  /// Turns the key `copy` shows into a tombstone.
  GPUHASH_HD static bool bury(slot_type* slot, slot_type& copy) {
    return swap_if_unchanged(slot, copy, pack(tombstone_key, value_of(copy)));
  }
  /// Applies op(stored, value) to the value of the key `copy` shows, as one
  /// atomic change of the pair: true once done; false, with the copy
  /// refreshed, if the slot no longer holds that key (erased meanwhile).
  /// With gpuhash::plus, one atomic add to the value half that nobody waits
  /// for (add_relaxed), always done: the key half is untouched (a carry out
  /// of bit 63 is dropped). If an erase of the key came first, the add lands
  /// on its tombstone, whose value no one reads (tombstones are not reused
  /// while refs or batches run): the apply counts as ordered just before
  /// that erase, its effect gone with the key, which no reader can tell
  /// apart. The copy is not refreshed then.
  template <class Op>
  GPUHASH_HD static bool apply_value(slot_type* slot, slot_type& copy, Value value, Op op) {
    const Key key = key_of(copy);
    if constexpr (is_atomic_add<Op>) {
      (void)key;
      (void)op;
      add_relaxed(slot, static_cast<slot_type>(value) << 32);
      return true;
    } else {
      for (;;) {
        Value updated = value_of(copy);
        op(updated, value);
        if (swap_if_unchanged(slot, copy, pack(key, updated))) return true;
        if (key_of(copy) != key) return false;
      }
    }
  }
  /// Puts (key, value) into the slot whatever it holds; returns what it held.
  /// Used only by the eviction walk, which runs without readers.
  GPUHASH_HD static slot_type exchange(slot_type* slot, Key key, Value value) {
    return exchange_relaxed(slot, pack(key, value));
  }

 private:
  GPUHASH_HD static bool swap_if_unchanged(slot_type* slot, slot_type& copy, slot_type desired) {
    const slot_type current = compare_exchange_relaxed(slot, copy, desired);
    if (current != copy) {
      copy = current;
      return false;
    }
    copy = desired;
    return true;
  }
};

/// Every other pair (64-bit keys and values; and for user types, key and
/// value words of 4, 8 or 16 bytes each but 4/4): published_pair's key and
/// value words, written under its busy-then-publish protocol.
template <class Key, class Value>
struct pair_slots : published_pair<Key, Value> {
  using layout = published_pair<Key, Value>;
  using layout::busy_key;
  using layout::tombstone_key;
  using typename layout::slot_type;

  /// Copies `Slots` slots. A key word of at most 8 bytes is read with the
  /// first 16 bytes of its slot by one weak vector load (see
  /// load_pair_for_probe), which brings a 16-byte slot's value word along.
  /// A 16-byte key word is read by one 128-bit atomic load: its two halves
  /// read apart could show a word the slot never held (the low half of key
  /// {~0, k} beside the high half of the tombstone that replaces it reads
  /// as empty, and a search would stop there). A 32-byte slot's value is
  /// left out of the copy: value() reads it once the key is known.
  template <std::uint32_t Slots>
  GPUHASH_HD static void load(const slot_type* first, slot_type (&copy)[Slots]) {
    GPUHASH_UNROLL
    for (std::uint32_t i = 0; i < Slots; ++i) {
      if constexpr (sizeof(Key) == 16) {
        copy[i] = {load_relaxed(&first[i].key), Value{}};
      } else {
        const word_pair pair =
            load_pair_for_probe(reinterpret_cast<const std::uint64_t*>(first + i));
        if constexpr (sizeof(slot_type) == 16)
          copy[i] = {static_cast<Key>(pair.first), static_cast<Value>(pair.second)};
        else
          copy[i] = {static_cast<Key>(pair.first), Value{}};
      }
    }
  }

  /// Copies one slot's key (acquire: settled_key and value rely on it); the
  /// value is read by value() once the key is known.
  GPUHASH_HD static slot_type load_one(const slot_type* slot) {
    return {load_acquire(&slot->key), Value{}};
  }

  /// The key of the slot once no insert is half-way through publishing it.
  GPUHASH_HD static Key settled_key(slot_type* slot, slot_type& copy) {
    copy.key = layout::settled_key(*slot, copy.key);
    return copy.key;
  }
  /// The value of the key the copy shows: the copy's value word may predate
  /// the key's publication, so it is read again after an acquire load of the
  /// key (which also synchronizes through a later tombstone CAS).
  GPUHASH_HD static Value value(slot_type* slot, const slot_type&) {
    (void)load_acquire(&slot->key);
    return load_relaxed(&slot->value);
  }

  GPUHASH_HD static bool claim(slot_type* slot, slot_type& copy, Key key, Value value) {
    const Key current = compare_exchange_relaxed(&slot->key, copy.key, busy_key);
    if (current != copy.key) {
      copy.key = current;
      return false;
    }
    layout::publish(*slot, key, value);
    copy = {key, value};
    return true;
  }
  /// An update racing with an erase of the key is ordered before it.
  GPUHASH_HD static bool set_value(slot_type* slot, slot_type& copy, Value value) {
    store_relaxed(&slot->value, value);
    copy.value = value;
    return true;
  }
  /// Applies op(stored, value) to the value word by a compare-and-swap loop
  /// (an atomic add nobody waits for, for gpuhash::plus); always done. The
  /// copy's value is not kept up to date. Racing with an erase of the key,
  /// it is ordered before it: the value word of a tombstone is not reused
  /// while refs or batches run.
  template <class Op>
  GPUHASH_HD static bool apply_value(slot_type* slot, slot_type&, Value value, Op op) {
    if constexpr (is_atomic_add<Op> && sizeof(Value) <= 8) {  // no 128-bit add exists
      (void)op;
      add_relaxed(&slot->value, value);  // as packed_slots' add: nobody waits for it
    } else {
      Value seen = load_relaxed(&slot->value);
      for (;;) {
        Value updated = seen;
        op(updated, value);
        const Value current = compare_exchange_relaxed(&slot->value, seen, updated);
        if (current == seen) break;
        seen = current;
      }
    }
    return true;
  }
  GPUHASH_HD static bool bury(slot_type* slot, slot_type& copy) {
    const Key current = compare_exchange_relaxed(&slot->key, copy.key, tombstone_key);
    if (current != copy.key) {
      copy.key = current;
      return false;
    }
    copy.key = tombstone_key;
    return true;
  }
  /// Eviction walk only (no readers; other walkers may race for the slot).
  GPUHASH_HD static slot_type exchange(slot_type* slot, Key key, Value value) {
    Key seen = load_relaxed(&slot->key);
    for (;;) {
      if (seen == busy_key) {
        spin_pause();
        seen = load_relaxed(&slot->key);
        continue;
      }
      const Key current = compare_exchange_acquire(&slot->key, seen, busy_key);
      if (current == seen) break;
      seen = current;
    }
    const Value old_value = load_relaxed(&slot->value);
    layout::publish(*slot, key, value);
    return {seen, old_value};
  }
};

}  // namespace gpuhash::detail
