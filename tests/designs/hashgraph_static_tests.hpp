#pragma once
// Static HashGraph (gpuhash/hashgraph.hpp), differential against
// std::unordered_set / std::unordered_map: every build (Alg. 1, 2, 4) in
// every segment layout, the set and both map layouts, both probes, repeated
// and missing keys, the rehash insert (Alg. 8), a user key type with its own
// hash, and the stable radix sort the sorted build runs on. Instantiated per
// backend, in a file the backend's compiler builds (a .cu file for CUDA:
// the table is header-only).

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gpuhash/detail/exec.hpp"
#include "gpuhash/hashgraph.hpp"
#include "support/launch.hpp"
#include "support/random.hpp"

namespace gpuhash::testing {

/// A two-word key with its own hash: static HashGraph stores any type.
struct point {
  std::uint32_t x;
  std::uint32_t y;
  GPUHASH_HD bool operator==(const point& other) const { return x == other.x && y == other.y; }
};
struct point_hash {
  GPUHASH_HD std::uint64_t operator()(const point& p) const {
    return murmur3_fmix64((std::uint64_t{p.x} << 32) | p.y);
  }
};
/// A 32-bit hash: buckets must still be reached across the whole range.
struct narrow_hash {
  GPUHASH_HD std::uint32_t operator()(std::uint32_t key) const { return murmur3_fmix32(key); }
};

/// Query i through a static table's ref, as a kernel of the caller's would.
template <class SetRef, class MapRef>
struct static_ref_queries {
  SetRef set;
  MapRef map;
  const std::uint32_t* keys;
  bool* in_set;
  std::uint32_t* values;
  status* statuses;
  GPUHASH_HD void operator()(std::uint64_t i) const {
    in_set[i] = set.contains(keys[i]);
    std::uint32_t value = 0;
    statuses[i] = map.find(keys[i], &value);
    if (statuses[i] == status::found) values[i] = value;
    if (map.contains(keys[i]) != (statuses[i] == status::found)) statuses[i] = status::invalid_key;
  }
};

template <class Backend>
class hashgraph_static : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Backend::available())
      GTEST_SKIP() << "no " << Backend::name
                   << " device: these tests need an NVIDIA GPU (scripts/gpu-check runs them)";
  }

  /// n keys drawn from [1, range]: a small range repeats keys.
  static std::vector<std::uint32_t> draw(seeded_random& random, std::size_t n,
                                         std::uint64_t range) {
    std::vector<std::uint32_t> keys(n);
    for (auto& key : keys) key = static_cast<std::uint32_t>(1 + random.below(range));
    return keys;
  }

  /// Options small enough that several bins are used at test sizes.
  static hashgraph_options options_for(hashgraph_build build) {
    hashgraph_options options;
    options.build = build;
    options.buckets_per_bin = 64;
    return options;
  }

  template <segment_layout Segments>
  void set_matches_reference(hashgraph_build build) {
    SCOPED_TRACE(::testing::Message() << "build " << static_cast<int>(build) << ", segments "
                                      << static_cast<int>(Segments));
    seeded_random random;
    const std::size_t n = scaled(50000);
    const auto keys = draw(random, n, 4 * n);  // about 1 in 8 keys repeats another
    const std::unordered_set<std::uint32_t> reference(keys.begin(), keys.end());

    hashgraph_set<std::uint32_t, Backend, hashgraph_hash<std::uint32_t>, Segments> set(
        options_for(build));
    set.build(keys);
    EXPECT_EQ(set.size(), reference.size());
    EXPECT_EQ(set.bucket_count(), n);
    auto stored = set.retrieve_all();
    std::sort(stored.begin(), stored.end());
    std::vector<std::uint32_t> expected(reference.begin(), reference.end());
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(stored, expected);
    if constexpr (Segments == segment_layout::csr) {
      EXPECT_EQ(set.slot_count(), reference.size());
    } else {
      EXPECT_GE(set.slot_count(), reference.size());
    }

    const auto queries = draw(random, n, 8 * n);  // about half present
    for (const auto probe : {hashgraph_probe::standard, hashgraph_probe::binned}) {
      const auto flags = set.contains(queries, probe);
      for (std::size_t i = 0; i < n; ++i)
        ASSERT_EQ(flags[i], reference.contains(queries[i]))
            << "query " << i << " (key " << queries[i] << "), probe " << static_cast<int>(probe);
    }
  }

  template <segment_layout Segments, pair_layout Pairs>
  void map_matches_reference(hashgraph_build build) {
    SCOPED_TRACE(::testing::Message()
                 << "build " << static_cast<int>(build) << ", segments "
                 << static_cast<int>(Segments) << ", pairs " << static_cast<int>(Pairs));
    seeded_random random;
    const std::size_t n = scaled(40000);
    const auto keys = draw(random, n, 2 * n);  // many repeats
    std::vector<std::uint32_t> values(n);
    std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> candidates;
    for (std::size_t i = 0; i < n; ++i) {
      values[i] = static_cast<std::uint32_t>(random.next());
      candidates[keys[i]].push_back(values[i]);
    }

    hashgraph_map<std::uint32_t, std::uint32_t, Backend, hashgraph_hash<std::uint32_t>, Segments,
                  Pairs>
        map(options_for(build));
    map.build(std::span<const std::uint32_t>(keys), std::span<const std::uint32_t>(values));
    ASSERT_EQ(map.size(), candidates.size());

    const auto queries = draw(random, n, 4 * n);
    for (const auto probe : {hashgraph_probe::standard, hashgraph_probe::binned}) {
      const auto result = map.find(queries, probe);
      for (std::size_t i = 0; i < n; ++i) {
        const auto it = candidates.find(queries[i]);
        if (it == candidates.end()) {
          ASSERT_EQ(result.statuses[i], status::not_found) << "query " << i;
          continue;
        }
        ASSERT_EQ(result.statuses[i], status::found) << "query " << i;
        // One of the key's input values; the first with the (stable) sorted build.
        const auto& options = it->second;
        if (build == hashgraph_build::sorted)
          ASSERT_EQ(result.values[i], options.front()) << "query " << i;
        else
          ASSERT_NE(std::find(options.begin(), options.end(), result.values[i]), options.end())
              << "query " << i;
      }
    }
    // Every pair once, with a value the key was given.
    const auto pairs = map.retrieve_all();
    ASSERT_EQ(pairs.size(), candidates.size());
    std::unordered_set<std::uint32_t> seen;
    for (const auto& pair : pairs) {
      ASSERT_TRUE(seen.insert(pair.key).second) << "key " << pair.key << " stored twice";
      const auto& options = candidates.at(pair.key);
      ASSERT_NE(std::find(options.begin(), options.end(), pair.value), options.end());
    }
  }

  static constexpr std::array<hashgraph_build, 3> all_builds{
      hashgraph_build::direct, hashgraph_build::binned, hashgraph_build::sorted};

  template <segment_layout Segments>
  void all_builds_of_set() {
    for (const auto build : all_builds) set_matches_reference<Segments>(build);
  }
  template <segment_layout Segments, pair_layout Pairs>
  void all_builds_of_map() {
    for (const auto build : all_builds) map_matches_reference<Segments, Pairs>(build);
  }
};

TYPED_TEST_SUITE_P(hashgraph_static);

TYPED_TEST_P(hashgraph_static, set_in_csr_matches_unordered_set) {
  this->template all_builds_of_set<segment_layout::csr>();
}
TYPED_TEST_P(hashgraph_static, set_in_ellpack_matches_unordered_set) {
  this->template all_builds_of_set<segment_layout::ellpack>();
}
TYPED_TEST_P(hashgraph_static, set_in_sliced_ellpack_matches_unordered_set) {
  this->template all_builds_of_set<segment_layout::sliced_ellpack>();
}
TYPED_TEST_P(hashgraph_static, map_of_structures_in_csr_matches_unordered_map) {
  this->template all_builds_of_map<segment_layout::csr, pair_layout::array_of_structures>();
}
TYPED_TEST_P(hashgraph_static, map_of_arrays_in_csr_matches_unordered_map) {
  this->template all_builds_of_map<segment_layout::csr, pair_layout::structure_of_arrays>();
}
TYPED_TEST_P(hashgraph_static, map_of_arrays_in_ellpack_matches_unordered_map) {
  this->template all_builds_of_map<segment_layout::ellpack, pair_layout::structure_of_arrays>();
}
TYPED_TEST_P(hashgraph_static, map_of_structures_in_sliced_ellpack_matches_unordered_map) {
  this->template all_builds_of_map<segment_layout::sliced_ellpack,
                                   pair_layout::array_of_structures>();
}

TYPED_TEST_P(hashgraph_static, empty_table_finds_nothing) {
  hashgraph_map<std::uint32_t, std::uint32_t, TypeParam, hashgraph_hash<std::uint32_t>,
                segment_layout::ellpack>
      map;
  EXPECT_EQ(map.size(), 0U);
  const std::vector<std::uint32_t> keys{1, 2, 0xFFFFFFFFU, 0};
  for (const auto probe : {hashgraph_probe::standard, hashgraph_probe::binned})
    for (const auto result : map.find(keys, probe).statuses) EXPECT_EQ(result, status::not_found);
  map.build(std::span<const std::uint32_t>(), std::span<const std::uint32_t>());
  EXPECT_EQ(map.size(), 0U);
  EXPECT_EQ(map.find(keys).statuses[0], status::not_found);
}

TYPED_TEST_P(hashgraph_static, no_key_value_is_reserved) {
  hashgraph_set<std::uint64_t, TypeParam, hashgraph_hash<std::uint64_t>,
                segment_layout::sliced_ellpack>
      set;
  const std::vector<std::uint64_t> keys{0, ~std::uint64_t{0}, 1, ~std::uint64_t{0} - 1};
  set.build(keys);
  EXPECT_EQ(set.size(), 4U);
  const std::vector<std::uint64_t> queries{0, ~std::uint64_t{0}, 2, 1};
  const auto flags = set.contains(queries);
  EXPECT_EQ(flags, (std::vector<bool>{true, true, false, true}));
}

TYPED_TEST_P(hashgraph_static, rehash_insert_adds_absent_keys_and_keeps_stored_values) {
  seeded_random random;
  const std::size_t n = scaled(20000);
  std::unordered_map<std::uint32_t, std::uint32_t> reference;
  hashgraph_map<std::uint32_t, std::uint32_t, TypeParam, hashgraph_hash<std::uint32_t>,
                segment_layout::sliced_ellpack, pair_layout::structure_of_arrays>
      map;
  for (int round = 0; round < 4; ++round) {
    // Keys from a shared range: later rounds repeat earlier keys.
    std::vector<std::uint32_t> keys(n), values(n);
    for (std::size_t i = 0; i < n; ++i) {
      keys[i] = static_cast<std::uint32_t>(1 + random.below(3 * n));
      values[i] = static_cast<std::uint32_t>(random.next());
    }
    // A key new to the table takes one of the batch's values for it.
    std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> batch;
    for (std::size_t i = 0; i < n; ++i) batch[keys[i]].push_back(values[i]);
    if (round == 0)
      map.build(std::span<const std::uint32_t>(keys), std::span<const std::uint32_t>(values));
    else
      map.insert(std::span<const std::uint32_t>(keys), std::span<const std::uint32_t>(values));
    for (const auto& pair : map.retrieve_all()) {
      if (reference.contains(pair.key)) continue;
      const auto& options = batch.at(pair.key);
      ASSERT_NE(std::find(options.begin(), options.end(), pair.value), options.end());
      reference.emplace(pair.key, pair.value);
    }
    ASSERT_EQ(map.size(), reference.size()) << "round " << round;
    std::vector<std::uint32_t> stored_keys;
    for (const auto& [key, value] : reference) stored_keys.push_back(key);
    const auto result = map.find(stored_keys);
    for (std::size_t i = 0; i < stored_keys.size(); ++i) {
      ASSERT_EQ(result.statuses[i], status::found) << "round " << round;
      ASSERT_EQ(result.values[i], reference.at(stored_keys[i])) << "round " << round;
    }
  }
}

TYPED_TEST_P(hashgraph_static, any_key_type_with_its_own_hash) {
  seeded_random random;
  const std::size_t n = scaled(10000);
  std::vector<point> keys(n);
  for (auto& key : keys)
    key = {static_cast<std::uint32_t>(random.below(64)), static_cast<std::uint32_t>(random.next())};
  std::vector<std::uint64_t> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = i;
  hashgraph_options options;
  options.build = hashgraph_build::sorted;
  hashgraph_map<point, std::uint64_t, TypeParam, point_hash, segment_layout::ellpack> map(options);
  map.build(std::span<const point>(keys), std::span<const std::uint64_t>(values));
  EXPECT_EQ(map.size(), n);  // y is random over 32 bits: repeats are unlikely at this size
  std::vector<point> queries = keys;
  for (std::size_t i = 0; i < n; i += 2) queries[i].x += 64;  // absent: x < 64 in the table
  const auto result = map.find(queries, hashgraph_probe::binned);
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 2 == 0) {
      ASSERT_EQ(result.statuses[i], status::not_found) << "query " << i;
    } else {
      ASSERT_EQ(result.statuses[i], status::found) << "query " << i;
      ASSERT_EQ(keys[result.values[i]], keys[i]) << "query " << i;
    }
  }
}

TYPED_TEST_P(hashgraph_static, narrow_hash_spreads_over_all_buckets) {
  seeded_random random;
  const std::size_t n = scaled(20000);
  const auto keys = this->draw(random, n, std::uint64_t{1} << 32);
  hashgraph_set<std::uint32_t, TypeParam, narrow_hash, segment_layout::ellpack> set;
  set.build(keys);
  // Uniform buckets at one key per bucket: the widest holds a handful. A hash
  // reduced as if it were 64 bits wide would put every key in bucket 0.
  EXPECT_LT(set.slot_count(), 16 * set.bucket_count());
  const auto flags = set.contains(keys);
  EXPECT_TRUE(std::all_of(flags.begin(), flags.end(), [](bool found) { return found; }));
}

TYPED_TEST_P(hashgraph_static, radix_sort_is_stable_over_the_bits_asked_for) {
  seeded_random random;
  const std::size_t n = scaled(100000);
  for (const int bits : {1, 7, 13, 32}) {
    // Keys over all 32 bits: the bits at and above `bits` must not count.
    std::vector<std::uint32_t> keys(n);
    for (auto& key : keys) key = static_cast<std::uint32_t>(random.next());
    const std::uint32_t mask = bits == 32 ? ~0U : (1U << bits) - 1;
    auto device_keys = TypeParam::template allocate<std::uint32_t>(n);
    auto sorted = TypeParam::template allocate<std::uint32_t>(n);
    auto order = TypeParam::template allocate<std::uint64_t>(n);
    TypeParam::copy_from_host(device_keys.data(), keys.data(), n);
    detail::exec<TypeParam>::sort_by_key(device_keys.data(), n, sorted.data(), order.data(), {},
                                         bits);
    std::vector<std::uint32_t> host_sorted(n);
    std::vector<std::uint64_t> host_order(n);
    TypeParam::copy_to_host(host_sorted.data(), sorted.data(), n);
    TypeParam::copy_to_host(host_order.data(), order.data(), n);
    std::vector<std::uint64_t> expected(n);
    for (std::size_t i = 0; i < n; ++i) expected[i] = i;
    std::stable_sort(expected.begin(), expected.end(), [&](std::uint64_t a, std::uint64_t b) {
      return (keys[a] & mask) < (keys[b] & mask);
    });
    ASSERT_EQ(host_order, expected) << bits << " bits";
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(host_sorted[i], keys[expected[i]]);
  }
}

/// Every key in one bucket: the other buckets are empty and padded with an
/// element of it (fill_padding), the hardest case for is_stored.
struct constant_hash {
  GPUHASH_HD std::uint64_t operator()(std::uint32_t) const { return 0x8000000000000000ULL; }
};

TYPED_TEST_P(hashgraph_static, one_full_bucket_among_empty_ones) {
  seeded_random random;
  const auto keys = this->draw(random, 300, 1000000);
  const std::unordered_set<std::uint32_t> reference(keys.begin(), keys.end());
  const auto check = [&](auto& set) {
    set.build(keys);
    EXPECT_EQ(set.size(), reference.size());
    auto stored = set.retrieve_all();
    std::sort(stored.begin(), stored.end());
    std::vector<std::uint32_t> expected(reference.begin(), reference.end());
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(stored, expected);
    std::vector<std::uint32_t> queries = keys;
    queries.push_back(1000001);  // absent
    const auto flags = set.contains(queries, hashgraph_probe::binned);
    for (std::size_t i = 0; i < keys.size(); ++i) ASSERT_TRUE(flags[i]);
    EXPECT_FALSE(flags.back());
    set.insert(std::vector<std::uint32_t>{1000002});
    EXPECT_EQ(set.size(), reference.size() + 1);
  };
  hashgraph_set<std::uint32_t, TypeParam, constant_hash, segment_layout::ellpack> ellpack;
  check(ellpack);
  hashgraph_set<std::uint32_t, TypeParam, constant_hash, segment_layout::sliced_ellpack> sliced;
  check(sliced);
}

TYPED_TEST_P(hashgraph_static, insert_into_an_empty_set_and_first_wins_when_sorted) {
  hashgraph_options options;
  options.build = hashgraph_build::sorted;
  hashgraph_map<std::uint32_t, std::uint32_t, TypeParam> map(options);
  const std::vector<std::uint32_t> keys{5, 7, 5, 9, 7};
  const std::vector<std::uint32_t> values{1, 2, 3, 4, 5};
  map.insert(std::span<const std::uint32_t>(keys), std::span<const std::uint32_t>(values));
  EXPECT_EQ(map.size(), 3U);
  // The first of the batch's values for a key (the sorted build is stable).
  const auto result = map.find(std::vector<std::uint32_t>{5, 7, 9, 6});
  EXPECT_EQ(result.values[0], 1U);
  EXPECT_EQ(result.values[1], 2U);
  EXPECT_EQ(result.values[2], 4U);
  EXPECT_EQ(result.statuses[3], status::not_found);
  hashgraph_set<std::uint32_t, TypeParam> set;
  set.insert(std::vector<std::uint32_t>{3, 3, 4});
  EXPECT_EQ(set.size(), 2U);
}

// The refs (search-only) answer as the bulk probes do: a set's contains and
// a map's find and contains per query, from the caller's kernel or threads.
TYPED_TEST_P(hashgraph_static, refs_answer_as_the_bulk_probes) {
  using set_type = hashgraph_set<std::uint32_t, TypeParam, hashgraph_hash<std::uint32_t>,
                                 segment_layout::ellpack>;
  using map_type = hashgraph_map<std::uint32_t, std::uint32_t, TypeParam>;
  static_assert(std::is_trivially_copyable_v<typename set_type::ref_type> &&
                std::is_trivially_copyable_v<typename map_type::ref_type>);
  seeded_random random;
  const std::size_t n = scaled(20000);
  const auto keys = this->draw(random, n, 2 * n);
  std::vector<std::uint32_t> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = keys[i] * 3 + 1;  // equal keys, equal values
  set_type set(this->options_for(hashgraph_build::binned));
  map_type map(this->options_for(hashgraph_build::sorted));
  set.build(keys);
  map.build(keys, values);
  const auto queries = this->draw(random, n, 4 * n);  // about half are stored

  auto d_keys = TypeParam::template allocate<std::uint32_t>(n);
  TypeParam::copy_from_host(d_keys.data(), queries.data(), n);
  auto d_in_set = TypeParam::template allocate<bool>(n);
  auto d_values = TypeParam::template allocate<std::uint32_t>(n);
  auto d_statuses = TypeParam::template allocate<status>(n);
  support::launcher<TypeParam>::for_each(
      n, static_ref_queries<typename set_type::ref_type, typename map_type::ref_type>{
             set.ref(), map.ref(), d_keys.data(), d_in_set.data(), d_values.data(),
             d_statuses.data()});
  TypeParam::synchronize({});
  const auto in_set = std::make_unique<bool[]>(n);
  std::vector<std::uint32_t> found(n);
  std::vector<status> statuses(n);
  TypeParam::copy_to_host(in_set.get(), d_in_set.data(), n);
  TypeParam::copy_to_host(found.data(), d_values.data(), n);
  TypeParam::copy_to_host(statuses.data(), d_statuses.data(), n);

  const auto flags = set.contains(queries);
  const auto expected = map.find(queries);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(in_set[i], flags[i]) << "key " << queries[i];
    ASSERT_EQ(statuses[i], expected.statuses[i]) << "key " << queries[i];
    if (statuses[i] == status::found) {
      ASSERT_EQ(found[i], queries[i] * 3 + 1) << "key " << queries[i];
    }
  }
}

REGISTER_TYPED_TEST_SUITE_P(
    hashgraph_static, one_full_bucket_among_empty_ones, refs_answer_as_the_bulk_probes,
    insert_into_an_empty_set_and_first_wins_when_sorted, set_in_csr_matches_unordered_set,
    set_in_ellpack_matches_unordered_set, set_in_sliced_ellpack_matches_unordered_set,
    map_of_structures_in_csr_matches_unordered_map, map_of_arrays_in_csr_matches_unordered_map,
    map_of_arrays_in_ellpack_matches_unordered_map,
    map_of_structures_in_sliced_ellpack_matches_unordered_map, empty_table_finds_nothing,
    no_key_value_is_reserved, rehash_insert_adds_absent_keys_and_keeps_stored_values,
    any_key_type_with_its_own_hash, narrow_hash_spreads_over_all_buckets,
    radix_sort_is_stable_over_the_bits_asked_for);

}  // namespace gpuhash::testing
