#pragma once
// The per-element and per-bucket steps of static HashGraph
// (hashgraph-tnl-thesis.txt, 2.2.3 to 2.2.5), each a trivially copyable
// functor that exec<Backend>::for_each runs on either backend. The table
// (static_table.hpp) strings them together into the builds and probes.

#include <cstdint>
#include <type_traits>

#include "gpuhash/detail/atomic.hpp"
#include "gpuhash/hash.hpp"
#include "gpuhash/host_device.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash::detail::hashgraph {

/// h(x) in [0, buckets): the user's hash reduced without a division. A hash
/// of 32 bits or fewer is scaled as a fraction of its own width, so that
/// such hashes reach every bucket too. Monotone in the hash: with fewer buckets (bins) it
/// groups elements whose buckets are near each other, which is what the
/// binned build (Alg. 2) and Probe-New (Alg. 7) need.
template <class Hash>
struct bucket_of {
  Hash hash;
  std::uint64_t buckets = 1;

  template <class Key>
  GPUHASH_HD std::uint64_t operator()(const Key& key) const {
    const auto h = hash(key);
    static_assert(std::is_unsigned_v<decltype(h)>,
                  "gpuhash: a HashGraph hash must return an unsigned integer");
    if constexpr (sizeof(h) <= 4)
      return (static_cast<std::uint64_t>(h) * buckets) >> (8 * sizeof(h));
    else
      return reduce_range(static_cast<std::uint64_t>(h), buckets);
  }
};

/// counts[h(x)] += 1 for every element x: Alg. 1 lines 4-5 (with bins for
/// buckets, Alg. 2 lines 5-7).
template <class Source, class Hash>
struct count_by_bucket {
  Source in;
  bucket_of<Hash> bucket;
  std::uint32_t* counts;
  GPUHASH_HD void operator()(std::uint64_t i) const {
    fetch_add_relaxed<std::uint32_t>(&counts[bucket(in.key(i))], 1U);
  }
};

/// Element i goes to the next free place of its bucket's segment: Alg. 1
/// lines 11-13 (Alg. 2 lines 12-15 with bins). cursors start at zero.
template <class Source, class Target, class Hash, class Segments>
struct place_by_bucket {
  Source in;
  Target out;
  bucket_of<Hash> bucket;
  Segments segments;
  std::uint32_t* cursors;
  GPUHASH_HD void operator()(std::uint64_t i) const {
    const std::uint64_t b = bucket(in.key(i));
    const std::uint32_t local = fetch_add_relaxed<std::uint32_t>(&cursors[b], 1U);
    out.put(segments.at(b, local), in, i);
  }
};

/// ids[i] = h(x_i): the sort key of the generalized build (Alg. 4).
template <class Source, class Hash>
struct bucket_ids {
  Source in;
  bucket_of<Hash> bucket;
  std::uint32_t* ids;
  GPUHASH_HD void operator()(std::uint64_t i) const {
    ids[i] = static_cast<std::uint32_t>(bucket(in.key(i)));
  }
};

/// The k-th element in bucket order (order[k], in bucket sorted_ids[k]) to its
/// segment: Alg. 4 line 9. `starts` gives each bucket's first rank (a CSR
/// over the same counts; for the CSR layout it is the segments themselves).
template <class Source, class Target, class Starts, class Segments>
struct place_sorted {
  Source in;
  Target out;
  const std::uint64_t* order;
  const std::uint32_t* sorted_ids;
  Starts starts;
  Segments segments;
  GPUHASH_HD void operator()(std::uint64_t k) const {
    const std::uint64_t b = sorted_ids[k];
    out.put(segments.at(b, k - starts.begin(b)), in, order[k]);
  }
};

/// How many distinct keys bucket b holds: an element counts unless an equal
/// key is before it in the bucket. Buckets hold O(1) elements on average
/// (the thesis' Observation 2.22), so the quadratic scan is short.
template <class Slots, class Segments, class KeyEqual>
struct count_distinct {
  Slots slots;
  Segments segments;
  KeyEqual equal;
  const std::uint32_t* counts;
  std::uint32_t* distinct;
  std::uint64_t* duplicates;  ///< total of elements that repeat a key
  GPUHASH_HD void operator()(std::uint64_t b) const {
    const std::uint64_t begin = segments.begin(b);
    const std::uint32_t count = counts[b];
    std::uint32_t unique = 0;
    for (std::uint32_t j = 0; j < count; ++j) unique += first_of_its_key(begin, j) ? 1U : 0U;
    distinct[b] = unique;
    if (unique != count)
      fetch_add_relaxed<std::uint64_t>(duplicates, std::uint64_t{count} - unique);
  }
  GPUHASH_HD bool first_of_its_key(std::uint64_t begin, std::uint32_t j) const {
    for (std::uint32_t k = 0; k < j; ++k)
      if (equal(slots.key(begin + k), slots.key(begin + j))) return false;
    return true;
  }
};

/// Copies bucket b's distinct elements, in order, to its new segment.
template <class Slots, class Segments, class KeyEqual, class NewSegments>
struct keep_distinct {
  count_distinct<Slots, Segments, KeyEqual> old;
  Slots out;
  NewSegments segments;
  GPUHASH_HD void operator()(std::uint64_t b) const {
    const std::uint64_t begin = old.segments.begin(b);
    std::uint64_t next = segments.begin(b);
    for (std::uint32_t j = 0; j < old.counts[b]; ++j)
      if (old.first_of_its_key(begin, j)) out.put(next++, old.slots, begin + j);
  }
};

/// Fills the padding of bucket b (Ellpack and Sliced Ellpack give a bucket
/// room beyond its size). Any key type can be stored, so there is no empty
/// marker: padding repeats the bucket's first element, which a probe may
/// find again harmlessly, and an empty bucket is padded with an element of
/// another bucket (of spare_bucket, which holds one), whose key hashes
/// elsewhere and so never matches a probe of b. This keeps the padded
/// layouts free of a size array, and `is_stored` tells padding apart.
template <class Slots, class Segments>
struct fill_padding {
  Slots slots;
  Segments segments;
  const std::uint32_t* counts;
  std::uint64_t spare_bucket;
  GPUHASH_HD void operator()(std::uint64_t b) const {
    const std::uint32_t count = counts[b];
    const std::uint64_t room = segments.capacity(b);
    if (count == room) return;
    const std::uint64_t copy_of = segments.begin(count > 0 ? b : spare_bucket);
    for (std::uint64_t j = count; j < room; ++j) slots.put(segments.at(b, j), slots, copy_of);
  }
};

/// The probe's view of a built table: where a key is, if anywhere (Alg. 5).
template <class Slots, class Segments, class Hash, class KeyEqual>
struct table_view {
  using slots_type = Slots;
  using key_type = typename Slots::key_type;

  Slots slots;
  Segments segments;
  bucket_of<Hash> bucket;
  KeyEqual equal;

  static constexpr std::uint64_t nowhere = ~std::uint64_t{0};

  template <class Key>
  GPUHASH_HD std::uint64_t locate(const Key& key) const {
    const std::uint64_t b = bucket(key);
    return locate_in(key, b, segments.begin(b));
  }
  /// The same, with the bucket and its first slot known.
  template <class Key>
  GPUHASH_HD std::uint64_t locate_in(const Key& key, std::uint64_t b, std::uint64_t begin) const {
    const std::uint64_t room = segments.capacity(b);
    for (std::uint64_t j = 0; j < room; ++j)
      if (equal(slots.key(begin + j), key)) return begin + j;
    return nowhere;
  }

  /// Whether slot j of bucket b holds an element rather than padding (see
  /// fill_padding; keys in a bucket are distinct).
  GPUHASH_HD bool is_stored(std::uint64_t b, std::uint64_t j) const {
    const std::uint64_t begin = segments.begin(b);
    if (bucket(slots.key(begin + j)) != b) return false;
    return j == 0 || !equal(slots.key(begin + j), slots.key(begin));
  }
};

/// Query k of a probe batch: k itself (Probe-Standard, Alg. 6) or the k-th
/// in bucket order (Probe-New, Alg. 7).
GPUHASH_HD inline std::uint64_t query_at(const std::uint64_t* order, std::uint64_t k) {
  return order == nullptr ? k : order[k];
}

template <class View, class Key>
struct probe_contains {
  View table;
  const Key* keys;
  const std::uint64_t* order;
  bool* flags;
  GPUHASH_HD void operator()(std::uint64_t k) const {
    const std::uint64_t i = query_at(order, k);
    answer(i, table.locate(keys[i]));
  }
  GPUHASH_HD void answer(std::uint64_t i, std::uint64_t at) const {
    flags[i] = at != View::nowhere;
  }
};

template <class View, class Key, class Value>
struct probe_find {
  View table;
  const Key* keys;
  const std::uint64_t* order;
  Value* values;
  status* statuses;
  GPUHASH_HD void operator()(std::uint64_t k) const {
    const std::uint64_t i = query_at(order, k);
    answer(i, table.locate(keys[i]));
  }
  GPUHASH_HD void answer(std::uint64_t i, std::uint64_t at) const {
    if (at == View::nowhere) {
      statuses[i] = status::not_found;
    } else {
      values[i] = table.slots.value(at);
      statuses[i] = status::found;
    }
  }
};

/// The CPU's form of a probe (probe_contains or probe_find): call g answers
/// queries [g * group, (g + 1) * group) in three passes, each prefetching
/// what the next one reads (a bucket's offset, then its first slot) for the
/// whole group, so that a core waits on a group's cache misses together
/// rather than on one query's two dependent misses at a time. A GPU hides
/// the same latency with other warps and runs the per-query form.
template <class Probe>
struct grouped_probe {
  static constexpr std::uint64_t group = 16;
  Probe probe;
  std::uint64_t n;

  void operator()(std::uint64_t g) const {
    const auto& table = probe.table;
    const std::uint64_t first = g * group;
    const std::uint64_t count = n - first < group ? n - first : group;
    std::uint64_t query[group], bucket[group], begin[group];
    for (std::uint64_t k = 0; k < count; ++k) {
      query[k] = query_at(probe.order, first + k);
      bucket[k] = table.bucket(probe.keys[query[k]]);
      if (const void* address = table.segments.begin_address(bucket[k]))
        __builtin_prefetch(address);
    }
    for (std::uint64_t k = 0; k < count; ++k) {
      begin[k] = table.segments.begin(bucket[k]);
      if (table.segments.capacity(bucket[k]) > 0) __builtin_prefetch(&table.slots.key(begin[k]));
    }
    for (std::uint64_t k = 0; k < count; ++k)
      probe.answer(query[k], table.locate_in(probe.keys[query[k]], bucket[k], begin[k]));
  }
};

/// stored[b] = how many elements (not padding) bucket b holds.
template <class View>
struct count_stored {
  View table;
  std::uint64_t* stored;
  GPUHASH_HD void operator()(std::uint64_t b) const {
    std::uint64_t count = 0;
    const std::uint64_t room = table.segments.capacity(b);
    for (std::uint64_t j = 0; j < room; ++j) count += table.is_stored(b, j) ? 1 : 0;
    stored[b] = count;
  }
};

/// Copies bucket b's elements to out from starts[b] on (starts from
/// count_stored's scan).
template <class View, class Target>
struct gather_stored {
  View table;
  Target out;
  const std::uint64_t* starts;
  GPUHASH_HD void operator()(std::uint64_t b) const {
    std::uint64_t next = starts[b];
    const std::uint64_t begin = table.segments.begin(b);
    const std::uint64_t room = table.segments.capacity(b);
    for (std::uint64_t j = 0; j < room; ++j)
      if (table.is_stored(b, j)) out.put(next++, table.slots, begin + j);
  }
};

/// absent[i] = 1 where key i is not in the table, else 0.
template <class View, class Key>
struct mark_absent {
  View table;
  const Key* keys;
  std::uint64_t* absent;
  GPUHASH_HD void operator()(std::uint64_t i) const {
    absent[i] = table.locate(keys[i]) == View::nowhere ? 1 : 0;
  }
};

/// Element i of `in` to out[offset + ranks[i]] where flags[i] is set
/// (ranks: the flags' exclusive scan).
template <class Source, class Target>
struct append_flagged {
  Source in;
  Target out;
  const std::uint64_t* flags;
  const std::uint64_t* ranks;
  std::uint64_t offset;
  GPUHASH_HD void operator()(std::uint64_t i) const {
    if (flags[i] != 0) out.put(offset + ranks[i], in, i);
  }
};

}  // namespace gpuhash::detail::hashgraph
