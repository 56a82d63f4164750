#pragma once
// Helpers shared by the conformance suite and its checks: naming the typed
// instances, drawing keys a design accepts, reading a table back into a
// std::unordered_map while checking that no key is stored twice, comparing
// two tables on the same batches, drawing mixed batches.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gpuhash/hash.hpp"
#include "gpuhash/operation.hpp"
#include "random.hpp"

namespace gpuhash::testing {

/// A random key the table accepts (not reserved).
template <class Table>
typename Table::key_type random_key(seeded_random& random) {
  using key_type = typename Table::key_type;
  for (;;) {
    const auto key = static_cast<key_type>(random.next());
    if (!Table::is_reserved(key)) return key;
  }
}

/// n distinct random keys the table accepts.
template <class Table>
std::vector<typename Table::key_type> distinct_keys(seeded_random& random, std::size_t n) {
  std::unordered_set<typename Table::key_type> seen;
  std::vector<typename Table::key_type> keys;
  keys.reserve(n);
  while (keys.size() < n) {
    const auto key = random_key<Table>(random);
    if (seen.insert(key).second) keys.push_back(key);
  }
  return keys;
}

/// `count` distinct elements of `pool`, in random order (a partial shuffle).
template <class Key>
std::vector<Key> sample_distinct(const std::vector<Key>& pool, std::size_t count,
                                 seeded_random& random) {
  std::vector<Key> sample = pool;
  for (std::size_t i = 0; i < count; ++i)
    std::swap(sample[i], sample[i + random.below(sample.size() - i)]);
  sample.resize(count);
  return sample;
}

/// A mixed batch of random operations on keys of `pool`, a key in any
/// position and at most `per_key` operations on one key, so that the search
/// for a serial order (serial_order.hpp) stays small.
template <class Key>
struct mixed_batch {
  std::vector<Key> keys;
  std::vector<operation> ops;
};

/// About 3 |pool| draws of a key of `pool` and an operation, a draw dropped
/// where its key has `per_key` operations already.
template <class Key>
mixed_batch<Key> random_mixed_batch(const std::vector<Key>& pool, seeded_random& random,
                                    std::size_t per_key = 6) {
  mixed_batch<Key> batch;
  std::vector<std::size_t> uses(pool.size(), 0);
  for (std::size_t i = 0; i < 3 * pool.size(); ++i) {
    const std::size_t k = random.below(pool.size());
    if (uses[k] == per_key) continue;
    ++uses[k];
    batch.keys.push_back(pool[k]);
    batch.ops.push_back(static_cast<operation>(random.below(5)));
  }
  return batch;
}

template <class Value>
std::vector<Value> random_values(seeded_random& random, std::size_t n) {
  std::vector<Value> values(n);
  for (auto& value : values) value = static_cast<Value>(random.next());
  return values;
}

/// Returns the positions i < limit where `ok(i)` is false, as a short message
/// ("" when all are fine), so a failing batch reports a few cases, not 10^5.
template <class Predicate, class Describe>
std::string first_failures(std::size_t limit, Predicate ok, Describe describe) {
  std::string message;
  std::size_t failures = 0;
  for (std::size_t i = 0; i < limit; ++i) {
    if (ok(i)) continue;
    if (++failures <= 5) message += "\n  " + describe(i);
  }
  if (failures > 5) message += "\n  ... and " + std::to_string(failures - 5) + " more";
  if (failures > 0)
    message = std::to_string(failures) + " of " + std::to_string(limit) + " failed:" + message;
  return message;
}

/// The table's contents. Fails the test if retrieve_all reports a key twice.
template <class Table>
std::unordered_map<typename Table::key_type, typename Table::mapped_type> contents(Table& table) {
  const auto [keys, values] = table.retrieve_all();
  std::unordered_map<typename Table::key_type, typename Table::mapped_type> result;
  std::size_t duplicates = 0;
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (!result.emplace(keys[i], values[i]).second) ++duplicates;
  EXPECT_EQ(duplicates, 0U) << "retrieve_all returned " << duplicates << " duplicate keys";
  EXPECT_EQ(keys.size(), table.size()) << "retrieve_all disagrees with size()";
  return result;
}

/// The fixture of a design's own typed tests: skipped, with a message,
/// where the table's backend has no device.
template <class Table>
class table_test : public ::testing::Test {
 protected:
  using key_type = typename Table::key_type;
  using value_type = typename Table::mapped_type;
  using backend_type = typename Table::backend_type;

  void SetUp() override {
    if (!backend_type::available())
      GTEST_SKIP() << "no " << backend_type::name
                   << " device: these tests need an NVIDIA GPU (scripts/gpu-check runs them)";
  }

  /// The value a key is always written with, so that a reader can check it.
  static value_type value_of(key_type key) {
    return static_cast<value_type>(murmur3_fmix64(key) | 1);
  }
};

/// Every key found with its value.
template <class Table>
void expect_all_found(Table& table, const std::vector<typename Table::key_type>& keys,
                      const std::vector<typename Table::mapped_type>& values) {
  const auto result = table.find(keys);
  EXPECT_EQ("", first_failures(
                    keys.size(),
                    [&](std::size_t i) {
                      return result.statuses[i] == status::found && result.values[i] == values[i];
                    },
                    [&](std::size_t i) { return "key " + std::to_string(keys[i]); }));
}

/// Runs the same random mixed batches (distinct keys per batch, so the
/// outcomes do not depend on the order the operations run in) on two tables
/// that must agree, comparing statuses, found values, sizes and contents.
template <class TableA, class TableB>
void expect_same_outcomes(TableA& a, TableB& b, seeded_random& random, int rounds) {
  using K = typename TableA::key_type;
  using V = typename TableA::mapped_type;
  const auto universe = distinct_keys<TableA>(random, scaled(20000));
  const std::size_t batch = scaled(4000);
  for (int round = 0; round < rounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const std::vector<K> keys = sample_distinct(universe, batch, random);
    const auto values = random_values<V>(random, batch);
    std::vector<operation> ops(batch);
    for (auto& op : ops) op = static_cast<operation>(random.below(5));
    std::vector<V> in_out_a = values;
    std::vector<V> in_out_b = values;
    ASSERT_EQ(a.apply(ops, keys, in_out_a), b.apply(ops, keys, in_out_b));
    ASSERT_EQ(in_out_a, in_out_b);
    ASSERT_EQ(a.contains(keys), b.contains(keys));
    ASSERT_EQ(a.size(), b.size());
  }
  EXPECT_EQ(contents(a), contents(b));
}

}  // namespace gpuhash::testing
