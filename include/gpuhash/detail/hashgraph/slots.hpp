#pragma once
// Where HashGraph keeps its elements (hashgraph-tnl-thesis.txt, 3.3): the
// set's keys alone, or a map's pairs as an array of structures (3.3.1) or a
// structure of arrays (3.3.2). Each is a trivially copyable view with
//   key(i), value(i)      element i (value only for maps)
//   put(at, from, i)      element i of view `from` copied to position `at`
// so that one build, one compaction and one find serve the set and both map
// layouts. The caller's input arrays are read through the same views.

#include <cstddef>
#include <cstdint>

#include "gpuhash/host_device.hpp"

namespace gpuhash {

/// How a HashGraph map lays out its pairs (the thesis' 3.3).
enum class pair_layout {
  array_of_structures,  ///< one array of {key, value}: a hit reads one place
  structure_of_arrays,  ///< keys and values apart: a probe reads only keys
};

/// A key and its value, as the array-of-structures layout stores them.
template <class Key, class Value>
struct key_value_pair {
  Key key;
  Value value;
};

}  // namespace gpuhash

namespace gpuhash::detail::hashgraph {

template <class Key>
struct key_slots {
  using key_type = Key;
  Key* keys = nullptr;

  GPUHASH_HD const Key& key(std::uint64_t i) const { return keys[i]; }
  template <class From>
  GPUHASH_HD void put(std::uint64_t at, const From& from, std::uint64_t i) const {
    keys[at] = from.key(i);
  }
};

template <class Key, class Value>
struct soa_slots {
  using key_type = Key;
  using value_type = Value;
  Key* keys = nullptr;
  Value* values = nullptr;

  GPUHASH_HD const Key& key(std::uint64_t i) const { return keys[i]; }
  GPUHASH_HD const Value& value(std::uint64_t i) const { return values[i]; }
  template <class From>
  GPUHASH_HD void put(std::uint64_t at, const From& from, std::uint64_t i) const {
    keys[at] = from.key(i);
    values[at] = from.value(i);
  }
};

template <class Key, class Value>
struct aos_slots {
  using key_type = Key;
  using value_type = Value;
  key_value_pair<Key, Value>* pairs = nullptr;

  GPUHASH_HD const Key& key(std::uint64_t i) const { return pairs[i].key; }
  GPUHASH_HD const Value& value(std::uint64_t i) const { return pairs[i].value; }
  template <class From>
  GPUHASH_HD void put(std::uint64_t at, const From& from, std::uint64_t i) const {
    pairs[at] = {from.key(i), from.value(i)};
  }
};

/// Owners of the views' memory in a backend: slot_buffers<Backend, View>
/// allocates n elements and hands out the view. A view is a handle, as a
/// pointer is: a const owner hands out views that kernels may write through.
template <class Backend, class View>
class slot_buffers;

template <class Backend, class Key>
class slot_buffers<Backend, key_slots<Key>> {
 public:
  slot_buffers() = default;
  slot_buffers(std::uint64_t n, typename Backend::stream_type stream)
      : keys_(Backend::template allocate<Key>(n, stream)) {}
  key_slots<Key> view() const { return {const_cast<Key*>(keys_.data())}; }
  std::size_t memory_bytes() const noexcept { return keys_.size() * sizeof(Key); }

 private:
  typename Backend::template buffer<Key> keys_;
};

template <class Backend, class Key, class Value>
class slot_buffers<Backend, soa_slots<Key, Value>> {
 public:
  slot_buffers() = default;
  slot_buffers(std::uint64_t n, typename Backend::stream_type stream)
      : keys_(Backend::template allocate<Key>(n, stream)),
        values_(Backend::template allocate<Value>(n, stream)) {}
  soa_slots<Key, Value> view() const {
    return {const_cast<Key*>(keys_.data()), const_cast<Value*>(values_.data())};
  }
  std::size_t memory_bytes() const noexcept {
    return keys_.size() * sizeof(Key) + values_.size() * sizeof(Value);
  }

 private:
  typename Backend::template buffer<Key> keys_;
  typename Backend::template buffer<Value> values_;
};

template <class Backend, class Key, class Value>
class slot_buffers<Backend, aos_slots<Key, Value>> {
 public:
  slot_buffers() = default;
  slot_buffers(std::uint64_t n, typename Backend::stream_type stream)
      : pairs_(Backend::template allocate<key_value_pair<Key, Value>>(n, stream)) {}
  aos_slots<Key, Value> view() const {
    return {const_cast<key_value_pair<Key, Value>*>(pairs_.data())};
  }
  std::size_t memory_bytes() const noexcept {
    return pairs_.size() * sizeof(key_value_pair<Key, Value>);
  }

 private:
  typename Backend::template buffer<key_value_pair<Key, Value>> pairs_;
};

}  // namespace gpuhash::detail::hashgraph
