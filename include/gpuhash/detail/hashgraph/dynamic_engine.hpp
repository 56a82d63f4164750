#pragma once
// Dynamic HashGraph (hashgraph-tnl-thesis.txt, 2.4.3): HashGraph's buckets,
// laid out one after another by segments, each built with e empty slots
// beyond its keys (Alg. 9); insert, find and delete probe linearly from the
// key's bucket over the following ones (Alg. 10 to 12). Since the buckets are
// adjacent in every layout, "the next bucket" is simply the next slot, so the
// per-key steps are linear probing's (detail/linear_probing/view.hpp) with
// the probe starting at the bucket's first slot instead of at a hashed slot.
//
// Keys and values of the user's types are stored as words, with the hash
// and key-equality policies, as linear probing stores them
// (linear_probing/table_views.hpp); a key's bucket is its policy hash
// reduced onto the buckets.
//
// That also fixes the thesis' race (its 3.4.3: a find could see a key whose
// value was not yet stored): a 4/4-byte pair is one word written by one CAS,
// every other pair is published by the busy-then-publish protocol of
// slot_layouts.hpp, and a wide value is written under its slot's version
// (linear_probing/wide_view.hpp), so a find sees a key only with its value.
//
// Growth is the thesis' rehash-everything (Alg. 8 with Alg. 9): the live
// pairs are rebuilt into new buckets, each with room for its keys plus e.
//
// Declarations only; members are in dynamic_engine_impl.hpp, compiled into
// the library for 32/32 and 64/64-bit unsigned pairs with the default
// policies, each layout, on each backend; other types are header-only
// (gpuhash/hashgraph_dynamic_map_impl.hpp).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "gpuhash/detail/batch.hpp"
#include "gpuhash/detail/counters.hpp"
#include "gpuhash/detail/hashgraph/steps.hpp"
#include "gpuhash/detail/launch_share.hpp"
#include "gpuhash/detail/linear_probing/table_views.hpp"
#include "gpuhash/detail/segments.hpp"
#include "gpuhash/detail/typed_view.hpp"
#include "gpuhash/key_types.hpp"

namespace gpuhash::detail::hashgraph {

/// A key's probe starts at the first slot of its bucket (keys as their
/// words: gpuhash/key_types.hpp).
template <class Key, class Hash, class SegmentsView>
struct bucket_home {
  bucket_of<policy_hash<Key, Hash>> bucket;
  SegmentsView segments;
  GPUHASH_HD std::uint64_t operator()(word_of<Key> word) const {
    return segments.begin(bucket(word));
  }
};

template <class Key, class Value, class Backend, segment_layout Layout,
          class Hash = key_bytes_hash<Key>, class KeyEqual = bitwise_equal<Key>>
class dynamic_engine {
  static_assert(is_storable_pair_v<Key, Value>,
                "gpuhash::hashgraph_dynamic_map stores keys of 4, 8 or 16 bytes and values of 4, "
                "8 or 16 bytes or wider ones of whole 4-byte words, of trivially copyable types "
                "(std::uint32_t, std::uint64_t, or a type of your own: see "
                "gpuhash/key_types.hpp)");

 public:
  using key_type = Key;
  using mapped_type = Value;
  using backend_type = Backend;
  using stream_type = typename Backend::stream_type;
  using segments_type = typename segments_for<Backend, Layout>::type;
  using home_type = bucket_home<Key, Hash, typename segments_type::view_type>;

 private:
  using views = linear_probing::table_views<Key, Value, home_type, KeyEqual>;
  using key_word = typename views::key_word;
  using value_word = typename views::value_word;
  using bucket_type = bucket_of<policy_hash<Key, Hash>>;

 public:
  /// The per-key algorithms over words; batches and refs of other key and
  /// value types go through typed_view.
  using word_view_type = typename views::word_view_type;
  using view_type = typename views::view_type;
  using slot_type = typename word_view_type::slot_type;

  static constexpr std::string_view name = Layout == segment_layout::csr ? "hashgraph"
                                           : Layout == segment_layout::ellpack
                                               ? "hashgraph_ellpack"
                                               : "hashgraph_sliced_ellpack";
  static constexpr segment_layout layout = Layout;
  /// The thesis' e: empty slots each bucket gets beyond its keys at a build.
  static constexpr std::uint32_t empty_slots_per_bucket = 1;
  /// Half the slots: after growth there is about one bucket per key, the
  /// thesis' choice of bucket count (m = n).
  static constexpr float default_max_load_factor = 0.5f;
  /// Erase leaves a tombstone that keeps its slot occupied until a rehash.
  static constexpr bool erase_frees_slot = false;
  /// The GPU's threads in flight for batches: linear probing's share, its
  /// slots being linear probing's (launch_share.hpp).
  static constexpr launch_share batch_share{6};

  static constexpr bool is_reserved(Key key) noexcept { return views::is_reserved(key); }
  static constexpr std::span<const Key> reserved_keys() noexcept { return views::reserved_keys; }

  /// An empty table of at least min_capacity slots (min_capacity / e buckets).
  dynamic_engine(std::size_t min_capacity, std::uint64_t seed, stream_type stream);

  /// The slots the buckets were built with: their keys at the last build
  /// plus e each. Ellpack and Sliced Ellpack pad buckets beyond that; the
  /// padding is extra room for probes, counted in slot_count and memory_bytes
  /// but not here, so that growth decisions do not depend on how unevenly the
  /// last build filled the buckets.
  std::size_t capacity() const noexcept { return capacity_; }
  /// Slots allocated, padding included.
  std::size_t slot_count() const noexcept { return slot_count_; }
  std::size_t memory_bytes() const noexcept {
    return storage_slots<word_view_type>(slot_count_) * sizeof(slot_type) +
           segments_.memory_bytes();
  }
  std::uint64_t bucket_count() const noexcept { return buckets_; }

  void execute_async(const batch<Key, Value>& args, table_counters* counters, stream_type stream);
  /// Rebuilds the table (Alg. 9) with its live pairs and at least
  /// min_capacity slots, dropping tombstones.
  void rehash(std::size_t min_capacity, stream_type stream);
  void clear(stream_type stream);
  /// Writes the `count` stored pairs (count must equal the table's size).
  void retrieve_all(Key* keys, Value* values, std::size_t count, stream_type stream) const;
  /// Probe-New (the thesis' Alg. 7) for this map: finds keys[0, n) in the
  /// order of their buckets (a stable radix sort by bins of 4096 buckets),
  /// writing each answer at its query's position, as basic_map::find does.
  /// Reached through table.engine(); no batch may run at the same time.
  void find_in_bucket_order(const Key* keys, std::size_t n, Value* values, status* statuses,
                            stream_type stream) const;

  /// The design's per-key algorithms over this table's storage, for batches
  /// and refs (map_ref.hpp); valid until the storage moves (rehash).
  view_type view() const { return view_type(word_view()); }

 private:
  word_view_type word_view() const {
    return word_view_type(const_cast<slot_type*>(slots_.data()), slot_count_,
                          home_type{bucket(buckets_), segments_.view()});
  }
  /// A key word's bucket among `buckets` (or bin among as many bins).
  bucket_type bucket(std::uint64_t buckets) const { return {{Hash{}, seed_}, buckets}; }

  /// Alg. 9: `buckets` buckets, each with room for its keys among keys[0, n)
  /// (which must be distinct) plus e, and the pairs in them.
  void build(const key_word* keys, const value_word* values, std::uint64_t n, std::uint64_t buckets,
             stream_type stream);

  segments_type segments_;
  typename Backend::template buffer<slot_type> slots_;
  std::size_t capacity_ = 0;
  std::size_t slot_count_ = 0;
  std::uint64_t buckets_ = 1;
  std::uint64_t seed_ = 0;
};

}  // namespace gpuhash::detail::hashgraph
