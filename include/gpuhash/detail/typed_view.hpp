#pragma once
// A design's per-key view over words, offered for keys and values of the
// user's types (gpuhash/key_types.hpp): each call turns its key and value
// into words and the answers back, and the policies of the key type reach
// the word view as its Home (the hash) and Equal (the key equality).

#include <cstdint>
#include <type_traits>

#include "gpuhash/apply_ops.hpp"
#include "gpuhash/hash.hpp"
#include "gpuhash/host_device.hpp"
#include "gpuhash/key_types.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash::detail {

/// A key word's hash: the hash policy's value, mixed with the table's seed
/// by MurmurHash3's finalizer. For an integer key and key_bytes_hash this is
/// seeded_hash, the integer tables' own hash.
template <class Key, class Hash>
struct policy_hash {
  Hash hash;
  std::uint64_t seed = 0;
  GPUHASH_HD std::uint64_t operator()(word_of<Key> word) const {
    return murmur3_fmix64(static_cast<std::uint64_t>(hash(from_word<Key>(word))) ^ seed);
  }
};

/// Where a key's probe starts: its policy_hash reduced onto the slots.
template <class Key, class Hash>
struct policy_home {
  policy_hash<Key, Hash> hash;
  std::uint64_t capacity = 0;
  GPUHASH_HD std::uint64_t operator()(word_of<Key> word) const {
    return reduce_range(hash(word), capacity);
  }
};

/// The key-equality policy over words. A stored word that is a sentinel
/// (`Reserved`) never equals a key: the policy sees only keys.
template <class Key, class KeyEqual, class Reserved>
struct policy_equal {
  KeyEqual equal;
  GPUHASH_HD bool operator()(word_of<Key> stored, word_of<Key> key) const {
    return !Reserved::is_reserved(stored) && equal(from_word<Key>(stored), from_word<Key>(key));
  }
};

/// How a view compares a stored key word with the key it looks for (both
/// words) under bitwise_equal: the words compare as the bytes do.
struct word_equal {
  template <class Word>
  GPUHASH_HD bool operator()(Word stored, Word key) const {
    return stored == key;
  }
};

/// The key equality a word view runs for KeyEqual: word_equal for
/// bitwise_equal (the integer tables' own comparison), else the policy over
/// words, which `Reserved` (a layout's is_reserved) keeps away from sentinels.
template <class Key, class KeyEqual, class Reserved>
using word_equality = std::conditional_t<std::is_same_v<KeyEqual, bitwise_equal<Key>>, word_equal,
                                         policy_equal<Key, KeyEqual, Reserved>>;

/// An insert_or_apply functor over a value type, run on its stored form.
template <class Value, class Op>
struct word_op {
  Op op;
  GPUHASH_HD void operator()(stored_value_t<Value>& stored,
                             const stored_value_t<Value>& value) const {
    Value typed = from_stored<Value>(stored);
    op(typed, from_stored<Value>(value));
    stored = to_stored(typed);
  }
};

template <class WordView, class Key, class Value>
class typed_view {
 public:
  using key_type = Key;
  using mapped_type = Value;
  using word_view = WordView;

  typed_view() = default;
  GPUHASH_HD explicit typed_view(WordView words) : words_(words) {}

  GPUHASH_HD static constexpr bool is_reserved(Key key) {
    return WordView::is_reserved(to_word(key));
  }

  GPUHASH_HD status find(Key key, Value* value_out) const {
    stored_value_t<Value> word{};
    const status result = words_.find(to_word(key), value_out != nullptr ? &word : nullptr);
    if (result == status::found && value_out != nullptr) *value_out = from_stored<Value>(word);
    return result;
  }
  GPUHASH_HD status insert(Key key, Value value) const {
    return words_.insert(to_word(key), to_stored(value));
  }
  GPUHASH_HD status upsert(Key key, Value value) const {
    return words_.upsert(to_word(key), to_stored(value));
  }
  GPUHASH_HD status update(Key key, Value value) const {
    return words_.update(to_word(key), to_stored(value));
  }
  GPUHASH_HD status insert_or_assign(Key key, Value value) const {
    return words_.insert_or_assign(to_word(key), to_stored(value));
  }
  GPUHASH_HD status erase(Key key) const { return words_.erase(to_word(key)); }

  /// gpuhash::plus stays one atomic add where the value is an unsigned word
  /// already (a wide value is stored as itself: the op runs on it); any other op, and plus on any
  /// other type (a float's sum is not its word's), runs in the word view's compare-and-swap loop.
  template <class Op>
  GPUHASH_HD status insert_or_apply(Key key, Value value, Op op) const {
    if constexpr (std::is_same_v<Value, stored_value_t<Value>>)
      return words_.insert_or_apply(to_word(key), value, op);
    else
      return words_.insert_or_apply(to_word(key), to_stored(value), word_op<Value, Op>{op});
  }

 private:
  WordView words_{};
};

}  // namespace gpuhash::detail
