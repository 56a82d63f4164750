#pragma once
// Helpers shared by the conformance suite and its checks: naming the typed
// instances, drawing keys a design accepts, reading a table back into a
// std::unordered_map while checking that no key is stored twice.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gpuhash/hash.hpp"
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

}  // namespace gpuhash::testing
