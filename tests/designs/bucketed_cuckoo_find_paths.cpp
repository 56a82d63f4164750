// The bucketed cuckoo table's two find paths on the GPU
// (bucketed_cuckoo_find_path::tile, one tile per key, in a two-choice
// configuration, against the library's default table, one thread per key)
// after the same operations: both must answer find and contains like a
// std::unordered_map model, and so like each other, for keys present,
// erased, re-inserted behind tombstones, never inserted, and reserved; in
// tables from two buckets (where a key's choices often share a bucket) to
// load 0.95 (where misses read every bucket).

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpuhash/bucketed_cuckoo_map.hpp"
#include "gpuhash/cuda/backend.hpp"
#include "support/random.hpp"
#include "support/table_helpers.hpp"

namespace gpuhash::testing {
namespace {

/// A tile table: tile finds, two choices, the default's bucket size for its
/// pairs.
template <class Key, class Value>
using tile_table_of = bucketed_cuckoo_map_with<
    Key, Value, cuda_backend,
    bucketed_cuckoo_config<bucketed_cuckoo_default_config<Key, Value>::bucket_bytes, 2,
                           bucketed_cuckoo_eviction::lookahead, bucketed_cuckoo_find_path::tile>>;

/// Tile tables for the pairs the library compiles; both are instantiated in
/// bucketed_cuckoo_tile.cu.
using tile_tables = ::testing::Types<tile_table_of<std::uint32_t, std::uint32_t>,
                                     tile_table_of<std::uint64_t, std::uint64_t>>;

template <class Table>
class bucketed_cuckoo_find_paths : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_backend::available())
      GTEST_SKIP()
          << "no cuda device: these tests need an NVIDIA GPU (scripts/gpu-check runs them)";
  }
};

TYPED_TEST_SUITE(bucketed_cuckoo_find_paths, tile_tables);

TYPED_TEST(bucketed_cuckoo_find_paths, tile_and_per_thread_finds_agree_with_a_model) {
  using tile_table = TypeParam;
  using K = typename tile_table::key_type;
  using V = typename tile_table::mapped_type;
  using thread_table = bucketed_cuckoo_map<K, V, cuda_backend>;
  static_assert(tile_table::engine_type::finds == bucketed_cuckoo_find_path::tile &&
                thread_table::engine_type::finds == bucketed_cuckoo_find_path::per_thread);
  seeded_random random;

  struct shape {
    std::size_t keys;
    float load;
  };
  for (const shape& shape : {shape{8, 1.0f}, shape{100, 0.9f}, shape{scaled(60000), 0.95f}}) {
    SCOPED_TRACE(std::to_string(shape.keys) + " keys at load " + std::to_string(shape.load));
    const auto capacity =
        static_cast<std::size_t>(std::ceil(static_cast<double>(shape.keys) / shape.load));
    const table_options options{capacity, shape.load, random.next()};
    tile_table tiles(options);
    thread_table threads(options);

    // Insert the first half of `all`, erase every third of those, re-insert
    // every second erased key (new values, often behind its tombstone); the
    // second half of `all` is never inserted.
    const auto all = distinct_keys<tile_table>(random, 2 * shape.keys);
    const std::vector<K> keys(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(shape.keys));
    const auto values = random_values<V>(random, keys.size());
    std::vector<K> erased;
    for (std::size_t i = 0; i < keys.size(); i += 3) erased.push_back(keys[i]);
    std::vector<K> returned;
    for (std::size_t i = 0; i < erased.size(); i += 2) returned.push_back(erased[i]);
    const auto returned_values = random_values<V>(random, returned.size());

    std::unordered_map<K, V> model;
    for (std::size_t i = 0; i < keys.size(); ++i) model[keys[i]] = values[i];
    for (const K key : erased) model.erase(key);
    for (std::size_t i = 0; i < returned.size(); ++i) model[returned[i]] = returned_values[i];

    const auto build = [&](auto& table) {
      for (const status s : table.insert(keys, values)) ASSERT_EQ(s, status::inserted);
      for (const status s : table.erase(erased)) ASSERT_EQ(s, status::erased);
      for (const status s : table.insert(returned, returned_values)) ASSERT_EQ(s, status::inserted);
      ASSERT_EQ(table.size(), model.size());
    };
    build(tiles);
    build(threads);
    if (::testing::Test::HasFatalFailure()) return;

    std::vector<K> queries = sample_distinct(all, all.size(), random);
    for (const K reserved : tile_table::reserved_keys()) queries.push_back(reserved);
    const auto expected = [&](std::size_t i) {
      if (tile_table::is_reserved(queries[i])) return status::invalid_key;
      return model.contains(queries[i]) ? status::found : status::not_found;
    };
    const auto check = [&](auto& table, const char* path) {
      const auto found = table.find(queries);
      const auto flags = table.contains(queries);
      const auto answers_like_the_model = [&](std::size_t i) {
        const status want = expected(i);
        return found.statuses[i] == want && flags[i] == (want == status::found) &&
               (want != status::found || found.values[i] == model.at(queries[i]));
      };
      const auto describe = [&](std::size_t i) {
        return "key " + std::to_string(queries[i]) + ": find " +
               std::string(to_string(found.statuses[i])) + " value " +
               std::to_string(found.values[i]) + ", contains " + (flags[i] ? "true" : "false") +
               "; expected " + std::string(to_string(expected(i)));
      };
      EXPECT_EQ(first_failures(queries.size(), answers_like_the_model, describe), "") << path;
    };
    check(tiles, "one tile per key");
    check(threads, "one thread per key");
  }
}

}  // namespace
}  // namespace gpuhash::testing
