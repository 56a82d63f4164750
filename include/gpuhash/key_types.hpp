#pragma once
// Keys and values of the user's own types (docs/key_types.md).
//
// A table that takes them stores each key and value as an unsigned word of
// the same size (its bytes, unchanged): 4, 8 or 16 bytes, keys and values
// each of any of the three. The slot layouts, sentinels and atomic steps are
// those of the integer tables; 16-byte words use 128-bit atomics (sm_90's
// on the GPU, cmpxchg16b through libatomic on the CPU: detail/atomic.hpp).
// What a type adds is at the edges: a hash policy and a key-equality
// policy, given as template parameters, and the conversion of keys and
// values to and from words.
//
//  * A hash policy is a host+device callable `std::uint64_t(const Key&)`.
//    The table mixes its result with the table's seed through MurmurHash3's
//    finalizer before it reduces it onto the slots, so the policy need not
//    scatter its output: the default, key_bytes_hash, returns the key's
//    bytes as a number (for std::uint32_t and std::uint64_t keys that is
//    exactly the integer tables' own hash; a 16-byte key's two halves are
//    folded into one number first).
//  * A key-equality policy is a host+device callable
//    `bool(const Key&, const Key&)`; keys it calls equal must hash equal.
//    The default, bitwise_equal, compares the bytes. A stored key is never
//    rewritten by a later write of a key equal to it.
//  * Reserved keys are bit patterns, whatever the type: the words whose
//    bits are all ones, minus 0, 1 (and 2 where key and value are separate
//    words, every pair but 4/4 bytes); a key with those bytes gets
//    invalid_key. table::reserved_keys() lists them as keys.

#include <bit>
#include <cstdint>
#include <type_traits>

#include "gpuhash/hash.hpp"
#include "gpuhash/host_device.hpp"

namespace gpuhash {

namespace detail {
template <std::size_t Bytes>
struct word_for;
template <>
struct word_for<4> {
  using type = std::uint32_t;
};
template <>
struct word_for<8> {
  using type = std::uint64_t;
};
template <>
struct word_for<16> {
  GPUHASH_GNU_EXTENSION typedef unsigned __int128 type;  // GCC's and nvcc's 128-bit integer
};
}  // namespace detail

/// Whether T can be a key or value of the tables that take user types: a
/// trivially copyable type of 4, 8 or 16 bytes.
template <class T>
inline constexpr bool is_word_sized_v = std::is_trivially_copyable_v<T> &&
                                        (sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16);

/// The unsigned word a key or value of type T is stored as.
template <class T>
requires is_word_sized_v<T>
using word_of = typename detail::word_for<sizeof(T)>::type;

/// T's bytes as its word.
template <class T>
GPUHASH_HD constexpr word_of<T> to_word(const T& value) {
  return std::bit_cast<word_of<T>>(value);
}

/// The T whose bytes are `word`.
template <class T>
GPUHASH_HD constexpr T from_word(word_of<T> word) {
  return std::bit_cast<T>(word);
}

/// Whether T can be a wide value (linear_probing_map, hashgraph_dynamic_map):
/// a trivially copyable type of more than 16 bytes, a whole number of 4-byte
/// words (32 floats, an embedding row). Stored as itself, under a per-slot
/// version (detail/linear_probing/wide_view.hpp), not as a word.
template <class T>
inline constexpr bool is_wide_value_v = std::is_trivially_copyable_v<T> && sizeof(T) > 16 &&
                                        sizeof(T) % 4 == 0;

/// Whether the tables that take user types can store keys of type Key with
/// values of type Value: a key of 4, 8 or 16 bytes, a value of 4, 8 or 16
/// bytes or a wide one.
template <class Key, class Value>
inline constexpr bool is_storable_pair_v = is_word_sized_v<Key> &&
                                           (is_word_sized_v<Value> || is_wide_value_v<Value>);

namespace detail {
template <class T, bool Wide = is_wide_value_v<T>>
struct stored_value {
  using type = word_of<T>;
};
template <class T>
struct stored_value<T, true> {
  using type = T;
};
}  // namespace detail

/// What a table stores a value of type T as: its word, or T itself if wide.
template <class T>
using stored_value_t = typename detail::stored_value<T>::type;

/// T as it is stored.
template <class T>
GPUHASH_HD constexpr stored_value_t<T> to_stored(const T& value) {
  if constexpr (is_wide_value_v<T>)
    return value;
  else
    return to_word(value);
}

/// The T stored as `stored`.
template <class T>
GPUHASH_HD constexpr T from_stored(const stored_value_t<T>& stored) {
  if constexpr (is_wide_value_v<T>)
    return stored;
  else
    return from_word<T>(stored);
}

/// The default hash policy: the key's bytes as a number, which the table
/// then mixes with its seed.
template <class Key>
struct key_bytes_hash {
  GPUHASH_HD constexpr std::uint64_t operator()(const Key& key) const {
    if constexpr (sizeof(Key) == 16) {
      // Two halves into one number: the high half mixed first, so that keys
      // that differ only in how their bits split between the halves differ.
      const auto word = to_word(key);
      return static_cast<std::uint64_t>(word) ^
             murmur3_fmix64(static_cast<std::uint64_t>(word >> 64) + 0x9e3779b97f4a7c15ULL);
    } else {
      return to_word(key);
    }
  }
};

/// The default key-equality policy: equal bytes.
template <class Key>
struct bitwise_equal {
  GPUHASH_HD constexpr bool operator()(const Key& a, const Key& b) const {
    return to_word(a) == to_word(b);
  }
};

}  // namespace gpuhash
