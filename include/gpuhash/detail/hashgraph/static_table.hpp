#pragma once
// Static HashGraph (hashgraph-tnl-thesis.txt, 2.2 and 3.4): a batch of
// elements sorted by bucket into one flat array, indexed by segments. The
// three builds (Alg. 1, 2 and 4), the two bulk probes (Alg. 6 and 7) and the
// rehash-everything insert (Alg. 8), written once for the set and both map
// layouts and run on either backend through exec. The public classes are in
// gpuhash/hashgraph.hpp.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "gpuhash/detail/exec.hpp"
#include "gpuhash/detail/hashgraph/slots.hpp"
#include "gpuhash/detail/hashgraph/steps.hpp"
#include "gpuhash/detail/segments.hpp"

namespace gpuhash {

/// How a static HashGraph sorts its elements into buckets.
enum class hashgraph_build {
  direct,  ///< Alg. 1: count per bucket, scan, place with an atomic cursor
  binned,  ///< Alg. 2: first group the input by bins of nearby buckets
  sorted,  ///< Alg. 4: a stable radix sort by bucket (CUB on the GPU)
};

/// How a batch of queries walks the table.
enum class hashgraph_probe {
  standard,  ///< Alg. 6: queries in their own order
  binned,    ///< Alg. 7 (Probe-New): queries grouped by bins of nearby buckets
};

struct hashgraph_options {
  hashgraph_build build = hashgraph_build::binned;
  /// Buckets per stored element; the thesis sets buckets = elements (1.0).
  double buckets_per_key = 1.0;
  /// Buckets per bin in the binned build and Probe-New: the bins' range of
  /// bucket offsets should stay in cache while a bin is processed.
  std::uint64_t buckets_per_bin = 4096;
};

}  // namespace gpuhash

namespace gpuhash::detail::hashgraph {

struct key_equal {
  template <class Key>
  GPUHASH_HD bool operator()(const Key& a, const Key& b) const {
    return a == b;
  }
};

/// Slots: the table's element view (slots.hpp); Input: the view the caller's
/// arrays and the build's scratch copies are read through.
template <class Backend, class Slots, class Input, class Hash, class KeyEqual,
          segment_layout Layout>
class static_table {
 public:
  using key_type = typename Slots::key_type;
  using backend_type = Backend;
  using stream_type = typename Backend::stream_type;
  using segments_type = typename segments_for<Backend, Layout>::type;
  using view_type = table_view<Slots, typename segments_type::view_type, Hash, KeyEqual>;

  static_table(hashgraph_options options, Hash hash, KeyEqual equal)
      : options_(options), hash_(hash), equal_(equal) {
    if (!(options.buckets_per_key > 0.0))
      throw std::invalid_argument("gpuhash: hashgraph_options::buckets_per_key must be positive");
    if (options.buckets_per_bin == 0)
      throw std::invalid_argument("gpuhash: hashgraph_options::buckets_per_bin must be positive");
  }

  /// Replaces the contents with in[0, n); of equal keys, one is kept (the
  /// first in input order with the sorted build).
  void build(Input in, std::uint64_t n, stream_type stream) {
    const std::uint64_t buckets = std::max<std::uint64_t>(
        1,
        static_cast<std::uint64_t>(std::ceil(static_cast<double>(n) * options_.buckets_per_key)));
    if (buckets > max_buckets || n > max_buckets)
      throw std::length_error("gpuhash: a HashGraph holds at most 2^32 - 1 elements and buckets (" +
                              std::to_string(n) + " elements, " + std::to_string(buckets) +
                              " buckets asked for)");
    // A build that throws (out of memory) leaves the table as it was.
    segments_type old_segments = std::move(segments_);
    slot_buffers<Backend, Slots> old_slots = std::move(slots_);
    const std::uint64_t old_size = size_;
    const std::uint64_t old_buckets = buckets_;
    try {
      buckets_ = buckets;
      auto counts = zeroed<std::uint32_t>(buckets_, stream);
      switch (options_.build) {
        case hashgraph_build::direct: place_directly(in, n, counts.data(), stream); break;
        case hashgraph_build::binned: place_binned(in, n, counts.data(), stream); break;
        case hashgraph_build::sorted: place_sorted_by_bucket(in, n, counts.data(), stream); break;
      }
      keep_distinct_keys(n, counts, stream);
      if constexpr (Layout != segment_layout::csr) pad(in, counts.data(), stream);
    } catch (...) {
      segments_ = std::move(old_segments);
      slots_ = std::move(old_slots);
      size_ = old_size;
      buckets_ = old_buckets;
      throw;
    }
  }

  /// Alg. 8: rebuilds with the stored elements and those of in[0, n) whose
  /// keys are absent (a stored key keeps its value).
  void insert(Input in, std::uint64_t n, stream_type stream) {
    auto flags = Backend::template allocate<std::uint64_t>(n, stream);
    auto ranks = Backend::template allocate<std::uint64_t>(n, stream);
    exec<Backend>::for_each(n, mark_absent<view_type, key_type>{view(), in.keys, flags.data()},
                            stream);
    const std::uint64_t added =
        exec<Backend>::exclusive_scan(flags.data(), n, ranks.data(), stream);
    slot_buffers<Backend, Input> combined(size_ + added, stream);
    gather_into(combined.view(), stream);
    exec<Backend>::for_each(
        n, append_flagged<Input, Input>{in, combined.view(), flags.data(), ranks.data(), size_},
        stream);
    build(combined.view(), size_ + added, stream);
  }

  /// Every stored element, written to out[0, size()).
  template <class Target>
  void gather_into(Target out, stream_type stream) const {
    auto starts = Backend::template allocate<std::uint64_t>(buckets_, stream);
    exec<Backend>::for_each(buckets_, count_stored<view_type>{view(), starts.data()}, stream);
    const std::uint64_t stored =
        exec<Backend>::exclusive_scan(starts.data(), buckets_, starts.data(), stream);
    // Padding is told apart by key equality (table_view::is_stored); a key
    // type whose == is not an equivalence (a float NaN) would count padding
    // as elements and overrun `out`.
    if (stored != size_)
      throw std::logic_error("gpuhash: HashGraph found " + std::to_string(stored) +
                             " stored elements where it holds " + std::to_string(size_) +
                             ": the key type's == must be an equivalence relation");
    exec<Backend>::for_each(buckets_, gather_stored<view_type, Target>{view(), out, starts.data()},
                            stream);
  }

  /// The order in which Probe-New visits queries keys[0, n): grouped by bins
  /// of nearby buckets (the partial sort the thesis suggests for Alg. 7).
  typename Backend::template buffer<std::uint64_t> binned_order(const key_type* keys,
                                                                std::uint64_t n,
                                                                stream_type stream) const {
    // A stable radix sort by bin: the same order as Alg. 2's counting pass
    // and scatter, without their atomics on shared bin counters (measured
    // on both backends: docs/results/hashgraph.md, Probe-New).
    const key_slots<key_type> queries{const_cast<key_type*>(keys)};
    const std::uint64_t bins = (buckets_ + options_.buckets_per_bin - 1) / options_.buckets_per_bin;
    auto bin_numbers = Backend::template allocate<std::uint32_t>(n, stream);
    auto sorted_bins = Backend::template allocate<std::uint32_t>(n, stream);
    auto order = Backend::template allocate<std::uint64_t>(n, stream);
    exec<Backend>::for_each(
        n, bucket_ids<key_slots<key_type>, Hash>{queries, {hash_, bins}, bin_numbers.data()},
        stream);
    const int bits = std::max(1, static_cast<int>(std::bit_width(bins - 1)));
    exec<Backend>::sort_by_key(bin_numbers.data(), n, sorted_bins.data(), order.data(), stream,
                               bits);
    return order;
  }

  view_type view() const { return {slots_.view(), segments_.view(), {hash_, buckets_}, equal_}; }
  std::uint64_t size() const noexcept { return size_; }
  std::uint64_t bucket_count() const noexcept { return buckets_; }
  /// Slots the segments allocate, padding included (the thesis' Fig. 4.1).
  std::uint64_t slot_count() const noexcept { return segments_.storage_size(); }
  std::size_t memory_bytes() const noexcept {
    return slots_.memory_bytes() + segments_.memory_bytes();
  }
  const hashgraph_options& options() const noexcept { return options_; }

 private:
  static constexpr std::uint64_t max_buckets = (std::uint64_t{1} << 32) - 1;

  template <class T>
  static typename Backend::template buffer<T> zeroed(std::uint64_t n, stream_type stream) {
    auto buffer = Backend::template allocate<T>(n, stream);
    if (n > 0) Backend::fill_bytes(buffer.data(), n * sizeof(T), 0, stream);
    return buffer;
  }

  /// Alg. 1: counts, segments from the counts, then each element to its place.
  template <class Source>
  void place_directly(Source in, std::uint64_t n, std::uint32_t* counts, stream_type stream) {
    const bucket_of<Hash> bucket{hash_, buckets_};
    exec<Backend>::for_each(n, count_by_bucket<Source, Hash>{in, bucket, counts}, stream);
    segments_ = segments_type(counts, buckets_, stream);
    slots_ = slot_buffers<Backend, Slots>(segments_.storage_size(), stream);
    auto cursors = zeroed<std::uint32_t>(buckets_, stream);
    exec<Backend>::for_each(n,
                            place_by_bucket<Source, Slots, Hash, typename segments_type::view_type>{
                                in, slots_.view(), bucket, segments_.view(), cursors.data()},
                            stream);
  }

  /// Alg. 2: the input grouped by bins into a scratch copy, then Alg. 1 on it.
  void place_binned(Input in, std::uint64_t n, std::uint32_t* counts, stream_type stream) {
    slot_buffers<Backend, Input> grouped(n, stream);
    group_by_bin(in, n, grouped.view(), stream);
    place_directly(grouped.view(), n, counts, stream);
  }

  /// Element i of in[0, n) to out, grouped by bins of buckets_per_bin buckets.
  template <class Source, class Target>
  void group_by_bin(Source in, std::uint64_t n, Target out, stream_type stream) const {
    const std::uint64_t bins = (buckets_ + options_.buckets_per_bin - 1) / options_.buckets_per_bin;
    const bucket_of<Hash> bin{hash_, bins};
    auto bin_counts = zeroed<std::uint32_t>(bins, stream);
    exec<Backend>::for_each(n, count_by_bucket<Source, Hash>{in, bin, bin_counts.data()}, stream);
    const csr_segments<Backend> bin_segments(bin_counts.data(), bins, stream);
    auto cursors = zeroed<std::uint32_t>(bins, stream);
    exec<Backend>::for_each(n,
                            place_by_bucket<Source, Target, Hash, csr_view>{
                                in, out, bin, bin_segments.view(), cursors.data()},
                            stream);
  }

  /// Alg. 4: counts and segments as in Alg. 1, then the elements in the order
  /// of a stable sort by bucket.
  void place_sorted_by_bucket(Input in, std::uint64_t n, std::uint32_t* counts,
                              stream_type stream) {
    const bucket_of<Hash> bucket{hash_, buckets_};
    auto ids = Backend::template allocate<std::uint32_t>(n, stream);
    auto sorted_ids = Backend::template allocate<std::uint32_t>(n, stream);
    auto order = Backend::template allocate<std::uint64_t>(n, stream);
    exec<Backend>::for_each(n, bucket_ids<Input, Hash>{in, bucket, ids.data()}, stream);
    const int bits = std::max(1, static_cast<int>(std::bit_width(buckets_ - 1)));
    exec<Backend>::sort_by_key(ids.data(), n, sorted_ids.data(), order.data(), stream, bits);
    exec<Backend>::for_each(n, count_by_bucket<Input, Hash>{in, bucket, counts}, stream);
    segments_ = segments_type(counts, buckets_, stream);
    slots_ = slot_buffers<Backend, Slots>(segments_.storage_size(), stream);
    using segments_view = typename segments_type::view_type;
    if constexpr (Layout == segment_layout::csr) {
      exec<Backend>::for_each(n,
                              place_sorted<Input, Slots, csr_view, segments_view>{
                                  in, slots_.view(), order.data(), sorted_ids.data(),
                                  segments_.view(), segments_.view()},
                              stream);
    } else {
      const csr_segments<Backend> ranks(counts, buckets_, stream);
      exec<Backend>::for_each(
          n,
          place_sorted<Input, Slots, csr_view, segments_view>{
              in, slots_.view(), order.data(), sorted_ids.data(), ranks.view(), segments_.view()},
          stream);
    }
  }

  /// A table holds each key once: where the input repeated a key, the
  /// buckets are rebuilt from their first occurrences.
  void keep_distinct_keys(std::uint64_t n, typename Backend::template buffer<std::uint32_t>& counts,
                          stream_type stream) {
    using segments_view = typename segments_type::view_type;
    auto distinct = Backend::template allocate<std::uint32_t>(buckets_, stream);
    auto duplicates = zeroed<std::uint64_t>(1, stream);
    const count_distinct<Slots, segments_view, KeyEqual> counting{
        slots_.view(), segments_.view(), equal_, counts.data(), distinct.data(), duplicates.data()};
    exec<Backend>::for_each(buckets_, counting, stream);
    std::uint64_t repeated = 0;
    Backend::copy_to_host(&repeated, duplicates.data(), 1, stream);
    size_ = n - repeated;
    if (repeated == 0) return;
    segments_type kept_segments(distinct.data(), buckets_, stream);
    slot_buffers<Backend, Slots> kept_slots(kept_segments.storage_size(), stream);
    exec<Backend>::for_each(buckets_,
                            keep_distinct<Slots, segments_view, KeyEqual, segments_view>{
                                counting, kept_slots.view(), kept_segments.view()},
                            stream);
    segments_ = std::move(kept_segments);
    slots_ = std::move(kept_slots);
    counts = std::move(distinct);
  }

  /// Ellpack's and Sliced Ellpack's padding (see fill_padding).
  void pad(Input in, const std::uint32_t* counts, stream_type stream) {
    if (size_ == 0) return;
    key_type first{};
    Backend::copy_to_host(&first, in.keys, 1, stream);
    const std::uint64_t spare_bucket = bucket_of<Hash>{hash_, buckets_}(first);
    exec<Backend>::for_each(buckets_,
                            fill_padding<Slots, typename segments_type::view_type>{
                                slots_.view(), segments_.view(), counts, spare_bucket},
                            stream);
  }

  hashgraph_options options_;
  Hash hash_;
  KeyEqual equal_;
  segments_type segments_;
  slot_buffers<Backend, Slots> slots_;
  std::uint64_t size_ = 0;
  std::uint64_t buckets_ = 1;
};

}  // namespace gpuhash::detail::hashgraph
