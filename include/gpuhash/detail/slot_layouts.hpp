#pragma once
// The two slot layouts that open-addressing designs share, with their
// reserved keys and the protocol that makes a 64/64 pair readable while it is
// written. Designs derive their per-slot steps from these.

#include <array>
#include <cstdint>

#include "gpuhash/detail/atomic.hpp"
#include "gpuhash/host_device.hpp"

namespace gpuhash::detail {

/// 32-bit keys and values in one 64-bit word (key in the low half): every
/// change of a slot is one CAS of the pair, and every read sees a matching
/// key and value. An empty slot is all one bits.
template <class Key, class Value>
struct packed_pair {
  using slot_type = std::uint64_t;

  static constexpr Key empty_key = ~Key{0};
  static constexpr Key tombstone_key = ~Key{0} - 1;
  static constexpr std::array<Key, 2> reserved_keys = {empty_key, tombstone_key};
  static constexpr slot_type empty_slot = ~slot_type{0};

  GPUHASH_HD static constexpr bool is_reserved(Key key) { return key >= tombstone_key; }
  GPUHASH_HD static Key key_of(const slot_type& slot) { return static_cast<Key>(slot); }
  GPUHASH_HD static Value value_of(const slot_type& slot) { return static_cast<Value>(slot >> 32); }
  GPUHASH_HD static bool is_live(const slot_type& slot) { return key_of(slot) < tombstone_key; }
  GPUHASH_HD static slot_type pack(Key key, Value value) {
    return (static_cast<slot_type>(value) << 32) | key;
  }
};

/// The reserved key words of the layouts whose key word is published after
/// the value (published_pair, and wide values' versioned_pair): all one
/// bits (empty), one less (tombstone), two less (a slot being written).
template <class Key>
struct published_keys {
  static constexpr Key empty_key = ~Key{0};
  static constexpr Key tombstone_key = ~Key{0} - 1;
  static constexpr Key busy_key = ~Key{0} - 2;
  static constexpr std::array<Key, 3> reserved_keys = {empty_key, tombstone_key, busy_key};

  GPUHASH_HD static constexpr bool is_reserved(Key key) { return key >= busy_key; }
};

/// Every other pair (64-bit keys and values; and for user types, keys and
/// values of 4, 8 or 16 bytes each but 4/4): a key word and a value word,
/// 16-byte aligned (a 16/16-byte pair fills one 32-byte sector).
/// Publication protocol: a writer claims a slot by a CAS of its key word to
/// `busy_key`, writes the value, then stores the key with release order
/// (publish). Readers load the key with acquire order and wait while it is
/// busy (settled_key), so whoever sees a key also sees its value. Values are
/// rewritten in place by single atomic stores, so no value is reserved. An
/// empty slot is all one bits.
template <class Key, class Value>
struct published_pair : published_keys<Key> {
  using published_keys<Key>::busy_key;
  using published_keys<Key>::empty_key;
  using published_keys<Key>::tombstone_key;

  struct alignas(16) slot_type {
    Key key;
    Value value;
  };

  GPUHASH_HD static Key key_of(const slot_type& slot) { return slot.key; }
  GPUHASH_HD static Value value_of(const slot_type& slot) { return slot.value; }
  GPUHASH_HD static bool is_live(const slot_type& slot) { return slot.key < busy_key; }
  GPUHASH_HD static slot_type pack(Key key, Value value) { return {key, value}; }

  /// The slot's key once no writer is half-way through publishing it; `seen`
  /// is what the caller last read of the key word.
  GPUHASH_HD static Key settled_key(const slot_type& slot, Key seen) {
    while (seen == busy_key) {
      spin_pause();
      seen = load_acquire(&slot.key);
    }
    return seen;
  }
  /// The slot's key read with acquire order, once settled: a published key's
  /// value is visible after it.
  GPUHASH_HD static Key published_key(slot_type& slot) {
    return settled_key(slot, load_acquire(&slot.key));
  }
  /// A published key's value.
  GPUHASH_HD static Value published_value(slot_type& slot) { return load_relaxed(&slot.value); }
  /// Completes a write into a slot the caller holds (key word == busy).
  GPUHASH_HD static void publish(slot_type& slot, Key key, Value value) {
    store_relaxed(&slot.value, value);
    store_release(&slot.key, key);  // publishes the value written above
  }
};

/// Whether View keeps its values apart from its slots, in rows after them
/// (View::values_apart; its engines allocate storage_slots elements).
template <class View>
inline constexpr bool values_apart_v = requires { requires View::values_apart; };

/// Elements of View::slot_type that a table of `capacity` slots allocates:
/// the slots, and the rows after them where View keeps its values apart.
template <class View>
constexpr std::uint64_t storage_slots(std::uint64_t capacity) {
  if constexpr (values_apart_v<View>)
    return View::storage_slots(capacity);
  else
    return capacity;
}

}  // namespace gpuhash::detail
