#pragma once
// Dynamic HashGraph (hashgraph-tnl-thesis.txt, 2.4.3): HashGraph's buckets,
// laid out one after another by segments, each built with e empty slots
// beyond its keys (Alg. 9); insert, find and delete probe linearly from the
// key's bucket over the following ones (Alg. 10 to 12). Since the buckets are
// adjacent in every layout, "the next bucket" is simply the next slot, so the
// per-key steps are linear probing's (detail/linear_probing/view.hpp) with
// the probe starting at the bucket's first slot instead of at a hashed slot.
//
// That also fixes the thesis' race (its 3.4.3: a find could see a key whose
// value was not yet stored): a 32/32 pair is one word written by one CAS, and
// a 64/64 pair is published by the busy-then-publish protocol of
// slot_layouts.hpp, so a find sees a key only with its value.
//
// Growth is the thesis' rehash-everything (Alg. 8 with Alg. 9): the live
// pairs are rebuilt into new buckets, each with room for its keys plus e.
//
// Declarations only; members are in dynamic_engine_impl.hpp, compiled into
// the library for 32/32 and 64/64 pairs, each layout, on each backend.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "gpuhash/detail/batch.hpp"
#include "gpuhash/detail/counters.hpp"
#include "gpuhash/detail/linear_probing/view.hpp"
#include "gpuhash/detail/segments.hpp"
#include "gpuhash/hash.hpp"

namespace gpuhash::detail::hashgraph {

/// A key's probe starts at the first slot of its bucket.
template <class Key, class SegmentsView>
struct bucket_home {
  seeded_hash<Key> hash;
  std::uint64_t buckets = 1;
  SegmentsView segments;
  GPUHASH_HD std::uint64_t operator()(Key key) const {
    return segments.begin(reduce_range(hash(key), buckets));
  }
};

template <class Key, class Value, class Backend, segment_layout Layout>
class dynamic_engine {
  static_assert((sizeof(Key) == 4 && sizeof(Value) == 4) ||
                    (sizeof(Key) == 8 && sizeof(Value) == 8),
                "gpuhash::hashgraph_dynamic_map stores 32/32 or 64/64-bit key/value pairs: use "
                "std::uint32_t or std::uint64_t for both");

 public:
  using key_type = Key;
  using mapped_type = Value;
  using backend_type = Backend;
  using stream_type = typename Backend::stream_type;
  using segments_type = typename segments_for<Backend, Layout>::type;
  using home_type = bucket_home<Key, typename segments_type::view_type>;
  using view_type = linear_probing::view_for<Key, Value, home_type>;
  using slot_type = typename view_type::slot_type;

  static constexpr std::string_view name = Layout == segment_layout::csr ? "hashgraph"
                                           : Layout == segment_layout::ellpack
                                               ? "hashgraph_ellpack"
                                               : "hashgraph_sliced_ellpack";
  /// The thesis' e: empty slots each bucket gets beyond its keys at a build.
  static constexpr std::uint32_t empty_slots_per_bucket = 1;
  /// Half the slots: after growth there is about one bucket per key, the
  /// thesis' choice of bucket count (m = n).
  static constexpr float default_max_load_factor = 0.5f;
  /// Erase leaves a tombstone that keeps its slot occupied until a rehash.
  static constexpr bool erase_frees_slot = false;

  static constexpr bool is_reserved(Key key) noexcept { return view_type::is_reserved(key); }
  static constexpr std::span<const Key> reserved_keys() noexcept {
    return view_type::reserved_keys;
  }

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
    return slot_count_ * sizeof(slot_type) + segments_.memory_bytes();
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
  view_type view() const {
    return view_type(const_cast<slot_type*>(slots_.data()), slot_count_,
                     home_type{seeded_hash<Key>{seed_}, buckets_, segments_.view()});
  }

 private:
  /// Alg. 9: `buckets` buckets, each with room for its keys among keys[0, n)
  /// (which must be distinct) plus e, and the pairs in them.
  void build(const Key* keys, const Value* values, std::uint64_t n, std::uint64_t buckets,
             stream_type stream);

  segments_type segments_;
  typename Backend::template buffer<slot_type> slots_;
  std::size_t capacity_ = 0;
  std::size_t slot_count_ = 0;
  std::uint64_t buckets_ = 1;
  std::uint64_t seed_ = 0;
};

}  // namespace gpuhash::detail::hashgraph
