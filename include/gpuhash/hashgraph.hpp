#pragma once
// Static HashGraph, after hashgraph-tnl-thesis.txt (2.2, 3.4.1, 3.4.3): a set
// or a map built in one batch, its buckets laid out one after another in a
// flat array (CSR, Ellpack or Sliced Ellpack segments), queried in bulk.
//
//   gpuhash::hashgraph_set<std::uint32_t, gpuhash::cuda_backend> set;
//   set.build(keys, n, stream);                 // replaces the contents
//   set.contains(queries, m, flags, gpuhash::hashgraph_probe::binned, stream);
//
// Keys may be of any type with a host+device hash returning an unsigned
// integer and an equality that is an equivalence relation consistent with
// the hash (so not a float's ==, which NaN breaks); the defaults serve 32-
// and 64-bit unsigned keys;
// no key value is reserved. A table holds each key once: a build keeps one of
// equal keys. insert() is the thesis' rehash-everything (Alg. 8), worth it for
// batches about the table's size; the dynamic variant is for small ones.
//
// Header-only (any key type can be used): a program that uses a table on the
// CUDA backend includes this header from a .cu file. table.ref() hands out
// the device-side API for searches in the caller's own kernels
// (hashgraph_set_ref, hashgraph_map_ref): a static table changes only by
// build and insert, which replace its storage, so a ref is valid until then. Pointers are backend
// memory (device memory on the CUDA backend); the span forms take host data.
// A call returns when its work is queued on the stream, except build and
// insert, which wait for the stream (they read a count back).

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "gpuhash/detail/hashgraph/slots.hpp"
#include "gpuhash/detail/hashgraph/static_table.hpp"
#include "gpuhash/detail/staged.hpp"
#include "gpuhash/hash.hpp"
#include "gpuhash/host_device.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash {

/// The default hash of a HashGraph key: seeded MurmurHash3 (the thesis hashes
/// with Murmur), for 32- and 64-bit unsigned keys.
template <class Key>
using hashgraph_hash = seeded_hash<Key>;

namespace detail::hashgraph {
template <class Table>
class static_facade;
}  // namespace detail::hashgraph

/// The device-side API of a hashgraph_set (map_ref.hpp has the maps'): a
/// trivially copyable handle whose searches run in the caller's kernels or
/// CPU threads, one key per thread, as the set's bulk probe (Alg. 6) does.
/// No key is reserved. Valid until the set's next build or insert.
template <class View>
class hashgraph_set_ref {
 public:
  using key_type = typename View::key_type;

  /// Whether the key is in the set.
  GPUHASH_HD bool contains(const key_type& key) const { return view_.locate(key) != View::nowhere; }

 private:
  template <class Table>
  friend class detail::hashgraph::static_facade;
  explicit hashgraph_set_ref(View view) : view_(view) {}

  View view_;
};

/// The device-side API of a hashgraph_map: find and contains per key, as
/// hashgraph_set_ref.
template <class View>
class hashgraph_map_ref {
 public:
  using key_type = typename View::key_type;
  using mapped_type = typename View::slots_type::value_type;

  /// found (*value set, if value is not null) or not_found.
  GPUHASH_HD status find(const key_type& key, mapped_type* value) const {
    const std::uint64_t at = view_.locate(key);
    if (at == View::nowhere) return status::not_found;
    if (value != nullptr) *value = view_.slots.value(at);
    return status::found;
  }
  GPUHASH_HD bool contains(const key_type& key) const { return view_.locate(key) != View::nowhere; }

 private:
  template <class Table>
  friend class detail::hashgraph::static_facade;
  explicit hashgraph_map_ref(View view) : view_(view) {}

  View view_;
};

namespace detail::hashgraph {

/// What the static set and map share: the table, its sizes, and running a
/// probe (one thread per query on the GPU; on the CPU, prefetching groups).
template <class Table>
class static_facade {
 public:
  using backend_type = typename Table::backend_type;
  using stream_type = typename backend_type::stream_type;

  std::uint64_t size() const noexcept { return table_.size(); }
  bool empty() const noexcept { return size() == 0; }
  std::uint64_t bucket_count() const noexcept { return table_.bucket_count(); }
  /// Slots allocated, padding included (the thesis' Fig. 4.1).
  std::uint64_t slot_count() const noexcept { return table_.slot_count(); }
  std::size_t memory_bytes() const noexcept { return table_.memory_bytes(); }

 protected:
  using view_type = typename Table::view_type;

  template <class Ref>
  Ref make_ref() const {
    return Ref(table_.view());
  }

  template <class Hash, class KeyEqual>
  static_facade(hashgraph_options options, Hash hash, KeyEqual equal)
      : table_(options, hash, equal) {
    table_.build({}, 0, {});
  }

  template <class Probe>
  static void run_probe(const Probe& probe, std::uint64_t n, stream_type stream) {
    if constexpr (backend_type::host_accessible) {
      using grouped = grouped_probe<Probe>;
      exec<backend_type>::for_each((n + grouped::group - 1) / grouped::group, grouped{probe, n},
                                   stream);
    } else {
      exec<backend_type>::for_each(n, probe, stream);
    }
  }

  Table table_;
};

}  // namespace detail::hashgraph

template <class Key, class Backend, class Hash = hashgraph_hash<Key>,
          segment_layout Segments = segment_layout::csr,
          class KeyEqual = detail::hashgraph::key_equal>
class hashgraph_set : public detail::hashgraph::static_facade<detail::hashgraph::static_table<
                          Backend, detail::hashgraph::key_slots<Key>,
                          detail::hashgraph::key_slots<Key>, Hash, KeyEqual, Segments>> {
  using slots = detail::hashgraph::key_slots<Key>;
  using facade = detail::hashgraph::static_facade<
      detail::hashgraph::static_table<Backend, slots, slots, Hash, KeyEqual, Segments>>;
  using facade::run_probe;
  using facade::table_;
  using typename facade::view_type;

 public:
  using key_type = Key;
  using ref_type = hashgraph_set_ref<view_type>;
  using facade::size;
  using typename facade::backend_type;
  using typename facade::stream_type;

  explicit hashgraph_set(hashgraph_options options = {}, Hash hash = {}, KeyEqual equal = {})
      : facade(options, hash, equal) {}

  /// The device-side API for searches in the caller's kernels (hashgraph_set_ref).
  ref_type ref() const { return this->template make_ref<ref_type>(); }

  /// Replaces the contents with keys[0, n).
  void build(const Key* keys, std::uint64_t n, stream_type stream = {}) {
    table_.build(input(keys), n, stream);
  }
  void build(std::span<const Key> keys) {
    const detail::staged<Backend, Key> staged(keys);
    build(staged.data(), keys.size());
  }

  /// Adds keys[0, n) by rebuilding the table with them (Alg. 8).
  void insert(const Key* keys, std::uint64_t n, stream_type stream = {}) {
    table_.insert(input(keys), n, stream);
  }
  void insert(std::span<const Key> keys) {
    const detail::staged<Backend, Key> staged(keys);
    insert(staged.data(), keys.size());
  }

  /// flags[i] = whether keys[i] is in the set.
  void contains(const Key* keys, std::uint64_t n, bool* flags,
                hashgraph_probe probe = hashgraph_probe::standard, stream_type stream = {}) const {
    typename Backend::template buffer<std::uint64_t> order;
    if (probe == hashgraph_probe::binned) order = table_.binned_order(keys, n, stream);
    run_probe(
        detail::hashgraph::probe_contains<view_type, Key>{
            table_.view(), keys, probe == hashgraph_probe::binned ? order.data() : nullptr, flags},
        n, stream);
  }
  std::vector<bool> contains(std::span<const Key> keys,
                             hashgraph_probe probe = hashgraph_probe::standard) const {
    const detail::staged<Backend, Key> staged(keys);
    const detail::staged<Backend, bool> flags(keys.size());
    contains(staged.data(), keys.size(), flags.data(), probe);
    auto host = Backend::template allocate_host<bool>(keys.size());
    if (!keys.empty()) Backend::copy_to_host(host.data(), flags.data(), keys.size(), {});
    return std::vector<bool>(host.data(), host.data() + keys.size());
  }

  /// Every key, in bucket order.
  std::vector<Key> retrieve_all() const {
    auto keys = Backend::template allocate<Key>(size(), {});
    table_.gather_into(slots{keys.data()}, {});
    std::vector<Key> out(size());
    if (!out.empty()) Backend::copy_to_host(out.data(), keys.data(), out.size(), {});
    return out;
  }

 private:
  static slots input(const Key* keys) { return {const_cast<Key*>(keys)}; }
};

template <class Key, class Value, class Backend, class Hash = hashgraph_hash<Key>,
          segment_layout Segments = segment_layout::csr,
          pair_layout Pairs = pair_layout::array_of_structures,
          class KeyEqual = detail::hashgraph::key_equal>
class hashgraph_map : public detail::hashgraph::static_facade<detail::hashgraph::static_table<
                          Backend,
                          std::conditional_t<Pairs == pair_layout::array_of_structures,
                                             detail::hashgraph::aos_slots<Key, Value>,
                                             detail::hashgraph::soa_slots<Key, Value>>,
                          detail::hashgraph::soa_slots<Key, Value>, Hash, KeyEqual, Segments>> {
  using slots = std::conditional_t<Pairs == pair_layout::array_of_structures,
                                   detail::hashgraph::aos_slots<Key, Value>,
                                   detail::hashgraph::soa_slots<Key, Value>>;
  using input_slots = detail::hashgraph::soa_slots<Key, Value>;
  using facade = detail::hashgraph::static_facade<
      detail::hashgraph::static_table<Backend, slots, input_slots, Hash, KeyEqual, Segments>>;
  using facade::run_probe;
  using facade::table_;
  using typename facade::view_type;

 public:
  using key_type = Key;
  using mapped_type = Value;
  using ref_type = hashgraph_map_ref<view_type>;
  using facade::size;
  using typename facade::backend_type;
  using typename facade::stream_type;

  explicit hashgraph_map(hashgraph_options options = {}, Hash hash = {}, KeyEqual equal = {})
      : facade(options, hash, equal) {}

  /// The device-side API for searches in the caller's kernels (hashgraph_map_ref).
  ref_type ref() const { return this->template make_ref<ref_type>(); }

  /// Replaces the contents with the pairs (keys[i], values[i]), i < n.
  void build(const Key* keys, const Value* values, std::uint64_t n, stream_type stream = {}) {
    table_.build(input(keys, values), n, stream);
  }
  void build(std::span<const Key> keys, std::span<const Value> values) {
    check_sizes(keys.size(), values.size());
    const detail::staged<Backend, Key> staged_keys(keys);
    const detail::staged<Backend, Value> staged_values(values);
    build(staged_keys.data(), staged_values.data(), keys.size());
  }

  /// Adds the pairs whose keys are absent by rebuilding (Alg. 8); a stored
  /// key keeps its value.
  void insert(const Key* keys, const Value* values, std::uint64_t n, stream_type stream = {}) {
    table_.insert(input(keys, values), n, stream);
  }
  void insert(std::span<const Key> keys, std::span<const Value> values) {
    check_sizes(keys.size(), values.size());
    const detail::staged<Backend, Key> staged_keys(keys);
    const detail::staged<Backend, Value> staged_values(values);
    insert(staged_keys.data(), staged_values.data(), keys.size());
  }

  /// values[i] = the value of keys[i] and statuses[i] = found, or
  /// statuses[i] = not_found (values[i] untouched).
  void find(const Key* keys, std::uint64_t n, Value* values, status* statuses,
            hashgraph_probe probe = hashgraph_probe::standard, stream_type stream = {}) const {
    typename Backend::template buffer<std::uint64_t> order;
    if (probe == hashgraph_probe::binned) order = table_.binned_order(keys, n, stream);
    run_probe(
        detail::hashgraph::probe_find<view_type, Key, Value>{
            table_.view(), keys, probe == hashgraph_probe::binned ? order.data() : nullptr, values,
            statuses},
        n, stream);
  }
  struct find_result {
    std::vector<Value> values;
    std::vector<status> statuses;
  };
  find_result find(std::span<const Key> keys,
                   hashgraph_probe probe = hashgraph_probe::standard) const {
    const detail::staged<Backend, Key> staged(keys);
    const detail::staged<Backend, Value> values(keys.size());
    const detail::staged<Backend, status> statuses(keys.size());
    find(staged.data(), keys.size(), values.data(), statuses.data(), probe);
    return {values.to_vector(), statuses.to_vector()};
  }

  /// Every pair, in bucket order.
  std::vector<key_value_pair<Key, Value>> retrieve_all() const {
    auto keys = Backend::template allocate<Key>(size(), {});
    auto values = Backend::template allocate<Value>(size(), {});
    table_.gather_into(input_slots{keys.data(), values.data()}, {});
    std::vector<Key> host_keys(size());
    std::vector<Value> host_values(size());
    if (size() > 0) {
      Backend::copy_to_host(host_keys.data(), keys.data(), size(), {});
      Backend::copy_to_host(host_values.data(), values.data(), size(), {});
    }
    std::vector<key_value_pair<Key, Value>> out(size());
    for (std::uint64_t i = 0; i < size(); ++i) out[i] = {host_keys[i], host_values[i]};
    return out;
  }

 private:
  static input_slots input(const Key* keys, const Value* values) {
    return {const_cast<Key*>(keys), const_cast<Value*>(values)};
  }
  static void check_sizes(std::size_t keys, std::size_t values) {
    if (keys != values)
      throw std::invalid_argument("gpuhash: hashgraph_map needs one value per key (" +
                                  std::to_string(keys) + " keys, " + std::to_string(values) +
                                  " values)");
  }
};

}  // namespace gpuhash
