#pragma once
// Keys and values of the user's own types (gpuhash/key_types.hpp) in the
// designs that take them (linear_probing_map, hashgraph_dynamic_map,
// bucketed_cuckoo_map), each on one backend: a .cpp (CPU) and a .cu (CUDA)
// include this header and instantiate it over the same designs, so both run
// the same tests. Wide values (more than 16 bytes) have a suite of their
// own, instantiated for the designs whose has_wide_values says they take
// them. The tables are header-only here (the *_map_impl.hpp headers), as a
// user's would be.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "gpuhash/apply_ops.hpp"
#include "gpuhash/bucketed_cuckoo_map_impl.hpp"
#include "gpuhash/hashgraph_dynamic_map_impl.hpp"
#include "gpuhash/host_device.hpp"
#include "gpuhash/key_types.hpp"
#include "gpuhash/linear_probing_map_impl.hpp"
#include "gpuhash/status.hpp"
#include "gpuhash/table_options.hpp"
#include "support/float_row.hpp"
#include "support/launch.hpp"
#include "support/random.hpp"
#include "support/transfer.hpp"

namespace gpuhash::testing {

/// The designs under test, each on one backend: a test's tables are
/// `typename TypeParam::template map<Key, Value[, Hash, KeyEqual]>`;
/// has_wide_values says whether the design takes values of more than 16
/// bytes (the wide_value_types suite runs only for those), and
/// ref_inserts_may_find_no_room whether a ref's insert may answer `full`
/// in a table below its load limit.
template <class Backend>
struct linear_probing_design {
  using backend = Backend;
  static constexpr const char* name = "linear_probing";
  static constexpr bool has_wide_values = true;
  static constexpr bool ref_inserts_may_find_no_room = false;
  template <class Key, class Value, class Hash = key_bytes_hash<Key>,
            class KeyEqual = bitwise_equal<Key>>
  using map = linear_probing_map<Key, Value, Backend, Hash, KeyEqual>;
};
template <class Backend, segment_layout Segments = segment_layout::csr>
struct hashgraph_dynamic_design {
  using backend = Backend;
  static constexpr const char* name = Segments == segment_layout::csr ? "hashgraph"
                                      : Segments == segment_layout::ellpack
                                          ? "hashgraph_ellpack"
                                          : "hashgraph_sliced_ellpack";
  static constexpr bool has_wide_values = true;
  static constexpr bool ref_inserts_may_find_no_room = false;
  template <class Key, class Value, class Hash = key_bytes_hash<Key>,
            class KeyEqual = bitwise_equal<Key>>
  using map = hashgraph_dynamic_map<Key, Value, Backend, Segments, Hash, KeyEqual>;
};
template <class Backend>
struct bucketed_cuckoo_design {
  using backend = Backend;
  static constexpr const char* name = "bucketed_cuckoo";
  /// Its eviction walks move pairs between slots: values of 4, 8 or 16
  /// bytes only (docs/designs/bucketed_cuckoo.md).
  static constexpr bool has_wide_values = false;
  /// Its refs never move keys: an insert whose buckets are full answers
  /// `full` (docs/designs/bucketed_cuckoo.md, "Refs").
  static constexpr bool ref_inserts_may_find_no_room = true;
  template <class Key, class Value, class Hash = key_bytes_hash<Key>,
            class KeyEqual = bitwise_equal<Key>>
  using map = bucketed_cuckoo_map<Key, Value, Backend, Hash, KeyEqual>;
};

/// Bucketed cuckoo with two choices over the whole table and no backyard,
/// in the default's bucket size: keys find both buckets full far more often
/// than under the default's four choices, so its eviction walks and phase
/// 2's grouping of copies run on many keys. Its tables compile where
/// gpuhash/bucketed_cuckoo_map_impl.hpp is included.
template <class Backend>
struct two_choice_cuckoo_design : bucketed_cuckoo_design<Backend> {
  static constexpr const char* name = "bucketed_cuckoo_two_choices";
  template <class Key, class Value, class Hash = key_bytes_hash<Key>,
            class KeyEqual = bitwise_equal<Key>>
  using map = bucketed_cuckoo_map_with<
      Key, Value, Backend,
      bucketed_cuckoo_config<bucketed_cuckoo_default_config<Key, Value>::bucket_bytes, 2>, Hash,
      KeyEqual>;
};

/// The designs of a ::testing::Types list whose has_wide_values is true, as
/// another such list: the one list of designs a .cpp or .cu names decides
/// both suites, so no design can leave the wide-value tests by mistake.
template <class Kept, class... Designs>
struct keep_wide_value_designs {
  using type = Kept;
};
template <class... Kept, class First, class... Rest>
struct keep_wide_value_designs<::testing::Types<Kept...>, First, Rest...>
    : keep_wide_value_designs<
          std::conditional_t<First::has_wide_values, ::testing::Types<Kept..., First>,
                             ::testing::Types<Kept...>>,
          Rest...> {};
template <class Designs>
struct with_wide_values;
template <class... Designs>
struct with_wide_values<::testing::Types<Designs...>>
    : keep_wide_value_designs<::testing::Types<>, Designs...> {};
template <class Designs>
using with_wide_values_t = typename with_wide_values<Designs>::type;

/// Names the instantiations by design (cpu/key_types/hashgraph.<test>).
struct design_name {
  template <class Design>
  static std::string GetName(int) {
    return Design::name;
  }
};

/// An 8-byte struct key with its own hash and equality.
struct point {
  std::int32_t x;
  std::int32_t y;
  bool operator==(const point&) const = default;
};
struct point_hash {
  GPUHASH_HD std::uint64_t operator()(const point& p) const {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(p.x)) << 32) ^
           static_cast<std::uint32_t>(p.y) * 0x9e3779b9U;
  }
};
struct point_equal {
  GPUHASH_HD bool operator()(const point& a, const point& b) const {
    return a.x == b.x && a.y == b.y;
  }
};
struct point_std_hash {
  std::size_t operator()(const point& p) const { return point_hash{}(p); }
};

/// A key whose equality looks at `id` only (the tag rides along): equal keys
/// with different bytes.
struct tagged {
  std::uint32_t id;
  std::uint32_t tag;
};
struct tagged_hash {
  GPUHASH_HD std::uint64_t operator()(const tagged& k) const { return k.id; }
};
struct tagged_equal {
  GPUHASH_HD bool operator()(const tagged& a, const tagged& b) const { return a.id == b.id; }
};

/// A 16-byte key, hashed and compared by its bytes (the defaults). As a
/// word, `first` is the low half: the reserved keys are {~0, ~0}, {~0 - 1,
/// ~0} and {~0 - 2, ~0}.
struct wide_key {
  std::uint64_t first;
  std::uint64_t second;
  bool operator==(const wide_key&) const = default;
};
struct wide_key_std_hash {
  std::size_t operator()(const wide_key& k) const {
    return k.first * 0x9e3779b97f4a7c15ULL ^ k.second;
  }
};

/// A 16-byte value (four floats) and the op that sums it component-wise.
struct float4_value {
  float x, y, z, w;
  bool operator==(const float4_value&) const = default;
};
struct add_float4 {
  GPUHASH_HD void operator()(float4_value& stored, const float4_value& v) const {
    stored.x += v.x;
    stored.y += v.y;
    stored.z += v.z;
    stored.w += v.w;
  }
};

/// A wide value (128 bytes, more than one atomic word) and the op that
/// sums it element-wise.
using embedding = float_row<32>;
struct add_embedding {
  GPUHASH_HD void operator()(embedding& stored, const embedding& row) const {
    for (int i = 0; i < 32; ++i) stored.v[i] += row.v[i];
  }
};

/// Thread i of a mixed kernel over few keys, in groups of `group_size`
/// threads on key 1 + (i / group_size) % keys: the group's first thread
/// overwrites the key's value with one whose elements are all equal, the
/// others read it and mark one whose elements differ (half-written) in
/// torn[i].
template <class Ref>
struct write_or_read_embedding {
  static constexpr std::uint64_t group_size = 8;
  Ref ref;
  std::uint64_t keys;
  std::uint32_t* torn;
  GPUHASH_HD void operator()(std::uint64_t i) const {
    const std::uint64_t key = 1 + (i / group_size) % keys;
    if (i % group_size == 0) {
      ref.insert_or_assign(key, embedding::filled(static_cast<float>(i)));
      return;
    }
    embedding seen{};
    if (ref.find(key, &seen) != status::found) return;
    for (const float element : seen.v) torn[i] |= element != seen.v[0] ? 1U : 0U;
  }
};

/// Row i of a group-by: applies Op with values[i] to keys[i]'s value
/// through the ref.
template <class Ref, class Op = plus>
struct add_through_ref {
  Ref ref;
  const typename Ref::key_type* keys;
  const typename Ref::mapped_type* values;
  status* statuses;
  GPUHASH_HD void operator()(std::uint64_t i) const {
    statuses[i] = ref.insert_or_apply(keys[i], values[i], Op{});
  }
};

template <class Design>
class key_types : public ::testing::Test {
 protected:
  using backend_type = typename Design::backend;
  void SetUp() override {
    if (!backend_type::available())
      GTEST_SKIP() << "no " << backend_type::name
                   << " device: these tests need an NVIDIA GPU (scripts/gpu-check runs them)";
  }
};
TYPED_TEST_SUITE_P(key_types);

// Rounds of random inserts (with keys repeated inside a batch), finds of
// present and absent keys, erases and reinserts, from a small table that
// grows, against std::unordered_map. some_key() draws from a small universe
// that includes the reserved keys.
template <class Map, class StdHash, class SomeKey, class SomeValue>
void expect_to_match_an_unordered_map(Map& table, SomeKey some_key, SomeValue some_value) {
  using key_type = typename Map::key_type;
  using value_type = typename Map::mapped_type;
  std::unordered_map<key_type, value_type, StdHash> model;
  for (int round = 0; round < 20; ++round) {
    std::vector<key_type> keys(scaled(800));
    std::vector<value_type> values(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      keys[i] = some_key();
      values[i] = some_value();
    }
    const auto statuses = table.insert(keys, values);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      // A key repeated in the batch is inserted by one of its copies.
      if (Map::is_reserved(keys[i])) {
        ASSERT_EQ(statuses[i], status::invalid_key);
      } else if (model.count(keys[i]) != 0) {
        ASSERT_EQ(statuses[i], status::exists);
      } else {
        ASSERT_TRUE(statuses[i] == status::inserted || statuses[i] == status::exists);
      }
    }
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (statuses[i] == status::inserted) {
        ASSERT_TRUE(model.emplace(keys[i], values[i]).second);
      }
    }
    ASSERT_EQ(table.size(), model.size());

    std::vector<key_type> erased(scaled(100));
    for (auto& key : erased) key = some_key();
    const auto erase_statuses = table.erase(erased);
    // A key repeated in the batch is erased by one of its copies, any one:
    // the others find it gone.
    for (std::size_t i = 0; i < erased.size(); ++i) {
      if (Map::is_reserved(erased[i])) {
        ASSERT_EQ(erase_statuses[i], status::invalid_key);
      } else if (erase_statuses[i] == status::erased) {
        ASSERT_EQ(model.erase(erased[i]), 1U);
      } else {
        ASSERT_EQ(erase_statuses[i], status::not_found);
      }
    }
    for (std::size_t i = 0; i < erased.size(); ++i) {
      if (erase_statuses[i] == status::not_found) {
        ASSERT_EQ(model.count(erased[i]), 0U);
      }
    }
    std::vector<key_type> queries(scaled(400));
    for (auto& key : queries) key = some_key();
    const auto [found_values, found_statuses] = table.find(queries);
    for (std::size_t i = 0; i < queries.size(); ++i) {
      const auto it = model.find(queries[i]);
      if (Map::is_reserved(queries[i])) {
        ASSERT_EQ(found_statuses[i], status::invalid_key);
      } else if (it == model.end()) {
        ASSERT_EQ(found_statuses[i], status::not_found);
      } else {
        ASSERT_EQ(found_statuses[i], status::found);
        ASSERT_EQ(found_values[i], it->second);
      }
    }
    ASSERT_EQ(table.size(), model.size());
  }
  const auto [keys, values] = table.retrieve_all();
  ASSERT_EQ(keys.size(), model.size());
  for (std::size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(model.at(keys[i]), values[i]);
}

// An 8-byte struct key with its own policies: (-1, -1), (-2, -1) and
// (-3, -1) have the reserved bytes.
TYPED_TEST_P(key_types, struct_keys_match_an_unordered_map) {
  using map_type = typename TypeParam::template map<point, double, point_hash, point_equal>;
  seeded_random random;
  map_type table(table_options{16, 0.0f, random.next()});
  expect_to_match_an_unordered_map<map_type, point_std_hash>(
      table,
      [&] {
        return point{static_cast<std::int32_t>(random.below(200)) - 100,
                     static_cast<std::int32_t>(random.below(8)) - 4};
      },
      [&] { return static_cast<double>(random.below(1000)) / 8; });
}

// 16-byte keys and values (one 32-byte slot; 128-bit atomics on the key and
// value words): the same rounds, the reserved keys among those drawn.
TYPED_TEST_P(key_types, sixteen_byte_keys_and_values_match_an_unordered_map) {
  using map_type = typename TypeParam::template map<wide_key, float4_value>;
  seeded_random random;
  map_type table(table_options{16, 0.0f, random.next()});
  expect_to_match_an_unordered_map<map_type, wide_key_std_hash>(
      table,
      [&] {
        return wide_key{random.below(200) - 100, random.below(8) - 4};  // wraps: ~0 - 2 to ~0
      },
      [&] {
        const auto f = static_cast<float>(random.below(1000)) / 8;
        return float4_value{f, -f, 2 * f, f + 1};
      });
}

// Keys the policy calls equal are one key: the first stored keeps its bytes,
// a later insert finds it, an upsert changes its value only, and an erase
// with any equal key removes it.
TYPED_TEST_P(key_types, the_equality_policy_decides_which_keys_are_one) {
  using map_type =
      typename TypeParam::template map<tagged, std::uint64_t, tagged_hash, tagged_equal>;
  map_type table(table_options{64, 0.0f, 7});
  EXPECT_EQ(table.insert(std::vector<tagged>{{5, 1}}, std::vector<std::uint64_t>{10})[0],
            status::inserted);
  EXPECT_EQ(table.insert(std::vector<tagged>{{5, 2}}, std::vector<std::uint64_t>{20})[0],
            status::exists);
  auto [values, statuses] = table.find(std::vector<tagged>{{5, 9}});
  EXPECT_EQ(statuses[0], status::found);
  EXPECT_EQ(values[0], 10U);
  EXPECT_EQ(table.insert_or_assign(std::vector<tagged>{{5, 3}}, std::vector<std::uint64_t>{30})[0],
            status::updated);
  const auto [keys, stored] = table.retrieve_all();
  ASSERT_EQ(keys.size(), 1U);
  EXPECT_EQ(keys[0].id, 5U);
  EXPECT_EQ(keys[0].tag, 1U);  // the bytes first written
  EXPECT_EQ(stored[0], 30U);
  EXPECT_EQ(table.erase(std::vector<tagged>{{5, 4}})[0], status::erased);
  EXPECT_EQ(table.size(), 0U);
}

// Without an equality policy, keys are their bytes: 0.0f and -0.0f are two
// keys, and a NaN is found by its own bits.
TYPED_TEST_P(key_types, float_keys_are_their_bytes) {
  using map_type = typename TypeParam::template map<float, float>;
  map_type table;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> keys{0.0f, -0.0f, nan, 1.5f};
  const std::vector<float> values{1.0f, 2.0f, 3.0f, 4.0f};
  for (const status s : table.insert(keys, values)) EXPECT_EQ(s, status::inserted);
  const auto [found, statuses] = table.find(keys);
  EXPECT_EQ(found, values);
  EXPECT_EQ(statuses, std::vector<status>(4, status::found));
}

// A 16-byte key's reserved keys are the three largest words.
TYPED_TEST_P(key_types, sixteen_byte_keys_reserve_the_three_largest_words) {
  using map_type = typename TypeParam::template map<wide_key, std::uint32_t>;
  const auto reserved = map_type::reserved_keys();
  constexpr std::uint64_t ones = ~std::uint64_t{0};
  EXPECT_EQ(std::vector<wide_key>(reserved.begin(), reserved.end()),
            (std::vector<wide_key>{{ones, ones}, {ones - 1, ones}, {ones - 2, ones}}));
  map_type table;
  const auto statuses = table.insert(std::vector<wide_key>{{ones, ones}, {ones, 0}, {0, ones}},
                                     std::vector<std::uint32_t>{1, 2, 3});
  EXPECT_EQ(statuses,
            (std::vector<status>{status::invalid_key, status::inserted, status::inserted}));
}

// Reserved keys are bit patterns: for signed 8-byte keys -1, -2 and -3.
TYPED_TEST_P(key_types, signed_keys_reserve_their_all_ones_patterns) {
  using map_type = typename TypeParam::template map<std::int64_t, double>;
  map_type table;
  const auto reserved = map_type::reserved_keys();
  EXPECT_EQ(std::vector<std::int64_t>(reserved.begin(), reserved.end()),
            (std::vector<std::int64_t>{-1, -2, -3}));
  const auto statuses =
      table.insert(std::vector<std::int64_t>{-1, -3, -4, 0, 7}, std::vector<double>{1, 2, 3, 4, 5});
  EXPECT_EQ(statuses, (std::vector<status>{status::invalid_key, status::invalid_key,
                                           status::inserted, status::inserted, status::inserted}));
  EXPECT_EQ(table.size(), 3U);
}

// A group-by through the ref from the backend's threads: rows of few keys,
// each adding its value with Op; every sum is checked against one summed on
// the host. Values are small integers, so every order of the adds sums
// exactly, floats included. Where the design's ref inserts may find no room
// (Design::ref_inserts_may_find_no_room), rows that come back `full` are
// retried as docs/device_api.md shows: their keys, absent, are inserted from
// the host with a value-initialized value (the sums' zero), and the rows run
// again through a new ref; every other design must answer no row `full`.
template <class Design, class Map, class Op, class StdHash, class SomeKey, class SomeValue>
void expect_ref_sums(Map& table, SomeKey some_key, SomeValue some_value) {
  using backend = typename Design::backend;
  using key_type = typename Map::key_type;
  using value_type = typename Map::mapped_type;
  const std::size_t n = scaled(50000);
  std::vector<key_type> keys(n);
  std::vector<value_type> values(n);
  std::unordered_map<key_type, value_type, StdHash> sums;
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = some_key();
    values[i] = some_value();
    const auto [it, inserted] = sums.emplace(keys[i], values[i]);
    if (!inserted) Op{}(it->second, values[i]);
  }
  const auto add_rows = [&](const std::vector<key_type>& row_keys,
                            const std::vector<value_type>& row_values) {
    const std::size_t rows = row_keys.size();
    auto device_keys = to_backend<backend>(row_keys);
    auto device_values = to_backend<backend>(row_values);
    auto device_statuses = backend::template allocate<status>(rows);
    support::launcher<backend>::for_each(
        rows, add_through_ref<typename Map::ref_type, Op>{
                  table.ref(), device_keys.data(), device_values.data(), device_statuses.data()});
    backend::synchronize({});
    return to_host<backend>(device_statuses.data(), rows);
  };
  const auto statuses = add_rows(keys, values);
  std::vector<key_type> retried_keys;
  std::vector<value_type> retried_values;
  std::unordered_map<key_type, value_type, StdHash> absent;
  for (std::size_t i = 0; i < n; ++i) {
    if (statuses[i] != status::full) continue;
    retried_keys.push_back(keys[i]);
    retried_values.push_back(values[i]);
    absent.emplace(keys[i], value_type{});
  }
  if (!Design::ref_inserts_may_find_no_room) {
    EXPECT_EQ(retried_keys.size(), 0U) << "rows answered full";
  }
  if (!absent.empty()) {
    std::vector<key_type> absent_keys;
    for (const auto& [key, zero] : absent) absent_keys.push_back(key);
    for (const status s :
         table.insert(absent_keys, std::vector<value_type>(absent_keys.size(), value_type{})))
      ASSERT_EQ(s, status::inserted);
    for (const status s : add_rows(retried_keys, retried_values)) ASSERT_EQ(s, status::updated);
  }
  EXPECT_EQ(std::count(statuses.begin(), statuses.end(), status::inserted) +
                static_cast<std::ptrdiff_t>(absent.size()),
            static_cast<std::ptrdiff_t>(sums.size()));
  EXPECT_EQ(table.size(), sums.size());
  const auto [stored_keys, stored_values] = table.retrieve_all();
  ASSERT_EQ(stored_keys.size(), sums.size());
  for (std::size_t i = 0; i < stored_keys.size(); ++i)
    EXPECT_EQ(stored_values[i], sums.at(stored_keys[i]));
}

// Double values: plus on a double runs in the compare-and-swap loop.
TYPED_TEST_P(key_types, refs_sum_double_values) {
  using map_type = typename TypeParam::template map<point, double, point_hash, point_equal>;
  seeded_random random;
  map_type table(table_options{1024, 0.0f, random.next()});
  expect_ref_sums<TypeParam, map_type, plus, point_std_hash>(
      table,
      [&] {
        return point{static_cast<std::int32_t>(random.below(300)), 1};
      },
      [&] { return static_cast<double>(1 + random.below(4)); });
}

// 16-byte values summed by an op of the user's: a 128-bit compare-and-swap
// loop; and 4-byte values under 16-byte keys: plus is one atomic add.
TYPED_TEST_P(key_types, refs_sum_values_under_sixteen_byte_keys) {
  seeded_random random;
  const auto some_key = [&] { return wide_key{random.below(300), random.below(2)}; };
  using wide_map = typename TypeParam::template map<wide_key, float4_value>;
  wide_map wide(table_options{1024, 0.0f, random.next()});
  expect_ref_sums<TypeParam, wide_map, add_float4, wide_key_std_hash>(wide, some_key, [&] {
    const auto f = static_cast<float>(1 + random.below(4));
    return float4_value{f, 2 * f, -f, 1};
  });
  using narrow_map = typename TypeParam::template map<wide_key, std::uint32_t>;
  narrow_map narrow(table_options{1024, 0.0f, random.next()});
  expect_ref_sums<TypeParam, narrow_map, plus, wide_key_std_hash>(
      narrow, some_key, [&] { return static_cast<std::uint32_t>(1 + random.below(4)); });
}

REGISTER_TYPED_TEST_SUITE_P(key_types, struct_keys_match_an_unordered_map,
                            sixteen_byte_keys_and_values_match_an_unordered_map,
                            the_equality_policy_decides_which_keys_are_one,
                            float_keys_are_their_bytes,
                            sixteen_byte_keys_reserve_the_three_largest_words,
                            signed_keys_reserve_their_all_ones_patterns, refs_sum_double_values,
                            refs_sum_values_under_sixteen_byte_keys);

// Wide values (more than 16 bytes), in the designs that take them.
template <class Design>
class wide_value_types : public key_types<Design> {};
TYPED_TEST_SUITE_P(wide_value_types);

// Wide values (128 bytes, under a per-slot version): the rounds of
// expect_to_match_an_unordered_map.
TYPED_TEST_P(wide_value_types, wide_values_match_an_unordered_map) {
  using map_type = typename TypeParam::template map<std::uint64_t, embedding>;
  seeded_random random;
  map_type table(table_options{16, 0.0f, random.next()});
  expect_to_match_an_unordered_map<map_type, std::hash<std::uint64_t>>(
      table, [&] { return random.below(300) - 4; },  // wraps: ~0 - 3 to ~0 are drawn too
      [&] {
        embedding e{};
        for (float& element : e.v) element = static_cast<float>(random.below(1000)) / 8;
        return e;
      });
}

// Writers overwrite a few keys' wide values while readers read them, all in
// one kernel (or one pool of threads): no reader sees a half-written value.
// The contention is bounded, 64 keys and one writer in eight threads:
// writers of one key take turns under its version and readers wait while
// it is odd, so the kernel's time grows with the writers per key (2 keys
// with a writer in every other thread take seconds alone and minutes on a
// GPU shared with other tests), while seven readers per write still meet
// writes in progress.
TYPED_TEST_P(wide_value_types, readers_never_see_a_half_written_wide_value) {
  using backend = typename TypeParam::backend;
  using map_type = typename TypeParam::template map<std::uint64_t, embedding>;
  map_type table(table_options{256, 0.0f, 11});
  const std::uint64_t keys = 64;
  const std::size_t n = scaled(1000000);
  auto torn = to_backend<backend>(std::vector<std::uint32_t>(n, 0));
  support::launcher<backend>::for_each(
      n, write_or_read_embedding<typename map_type::ref_type>{table.ref(), keys, torn.data()});
  backend::synchronize({});
  const auto flags = to_host<backend>(torn.data(), n);
  EXPECT_EQ(std::count(flags.begin(), flags.end(), 1U), 0) << "reads saw a half-written value";
  const auto [stored_keys, values] = table.retrieve_all();
  for (const embedding& value : values) EXPECT_EQ(value, embedding::filled(value.v[0]));
  EXPECT_EQ(table.size(), keys);
}

// Wide values summed through refs by the user's op: each row's apply runs
// under the slot's version, so no element of any sum is lost.
TYPED_TEST_P(wide_value_types, refs_sum_wide_values) {
  using map_type = typename TypeParam::template map<std::uint64_t, embedding>;
  seeded_random random;
  map_type table(table_options{1024, 0.0f, random.next()});
  expect_ref_sums<TypeParam, map_type, add_embedding, std::hash<std::uint64_t>>(
      table, [&] { return random.below(300); },
      [&] {
        embedding e{};
        for (int i = 0; i < 32; ++i) e.v[i] = static_cast<float>(1 + (random.below(4) + i) % 4);
        return e;
      });
}

REGISTER_TYPED_TEST_SUITE_P(wide_value_types, wide_values_match_an_unordered_map,
                            readers_never_see_a_half_written_wide_value, refs_sum_wide_values);

// Dynamic HashGraph's find in bucket order (Probe-New, reached through the
// engine) over 16-byte keys and values, typed on the backend: it answers
// each query as find does, reserved keys included.
template <class Backend>
class hashgraph_key_types : public key_types<hashgraph_dynamic_design<Backend>> {};
TYPED_TEST_SUITE_P(hashgraph_key_types);

TYPED_TEST_P(hashgraph_key_types, find_in_bucket_order_answers_as_find_does) {
  using map_type =
      typename hashgraph_dynamic_design<TypeParam>::template map<wide_key, float4_value>;
  seeded_random random;
  map_type table(table_options{16, 0.0f, random.next()});
  // Keys {x, ~0}: 16-byte words whose high half is all ones, the reserved
  // keys' neighbours. Inserted keys' x are below 400; every other query is
  // one of them, the rest have x of 400 to 799, never inserted, so that
  // both answers occur at any test scale.
  const auto some_key = [&](std::uint64_t from, std::uint64_t to) {
    return wide_key{from + random.below(to - from), ~std::uint64_t{0}};
  };
  const std::size_t n = scaled(2000);
  std::vector<wide_key> keys(n);
  std::vector<float4_value> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = some_key(0, 400);
    const auto f = static_cast<float>(i);
    values[i] = float4_value{f, f, f, f};
  }
  table.insert(keys, values);
  std::vector<wide_key> queries(n);
  for (std::size_t i = 0; i < n; ++i)
    queries[i] = i % 2 == 0 ? keys[random.below(n)] : some_key(400, 800);
  const auto reserved = map_type::reserved_keys();
  queries.insert(queries.end(), reserved.begin(), reserved.end());
  const std::size_t m = queries.size();
  const auto expected = table.find(queries);
  auto device_queries = to_backend<TypeParam>(queries);
  auto device_values = TypeParam::template allocate<float4_value>(m);
  auto device_statuses = TypeParam::template allocate<status>(m);
  table.engine().find_in_bucket_order(device_queries.data(), m, device_values.data(),
                                      device_statuses.data(), {});
  TypeParam::synchronize({});
  const auto found = to_host<TypeParam>(device_values.data(), m);
  const auto statuses = to_host<TypeParam>(device_statuses.data(), m);
  for (std::size_t i = 0; i < m; ++i) {
    ASSERT_EQ(statuses[i], expected.statuses[i]) << "query " << i;
    if (statuses[i] == status::found) {
      ASSERT_EQ(found[i], expected.values[i]) << "query " << i;
    }
  }
  EXPECT_EQ(std::count(statuses.begin(), statuses.end(), status::invalid_key),
            static_cast<std::ptrdiff_t>(reserved.size()));
  EXPECT_GT(std::count(statuses.begin(), statuses.end(), status::not_found), 0);
  EXPECT_GT(std::count(statuses.begin(), statuses.end(), status::found), 0);
}

REGISTER_TYPED_TEST_SUITE_P(hashgraph_key_types, find_in_bucket_order_answers_as_find_does);

}  // namespace gpuhash::testing
