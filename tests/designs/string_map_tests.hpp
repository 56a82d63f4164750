#pragma once
// gpuhash::string_map on one backend: a .cpp (CPU) and a .cu (CUDA) include
// this header and instantiate it, so both run the same tests against
// std::unordered_map<std::string, ...>. Header-only here
// (string_map_impl.hpp), so that the policy tests can use types of their own.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gpuhash/status.hpp"
#include "gpuhash/string_map_impl.hpp"
#include "gpuhash/table_options.hpp"
#include "support/launch.hpp"
#include "support/random.hpp"
#include "support/transfer.hpp"

namespace gpuhash::testing {

/// Strings that stress the byte comparison: shared prefixes, prefixes of
/// each other, zero bytes inside, the empty string, lengths across the
/// 8-byte steps of the hash and long keys that differ in their last byte.
inline std::vector<std::string> tricky_strings(seeded_random& random, std::size_t n) {
  std::vector<std::string> out{"",
                               "a",
                               "aa",
                               "aaa",
                               std::string("a\0", 2),
                               std::string(1, '\0'),
                               std::string(8, 'x'),
                               std::string(9, 'x'),
                               std::string(16, 'x')};
  const std::string long_prefix(1000, 'p');
  out.push_back(long_prefix + "1");
  out.push_back(long_prefix + "2");
  while (out.size() < n) {
    std::string s;
    switch (random.below(3)) {
      case 0: s = "user:"; break;     // a shared prefix
      case 1: s = "session/"; break;  // another
      default: break;
    }
    const std::size_t length = random.below(random.below(8) == 0 ? 200 : 40);
    for (std::size_t i = 0; i < length; ++i) s.push_back(static_cast<char>(random.below(256)));
    out.push_back(std::move(s));
  }
  return out;
}

/// prefix followed by n in decimal (built by appending: GCC 12 at -O3 warns,
/// wrongly, about `"literal" + std::to_string(n)`).
inline std::string numbered(const char* prefix, std::uint64_t n) {
  std::string out(prefix);
  out.append(std::to_string(n));
  return out;
}

inline std::vector<std::string_view> views_of(const std::vector<std::string>& strings) {
  return {strings.begin(), strings.end()};
}

/// Strings as a column in backend memory (Arrow's layout), with offsets of
/// type Offset starting at `base` (a slice of a larger column).
template <class Backend, class Offset>
struct backend_column {
  decltype(to_backend<Backend>(std::vector<char>{})) bytes;
  decltype(to_backend<Backend>(std::vector<Offset>{})) offsets;
  std::size_t count = 0;

  backend_column(const std::vector<std::string>& strings, std::size_t base = 0) {
    std::vector<char> host_bytes(base, '#');
    std::vector<Offset> host_offsets{static_cast<Offset>(base)};
    for (const std::string& s : strings) {
      host_bytes.insert(host_bytes.end(), s.begin(), s.end());
      host_offsets.push_back(static_cast<Offset>(host_bytes.size()));
    }
    bytes = to_backend<Backend>(host_bytes);
    offsets = to_backend<Backend>(host_offsets);
    count = strings.size();
  }
  string_column column() const { return {bytes.data(), offsets.data(), count}; }
};

/// Checks one batch's statuses against the reference and applies it there.
/// Within a batch a key may repeat: exactly one of its inserts lands (the
/// others answer exists, or updated for upserts), one of its erases.
template <class Value>
void check_and_apply(std::unordered_map<std::string, Value>& reference, char kind,
                     const std::vector<std::string>& keys, const std::vector<Value>& values,
                     const std::vector<status>& statuses,
                     const std::unordered_map<std::string, Value>& stored_after) {
  std::map<std::string, std::vector<std::size_t>> positions;
  for (std::size_t i = 0; i < keys.size(); ++i) positions[keys[i]].push_back(i);
  for (const auto& [key, at] : positions) {
    SCOPED_TRACE(numbered("key bytes ", key.size()).append(", kind ").append(1, kind));
    const bool present = reference.contains(key);
    std::size_t landed = 0;
    for (const std::size_t i : at) {
      const status s = statuses[i];
      if (kind == 'i') {
        EXPECT_TRUE(s == status::inserted || s == status::exists);
        landed += s == status::inserted;
      } else if (kind == 'u') {
        EXPECT_TRUE(s == status::inserted || s == status::updated);
        landed += s == status::inserted;
      } else {
        EXPECT_TRUE(s == status::erased || s == status::not_found);
        landed += s == status::erased;
      }
    }
    if (kind == 'e') {
      EXPECT_EQ(landed, present ? 1U : 0U);
      reference.erase(key);
      EXPECT_FALSE(stored_after.contains(key));
      continue;
    }
    EXPECT_EQ(landed, present ? 0U : 1U);
    ASSERT_TRUE(stored_after.contains(key));
    const Value now = stored_after.at(key);
    if (kind == 'i' && present) {
      EXPECT_EQ(now, reference[key]);
    } else if (kind == 'i') {
      for (const std::size_t i : at) {
        if (statuses[i] == status::inserted) {
          EXPECT_EQ(now, values[i]);
        }
      }
    } else {
      const bool from_batch =
          std::any_of(at.begin(), at.end(), [&](std::size_t i) { return values[i] == now; });
      EXPECT_TRUE(from_batch);
    }
    reference[key] = now;
  }
}

template <class Map>
std::unordered_map<std::string, typename Map::mapped_type> stored_pairs(Map& map) {
  const auto contents = map.retrieve_all();
  std::unordered_map<std::string, typename Map::mapped_type> out;
  for (std::size_t i = 0; i < contents.size(); ++i) {
    const auto [where, fresh] = out.emplace(std::string(contents.key(i)), contents.values[i]);
    EXPECT_TRUE(fresh) << "a key is stored twice";
  }
  return out;
}

template <class Backend>
class string_map_test : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Backend::available())
      GTEST_SKIP() << "no " << Backend::name
                   << " device: these tests need an NVIDIA GPU (scripts/gpu-check runs them)";
  }
};
TYPED_TEST_SUITE_P(string_map_test);

// Rounds of random batches (inserts, upserts, finds, erases; keys repeated
// within a batch; absent keys) from a small table that grows, against
// std::unordered_map; the stored pairs are compared after every batch.
TYPED_TEST_P(string_map_test, matches_an_unordered_map) {
  using map_type = string_map<std::uint64_t, TypeParam>;
  seeded_random random;
  const auto universe = tricky_strings(random, scaled(3000));
  map_type map(table_options{16, 0.0f, random.next()});
  std::unordered_map<std::string, std::uint64_t> reference;
  for (int round = 0; round < 24; ++round) {
    const char kind = "iiuef"[random.below(5)];
    std::vector<std::string> keys(1 + random.below(scaled(2000)));
    std::vector<std::uint64_t> values(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      keys[i] = universe[random.below(universe.size())];
      values[i] = random.next() >> 1;
    }
    const auto views = views_of(keys);
    SCOPED_TRACE(numbered("round ", static_cast<std::uint64_t>(round)));
    if (kind == 'f') {
      const auto [found, statuses] = map.find(views);
      for (std::size_t i = 0; i < keys.size(); ++i) {
        const auto it = reference.find(keys[i]);
        ASSERT_EQ(statuses[i], it == reference.end() ? status::not_found : status::found);
        if (it != reference.end()) {
          EXPECT_EQ(found[i], it->second);
        }
      }
      continue;
    }
    std::vector<status> statuses;
    if (kind == 'i') statuses = map.insert(views, values);
    if (kind == 'u') statuses = map.insert_or_assign(views, values);
    if (kind == 'e') statuses = map.erase(views);
    check_and_apply(reference, kind, keys, values, statuses, stored_pairs(map));
    ASSERT_EQ(map.size(), reference.size());
  }
  EXPECT_GT(map.rebuilds(), 0U) << "the table never grew: the test covers less than it says";
}

// Arrow's two offset widths, and a slice whose offsets do not start at 0.
TYPED_TEST_P(string_map_test, takes_arrow_columns_of_both_offset_widths_and_slices) {
  using map_type = string_map<std::uint32_t, TypeParam>;
  seeded_random random;
  auto keys = tricky_strings(random, 500);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  std::vector<std::uint32_t> values(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) values[i] = static_cast<std::uint32_t>(i);
  map_type map;
  const backend_column<TypeParam, std::int32_t> narrow(keys, 77);
  auto device_values = to_backend<TypeParam>(values);
  auto statuses = to_backend<TypeParam>(std::vector<status>(keys.size()));
  map.insert(narrow.column(), device_values.data(), statuses.data());
  for (const status s : to_host<TypeParam>(statuses.data(), keys.size()))
    EXPECT_EQ(s, status::inserted);

  const backend_column<TypeParam, std::int64_t> wide(keys, 5);
  auto found = to_backend<TypeParam>(std::vector<std::uint32_t>(keys.size(), 0));
  map.find(wide.column(), found.data(), statuses.data());
  EXPECT_EQ(to_host<TypeParam>(found.data(), keys.size()), values);
  for (const status s : to_host<TypeParam>(statuses.data(), keys.size()))
    EXPECT_EQ(s, status::found);
  EXPECT_EQ(map.size(), keys.size());
}

// A key whose offsets are out of order gets invalid_key; the batch's other
// keys are stored, and nothing is lost.
TYPED_TEST_P(string_map_test, bad_offsets_get_invalid_key_and_the_rest_land) {
  using map_type = string_map<std::uint32_t, TypeParam>;
  const std::vector<char> bytes{'a', 'b', 'c', 'd', 'e', 'f'};
  const std::vector<std::int64_t> offsets{0, 2, 1, 4, 6};  // key 1 ends before it begins
  auto device_bytes = to_backend<TypeParam>(bytes);
  auto device_offsets = to_backend<TypeParam>(offsets);
  auto values = to_backend<TypeParam>(std::vector<std::uint32_t>{1, 2, 3, 4});
  auto statuses = to_backend<TypeParam>(std::vector<status>(4));
  map_type map;
  map.insert(string_column(device_bytes.data(), device_offsets.data(), 4), values.data(),
             statuses.data());
  EXPECT_EQ(to_host<TypeParam>(statuses.data(), 4),
            (std::vector<status>{status::inserted, status::invalid_key, status::inserted,
                                 status::inserted}));
  const auto [found, found_statuses] =
      map.find(std::vector<std::string_view>{"ab", "bcd", "ef", "cd"});
  EXPECT_EQ(found_statuses,
            (std::vector<status>{status::found, status::found, status::found, status::not_found}));
  EXPECT_EQ(found, (std::vector<std::uint32_t>{1, 3, 4, 0}));
  EXPECT_EQ(map.size(), 3U);

  // Finds and erases check the same column the same way; a key that ends
  // past the column's last offset (7 > 6) is refused too.
  const std::vector<std::int64_t> reads{0, 7, 2, 4, 6};  // key 0: [0, 7); key 1: [7, 2)
  auto read_offsets = to_backend<TypeParam>(reads);
  const string_column column(device_bytes.data(), read_offsets.data(), 4);
  map.find(column, values.data(), statuses.data());
  EXPECT_EQ(to_host<TypeParam>(statuses.data(), 4),
            (std::vector<status>{status::invalid_key, status::invalid_key, status::not_found,
                                 status::found}));
  map.erase(column, statuses.data());
  EXPECT_EQ(to_host<TypeParam>(statuses.data(), 4),
            (std::vector<status>{status::invalid_key, status::invalid_key, status::not_found,
                                 status::erased}));
  EXPECT_EQ(map.size(), 2U);
}

// Erased keys' bytes and tombstones are dropped by the rebuilds: a table
// that erases and reinserts the same keys again and again stays its size.
TYPED_TEST_P(string_map_test, churn_keeps_the_arena_bounded) {
  using map_type = string_map<std::uint64_t, TypeParam>;
  seeded_random random;
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < scaled(2000); ++i) keys.push_back(numbered("key-", random.next()));
  const auto views = views_of(keys);
  std::vector<std::uint64_t> values(keys.size(), 7);
  map_type map;
  std::size_t key_bytes = 0;
  for (const auto& k : keys) key_bytes += k.size();
  for (int round = 0; round < 20; ++round) {
    for (const status s : map.insert(views, values)) ASSERT_EQ(s, status::inserted);
    for (const status s : map.erase(views)) ASSERT_EQ(s, status::erased);
  }
  EXPECT_EQ(map.size(), 0U);
  EXPECT_LE(map.arena_capacity(), 8 * key_bytes + 4096);
  EXPECT_LE(map.capacity(), std::max<std::size_t>(1024, 8 * keys.size()));  // 1024: the start
  map.compact();
  EXPECT_EQ(map.arena_used(), 0U);
}

/// A hash that sends every key of a length to one slot: every match must
/// be confirmed against the stored bytes.
struct length_only_hash {
  GPUHASH_HD std::uint64_t operator()(const char*, std::uint32_t length, std::uint64_t) const {
    return std::uint64_t{length} * 0x9e3779b97f4a7c15ULL;
  }
};

/// A 16-byte value of the caller's own.
struct span_value {
  std::uint64_t begin;
  std::uint64_t end;
  bool operator==(const span_value&) const = default;
};

TYPED_TEST_P(string_map_test, colliding_hashes_are_told_apart_by_the_bytes) {
  using map_type = string_map<span_value, TypeParam, length_only_hash>;
  std::vector<std::string> keys;
  for (int i = 0; i < 300; ++i)
    keys.push_back(numbered("k", 1000 + static_cast<std::uint64_t>(i)));  // all 5 bytes
  std::vector<span_value> values;
  for (std::uint64_t i = 0; i < keys.size(); ++i) values.push_back({i, ~i});
  map_type map;
  for (const status s : map.insert(views_of(keys), values)) EXPECT_EQ(s, status::inserted);
  const auto [found, statuses] = map.find(views_of(keys));
  EXPECT_EQ(found, values);
  const auto [missing, missing_statuses] =
      map.find(std::vector<std::string_view>{"k0999", "k1300", "k100"});
  EXPECT_EQ(missing_statuses, std::vector<status>(3, status::not_found));
}

/// Thread i inserts key i % distinct of a column through the ref, then
/// finds it (one kernel, many threads on each key).
template <class Ref>
struct insert_then_find {
  Ref ref;
  const char* bytes;
  const std::int64_t* offsets;
  std::uint64_t distinct;
  status* inserts;
  std::uint32_t* found;
  GPUHASH_HD void operator()(std::uint64_t i) const {
    const std::uint64_t k = i % distinct;
    const char* key = bytes + offsets[k];
    const auto length = static_cast<std::uint32_t>(offsets[k + 1] - offsets[k]);
    inserts[i] = ref.insert(key, length, static_cast<std::uint32_t>(k));
    std::uint32_t value = ~0U;
    if (inserts[i] != status::full && ref.find(key, length, &value) == status::found)
      found[i] = value;
  }
};

// Refs insert from many threads at once: one insert of each key lands, every
// thread then finds it; with a small arena some inserts answer full, and the
// host inserts those afterwards (the table grows), losing none.
TYPED_TEST_P(string_map_test, refs_insert_and_find_and_full_keys_are_kept) {
  using map_type = string_map<std::uint32_t, TypeParam>;
  seeded_random random;
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < scaled(4000); ++i)
    keys.push_back(numbered("ref-", random.next()).append(random.below(30), 'z'));
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  const backend_column<TypeParam, std::int64_t> column(keys);
  const std::size_t n = 4 * keys.size();
  auto inserts = to_backend<TypeParam>(std::vector<status>(n));
  auto found = to_backend<TypeParam>(std::vector<std::uint32_t>(n, ~0U));
  map_type map(table_options{4 * keys.size(), 0.0f, random.next()});  // room for slots, not bytes
  support::launcher<TypeParam>::for_each(
      n, insert_then_find<typename map_type::ref_type>{map.ref(), column.bytes.data(),
                                                       column.offsets.data(), keys.size(),
                                                       inserts.data(), found.data()});
  TypeParam::synchronize({});
  const auto statuses = to_host<TypeParam>(inserts.data(), n);
  const auto values = to_host<TypeParam>(found.data(), n);
  std::vector<std::size_t> landed(keys.size(), 0);
  std::vector<bool> refused(keys.size(), false);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t k = i % keys.size();
    landed[k] += statuses[i] == status::inserted;
    if (statuses[i] == status::full) {
      refused[k] = true;
    } else {
      EXPECT_EQ(values[i], k) << "thread " << i;
    }
  }
  std::vector<std::string_view> retry;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    EXPECT_LE(landed[k], 1U);
    if (landed[k] == 0) {
      EXPECT_TRUE(refused[k]);
      retry.push_back(keys[k]);
    }
  }
  EXPECT_FALSE(retry.empty()) << "the arena never ran out: the full path was not tested";
  EXPECT_EQ(map.size(), keys.size() - retry.size());
  std::vector<std::uint32_t> retry_values;
  for (const std::string_view key : retry)
    retry_values.push_back(
        static_cast<std::uint32_t>(std::lower_bound(keys.begin(), keys.end(), key) - keys.begin()));
  for (const status s : map.insert(retry, retry_values)) EXPECT_EQ(s, status::inserted);
  const auto [all, all_statuses] = map.find(views_of(keys));
  for (std::size_t k = 0; k < keys.size(); ++k) {
    EXPECT_EQ(all_statuses[k], status::found);
    EXPECT_EQ(all[k], k);
  }
  EXPECT_EQ(map.size(), keys.size());
}

REGISTER_TYPED_TEST_SUITE_P(string_map_test, matches_an_unordered_map,
                            takes_arrow_columns_of_both_offset_widths_and_slices,
                            bad_offsets_get_invalid_key_and_the_rest_land,
                            churn_keeps_the_arena_bounded,
                            colliding_hashes_are_told_apart_by_the_bytes,
                            refs_insert_and_find_and_full_keys_are_kept);

}  // namespace gpuhash::testing
