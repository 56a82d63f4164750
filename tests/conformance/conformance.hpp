#pragma once
// The conformance suite: every design, on every backend, at every key/value
// width gets all of these tests. A .cpp per backend includes this header once
// and instantiates it over the designs registered in designs.hpp.
//
// CTest names read "conformance.<test><the table's type>", e.g.
// conformance.random_differential<gpuhash::basic_map<gpuhash::detail::
// linear_probing::engine<unsigned int, unsigned int, gpuhash::cpu_backend> >>.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <span>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "gpuhash/operation.hpp"
#include "gpuhash/status.hpp"
#include "gpuhash/table_options.hpp"
#include "support/model_checks.hpp"
#include "support/random.hpp"
#include "support/serial_order.hpp"
#include "support/table_helpers.hpp"

namespace gpuhash::testing {

template <class Table>
class conformance : public ::testing::Test {
 protected:
  using table_type = Table;
  using key_type = typename Table::key_type;
  using value_type = typename Table::mapped_type;
  using backend_type = typename Table::backend_type;
  using reference_map = std::unordered_map<key_type, value_type>;

  void SetUp() override {
    if (!backend_type::available())
      GTEST_SKIP() << "no " << backend_type::name
                   << " device: these tests need an NVIDIA GPU (scripts/gpu-check runs them)";
  }

  static Table make(std::size_t capacity = 1024, float max_load_factor = 0.0f) {
    return Table(table_options{capacity, max_load_factor, 0x5eed});
  }
};

TYPED_TEST_SUITE_P(conformance);

TYPED_TEST_P(conformance, reserved_keys_are_rejected) {
  using K = typename TestFixture::key_type;
  using V = typename TestFixture::value_type;
  auto table = TestFixture::make();
  for (const K reserved : TypeParam::reserved_keys()) {
    SCOPED_TRACE("reserved key " + std::to_string(reserved));
    const K valid = 12345;
    const std::vector<K> keys{reserved, valid};
    std::vector<V> values{1, 2};
    EXPECT_EQ(table.insert(keys, values),
              (std::vector<status>{status::invalid_key, status::inserted}));
    EXPECT_EQ(table.insert_or_assign(keys, values)[0], status::invalid_key);
    EXPECT_EQ(table.find(keys).statuses[0], status::invalid_key);
    EXPECT_EQ(table.contains(keys), (std::vector<bool>{false, true}));
    for (const operation op : {operation::search, operation::insert, operation::update,
                               operation::upsert, operation::erase}) {
      std::vector<V> in_out{7, 8};
      const std::vector<operation> ops{op, operation::search};
      EXPECT_EQ(table.apply(ops, keys, in_out)[0], status::invalid_key) << to_string(op);
    }
    EXPECT_EQ(table.erase(keys), (std::vector<status>{status::invalid_key, status::erased}));
    EXPECT_EQ(table.size(), 0U);
  }
}

TYPED_TEST_P(conformance, invalid_operations_are_reported) {
  using K = typename TestFixture::key_type;
  using V = typename TestFixture::value_type;
  auto table = TestFixture::make();
  const std::vector<K> keys{1, 2};
  std::vector<V> values{1, 2};
  const std::vector<operation> ops{static_cast<operation>(200), operation::insert};
  EXPECT_EQ(table.apply(ops, keys, values),
            (std::vector<status>{status::invalid_operation, status::inserted}));
  EXPECT_EQ(table.size(), 1U);
}

TYPED_TEST_P(conformance, invalid_arguments_throw) {
  using K = typename TestFixture::key_type;
  using V = typename TestFixture::value_type;
  EXPECT_THROW(TestFixture::make(1024, -0.5f), std::invalid_argument);
  EXPECT_THROW(TestFixture::make(1024, 1.5f), std::invalid_argument);
  auto table = TestFixture::make();
  const std::vector<K> keys{1, 2, 3};
  const std::vector<V> values{1, 2};
  EXPECT_THROW(table.insert(keys, values), std::invalid_argument);
  EXPECT_THROW(table.insert(keys.data(), nullptr, keys.size(), nullptr), std::invalid_argument);
  EXPECT_EQ(table.size(), 0U);
}

TYPED_TEST_P(conformance, random_differential) {
  using K = typename TestFixture::key_type;
  using V = typename TestFixture::value_type;
  seeded_random random;
  auto table = TestFixture::make(1024);
  typename TestFixture::reference_map reference;
  const auto universe = distinct_keys<TypeParam>(random, scaled(20000));
  const std::size_t batch = scaled(3000);

  for (int round = 0; round < 40; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    // Distinct keys within a batch, so the outcome is deterministic.
    const std::vector<K> keys = sample_distinct(universe, batch, random);
    const std::vector<V> values = random_values<V>(random, batch);
    switch (random.below(6)) {
      case 0:
        EXPECT_EQ("", insert_mismatches(reference, keys, values, table.insert(keys, values)))
            << "insert";
        break;
      case 1:
        EXPECT_EQ("", insert_or_assign_mismatches(reference, keys, values,
                                                  table.insert_or_assign(keys, values)))
            << "insert_or_assign";
        break;
      case 2: {
        const auto result = table.find(keys);
        EXPECT_EQ("", find_mismatches(reference, keys, result.values, result.statuses)) << "find";
        break;
      }
      case 3: EXPECT_EQ("", erase_mismatches(reference, keys, table.erase(keys))) << "erase"; break;
      case 4:
        EXPECT_EQ("", contains_mismatches(reference, keys, table.contains(keys))) << "contains";
        break;
      default: {
        std::vector<operation> ops(batch);
        for (auto& op : ops) op = static_cast<operation>(random.below(5));
        std::vector<V> in_out = values;
        const auto statuses = table.apply(ops, keys, in_out);
        EXPECT_EQ("", apply_mismatches(reference, ops, keys, values, statuses, in_out)) << "apply";
        break;
      }
    }
    ASSERT_EQ(table.size(), reference.size());
  }
  EXPECT_EQ(contents(table), reference);
}

TYPED_TEST_P(conformance, duplicate_keys_in_one_batch) {
  using K = typename TestFixture::key_type;
  using V = typename TestFixture::value_type;
  seeded_random random;
  auto table = TestFixture::make(256);
  const auto pool = distinct_keys<TypeParam>(random, 100);
  const std::size_t copies = 50;
  std::vector<K> keys;
  for (std::size_t c = 0; c < copies; ++c) keys.insert(keys.end(), pool.begin(), pool.end());
  std::shuffle(keys.begin(), keys.end(), random.engine());
  std::vector<V> values(keys.size());
  std::iota(values.begin(), values.end(), V{1});  // distinct, so a stored value names its writer

  // insert: exactly one copy of each key wins; the stored value is the winner's.
  const auto inserted = table.insert(keys, values);
  std::map<K, std::vector<std::size_t>> winners;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    ASSERT_TRUE(inserted[i] == status::inserted || inserted[i] == status::exists) << inserted[i];
    if (inserted[i] == status::inserted) winners[keys[i]].push_back(i);
  }
  ASSERT_EQ(winners.size(), pool.size());
  auto stored = contents(table);
  for (const auto& [key, positions] : winners) {
    ASSERT_EQ(positions.size(), 1U)
        << "key " << key << " inserted " << positions.size() << " times";
    EXPECT_EQ(stored.at(key), values[positions[0]]);
  }

  // insert_or_assign on present keys: all updated; the final value is one of theirs.
  std::vector<V> second(keys.size());
  std::iota(second.begin(), second.end(), V{100000});
  for (const status s : table.insert_or_assign(keys, second)) ASSERT_EQ(s, status::updated);
  stored = contents(table);
  for (const K key : pool) {
    bool written = false;
    for (std::size_t i = 0; i < keys.size(); ++i)
      written |= keys[i] == key && second[i] == stored.at(key);
    EXPECT_TRUE(written) << "key " << key << " holds a value no upsert wrote";
  }

  // erase: exactly one copy of each key erases it.
  const auto erased = table.erase(keys);
  EXPECT_EQ(static_cast<std::size_t>(std::count(erased.begin(), erased.end(), status::erased)),
            pool.size());
  EXPECT_EQ(static_cast<std::size_t>(std::count(erased.begin(), erased.end(), status::not_found)),
            keys.size() - pool.size());
  EXPECT_EQ(table.size(), 0U);

  // insert_or_assign on absent keys: one inserted per key, the rest updated.
  const auto upserted = table.insert_or_assign(keys, values);
  EXPECT_EQ(
      static_cast<std::size_t>(std::count(upserted.begin(), upserted.end(), status::inserted)),
      pool.size());
  EXPECT_EQ(table.size(), pool.size());
  EXPECT_EQ(contents(table).size(), pool.size());
}

TYPED_TEST_P(conformance, absent_keys) {
  using K = typename TestFixture::key_type;
  using V = typename TestFixture::value_type;
  seeded_random random;
  auto table = TestFixture::make();
  const auto keys = distinct_keys<TypeParam>(random, 2000);
  const std::vector<K> present(keys.begin(), keys.begin() + 1000);
  const std::vector<K> absent(keys.begin() + 1000, keys.end());
  table.insert(present, random_values<V>(random, present.size()));

  auto result = table.find(absent);
  for (const status s : result.statuses) ASSERT_EQ(s, status::not_found);
  for (const bool flag : table.contains(absent)) ASSERT_FALSE(flag);
  for (const status s : table.erase(absent)) ASSERT_EQ(s, status::not_found);
  std::vector<operation> updates(absent.size(), operation::update);
  std::vector<V> values = random_values<V>(random, absent.size());
  for (const status s : table.apply(updates, absent, values)) ASSERT_EQ(s, status::not_found);
  EXPECT_EQ(table.size(), present.size());

  auto empty = TestFixture::make();
  result = empty.find(present);
  for (const status s : result.statuses) ASSERT_EQ(s, status::not_found);
}

TYPED_TEST_P(conformance, erase_then_reinsert_never_duplicates) {
  using K = typename TestFixture::key_type;
  using V = typename TestFixture::value_type;
  seeded_random random;
  auto table = TestFixture::make(1024);
  const std::size_t initial_capacity = table.capacity();
  const auto keys = distinct_keys<TypeParam>(random, scaled(4000));
  const std::vector<K> half(keys.begin(), keys.begin() + keys.size() / 2);
  typename TestFixture::reference_map reference;

  for (int cycle = 0; cycle < 30; ++cycle) {
    SCOPED_TRACE("cycle " + std::to_string(cycle));
    const auto values = random_values<V>(random, keys.size());
    const auto statuses = table.insert_or_assign(keys, values);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      ASSERT_EQ(statuses[i], reference.contains(keys[i]) ? status::updated : status::inserted);
      reference[keys[i]] = values[i];
    }
    for (const status s : table.erase(half)) ASSERT_EQ(s, status::erased);
    for (const K key : half) reference.erase(key);
    ASSERT_EQ(table.size(), reference.size());
  }
  EXPECT_EQ(contents(table), reference);
  // Tombstones are reclaimed: 30 cycles of churn must not have grown the table
  // far beyond what its keys need (counted from its capacity at creation,
  // which for chained designs includes a node pool beyond the hint).
  EXPECT_LE(table.capacity(),
            initial_capacity + 8 * static_cast<std::size_t>(static_cast<double>(keys.size()) /
                                                            table.max_load_factor()));
}

TYPED_TEST_P(conformance, erase_and_reinsert_in_one_batch) {
  using K = typename TestFixture::key_type;
  using V = typename TestFixture::value_type;
  seeded_random random;
  auto table = TestFixture::make(512);
  const auto keys = distinct_keys<TypeParam>(random, scaled(2000));
  table.insert(keys, random_values<V>(random, keys.size()));
  for (int round = 0; round < 10; ++round) {
    // Each key: erase, insert and upsert in one batch, in shuffled order.
    std::vector<K> batch_keys;
    std::vector<operation> ops;
    for (const K key : keys) {
      for (const operation op : {operation::erase, operation::insert, operation::upsert}) {
        batch_keys.push_back(key);
        ops.push_back(op);
      }
    }
    std::vector<std::size_t> order(batch_keys.size());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), random.engine());
    std::vector<K> shuffled_keys(order.size());
    std::vector<operation> shuffled_ops(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
      shuffled_keys[i] = batch_keys[order[i]];
      shuffled_ops[i] = ops[order[i]];
    }
    const auto before = contents(table);
    const auto inputs = random_values<V>(random, order.size());
    auto in_out = inputs;
    const auto statuses = table.apply(shuffled_ops, shuffled_keys, in_out);
    const auto after = contents(table);  // fails on any duplicate
    for (const auto& [key, history] :
         batch_histories(shuffled_keys, shuffled_ops, inputs, statuses, in_out, before, after))
      ASSERT_TRUE(has_serial_order(history)) << "key " << key;
  }
}

TYPED_TEST_P(conformance, grows_past_ten_times_initial_capacity) {
  using V = typename TestFixture::value_type;
  seeded_random random;
  const std::size_t initial = 1024;
  auto table = TestFixture::make(initial);
  const auto keys = distinct_keys<TypeParam>(random, 12 * initial);
  const auto values = random_values<V>(random, keys.size());
  // Batches of growing size, then one batch larger than the whole table.
  std::size_t done = 0;
  for (std::size_t size = 1; done + size <= keys.size() / 2; size *= 3) {
    const auto statuses =
        table.insert(std::span(keys).subspan(done, size), std::span(values).subspan(done, size));
    for (const status s : statuses) ASSERT_EQ(s, status::inserted);
    done += size;
  }
  const auto rest = table.insert(std::span(keys).subspan(done), std::span(values).subspan(done));
  for (const status s : rest) ASSERT_EQ(s, status::inserted);
  EXPECT_EQ(table.size(), keys.size());
  EXPECT_GE(table.capacity(), keys.size());
  expect_all_found(table, keys, values);
}

TYPED_TEST_P(conformance, mixed_apply_matches_a_serial_order) {
  using V = typename TestFixture::value_type;
  seeded_random random;
  auto table = TestFixture::make(1024);
  const auto pool = distinct_keys<TypeParam>(random, scaled(3000));
  typename TestFixture::reference_map reference;

  for (int round = 0; round < 8; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const auto [keys, ops] = random_mixed_batch(pool, random);
    const auto inputs = random_values<V>(random, keys.size());
    std::vector<V> in_out = inputs;
    const auto statuses = table.apply(ops, keys, in_out);
    const auto after = contents(table);

    const auto histories = batch_histories(keys, ops, inputs, statuses, in_out, reference, after);
    std::size_t unexplained = 0;
    for (const auto& [key, history] : histories) {
      if (!has_serial_order(history) && ++unexplained <= 3) {
        std::string trace = "key " + std::to_string(key) + ":";
        for (const auto& op : history.operations)
          trace += " " + std::string(to_string(op.op)) + "->" + std::string(to_string(op.result));
        ADD_FAILURE() << "no serial order explains " << trace;
      }
    }
    EXPECT_EQ(unexplained, 0U);
    for (const auto& [key, value] : reference) {
      if (!histories.contains(key)) {
        EXPECT_EQ(after.at(key), value) << "untouched key changed";
      }
    }
    reference = after;
  }
}

TYPED_TEST_P(conformance, keys_at_the_edges_of_the_range) {
  using K = typename TestFixture::key_type;
  using V = typename TestFixture::value_type;
  auto table = TestFixture::make();
  std::vector<K> keys{0, 1, 2};
  K largest = std::numeric_limits<K>::max();
  while (TypeParam::is_reserved(largest)) --largest;
  keys.push_back(largest);
  keys.push_back(largest - 1);
  if constexpr (sizeof(K) == 8) {
    // Keys that differ only above bit 31 are different keys.
    for (K low : {K{5}, K{0xffffffff}}) {
      keys.push_back(low + (K{1} << 32));
      keys.push_back(low + (K{7} << 40));
      keys.push_back(low);
    }
  }
  std::vector<V> values(keys.size());
  std::iota(values.begin(), values.end(), V{1000});
  for (const status s : table.insert(keys, values)) ASSERT_EQ(s, status::inserted);
  const auto result = table.find(keys);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(result.statuses[i], status::found) << keys[i];
    EXPECT_EQ(result.values[i], values[i]) << keys[i];
  }
  // Values have no reserved bits: every value round-trips.
  const std::vector<V> extreme_values{std::numeric_limits<V>::max(), 0,
                                      std::numeric_limits<V>::max() - 1};
  const std::vector<K> three(keys.begin(), keys.begin() + 3);
  table.insert_or_assign(three, extreme_values);
  EXPECT_EQ(table.find(three).values, extreme_values);
}

TYPED_TEST_P(conformance, backend_memory_forms) {
  using K = typename TestFixture::key_type;
  using V = typename TestFixture::value_type;
  using B = typename TestFixture::backend_type;
  seeded_random random;
  auto table = TestFixture::make(1024);
  const std::size_t n = scaled(5000);
  const auto keys = distinct_keys<TypeParam>(random, n);
  const auto values = random_values<V>(random, n);
  auto d_keys = B::template allocate<K>(n);
  auto d_values = B::template allocate<V>(n);
  auto d_found = B::template allocate<V>(n);
  auto d_statuses = B::template allocate<status>(n);
  auto d_flags = B::template allocate<bool>(n);
  B::copy_from_host(d_keys.data(), keys.data(), n);
  B::copy_from_host(d_values.data(), values.data(), n);

  table.insert_async(d_keys.data(), d_values.data(), n, d_statuses.data());
  table.find_async(d_keys.data(), n, d_found.data(), d_statuses.data());
  table.contains_async(d_keys.data(), n, d_flags.data());
  B::synchronize({});
  std::vector<V> found(n);
  std::vector<status> statuses(n);
  B::copy_to_host(found.data(), d_found.data(), n);
  B::copy_to_host(statuses.data(), d_statuses.data(), n);
  EXPECT_EQ(found, values);
  for (const status s : statuses) ASSERT_EQ(s, status::found);
  auto flags = B::template allocate_host<bool>(n);
  B::copy_to_host(flags.data(), d_flags.data(), n);
  EXPECT_TRUE(std::all_of(flags.data(), flags.data() + n, [](bool f) { return f; }));

  auto d_out_keys = B::template allocate<K>(n);
  auto d_out_values = B::template allocate<V>(n);
  ASSERT_EQ(table.retrieve_all(d_out_keys.data(), d_out_values.data()), n);

  table.erase(d_keys.data(), n, d_statuses.data());
  B::copy_to_host(statuses.data(), d_statuses.data(), n);
  for (const status s : statuses) ASSERT_EQ(s, status::erased);
  EXPECT_TRUE(table.empty());
}

TYPED_TEST_P(conformance, find_with_found_flags) {
  using K = typename TestFixture::key_type;
  using V = typename TestFixture::value_type;
  using B = typename TestFixture::backend_type;
  seeded_random random;
  auto table = TestFixture::make(1024);
  const std::size_t n = scaled(4000);
  auto keys = distinct_keys<TypeParam>(random, n);
  const auto values = random_values<V>(random, n);
  table.insert(std::span<const K>(keys).first(n / 2), std::span<const V>(values).first(n / 2));
  keys.push_back(TypeParam::reserved_keys()[0]);  // never found
  const std::size_t queries = keys.size();
  const auto expected = table.find(keys);

  auto d_keys = B::template allocate<K>(queries);
  auto d_values = B::template allocate<V>(queries);
  auto d_found = B::template allocate<bool>(queries);
  B::copy_from_host(d_keys.data(), keys.data(), queries);
  table.find(d_keys.data(), queries, d_values.data(), d_found.data());
  auto found = B::template allocate_host<bool>(queries);
  std::vector<V> got(queries);
  B::copy_to_host(found.data(), d_found.data(), queries);
  B::copy_to_host(got.data(), d_values.data(), queries);
  for (std::size_t i = 0; i < queries; ++i) {
    ASSERT_EQ(found.data()[i], expected.statuses[i] == status::found) << "key " << keys[i];
    ASSERT_EQ(found.data()[i], i < n / 2) << "key " << keys[i];
    if (found.data()[i]) {
      ASSERT_EQ(got[i], values[i]) << "key " << keys[i];
    }
  }
}

TYPED_TEST_P(conformance, clear_reserve_and_size) {
  using V = typename TestFixture::value_type;
  seeded_random random;
  auto table = TestFixture::make(100);
  const auto keys = distinct_keys<TypeParam>(random, scaled(10000));
  table.reserve(keys.size());
  const std::size_t reserved_capacity = table.capacity();
  EXPECT_GE(static_cast<double>(reserved_capacity) * table.max_load_factor(),
            static_cast<double>(keys.size()) - 1);
  table.insert(keys, random_values<V>(random, keys.size()));
  EXPECT_EQ(table.capacity(), reserved_capacity) << "reserve(n) must make room for n keys";
  EXPECT_EQ(table.size(), keys.size());
  EXPECT_GT(table.memory_bytes(), 0U);
  table.clear();
  EXPECT_EQ(table.size(), 0U);
  EXPECT_TRUE(table.empty());
  for (const status s : table.find(keys).statuses) ASSERT_EQ(s, status::not_found);
  for (const status s : table.insert(keys, random_values<V>(random, keys.size())))
    ASSERT_EQ(s, status::inserted);
}

TYPED_TEST_P(conformance, concurrent_inserts_of_few_keys) {
  using K = typename TestFixture::key_type;
  using V = typename TestFixture::value_type;
  seeded_random random;
  auto table = TestFixture::make(256);
  const auto pool = distinct_keys<TypeParam>(random, 32);
  const std::size_t n = scaled(200000);
  std::vector<K> keys(n);
  std::vector<V> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = pool[random.below(pool.size())];
    values[i] = static_cast<V>(i);
  }
  const bool upsert = random.below(2) == 1;
  const auto statuses = upsert ? table.insert_or_assign(keys, values) : table.insert(keys, values);
  std::unordered_map<K, std::size_t> inserts;
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_TRUE(statuses[i] == status::inserted ||
                statuses[i] == (upsert ? status::updated : status::exists))
        << statuses[i];
    if (statuses[i] == status::inserted) ++inserts[keys[i]];
  }
  EXPECT_EQ(inserts.size(), pool.size());
  for (const auto& [key, count] : inserts)
    EXPECT_EQ(count, 1U) << "key " << key << " inserted twice";
  const auto stored = contents(table);
  EXPECT_EQ(stored.size(), pool.size());
  for (const auto& [key, value] : stored) {
    EXPECT_EQ(keys[static_cast<std::size_t>(value)], key)
        << "key " << key << " holds a value written for another key";
  }
}

TYPED_TEST_P(conformance, concurrent_mixed_operations_on_few_keys) {
  using K = typename TestFixture::key_type;
  using V = typename TestFixture::value_type;
  seeded_random random;
  auto table = TestFixture::make(256);
  const auto pool = distinct_keys<TypeParam>(random, 24);
  const std::vector<K> initial(pool.begin(), pool.begin() + 12);
  std::vector<V> initial_values(initial.size());
  std::iota(initial_values.begin(), initial_values.end(), V{1});
  table.insert(initial, initial_values);

  for (int round = 0; round < 4; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const auto start = contents(table);
    const std::size_t n = scaled(100000);
    std::vector<K> keys(n);
    std::vector<operation> ops(n);
    std::vector<V> inputs(n);
    for (std::size_t i = 0; i < n; ++i) {
      keys[i] = pool[random.below(pool.size())];
      ops[i] = static_cast<operation>(random.below(5));
      inputs[i] = static_cast<V>(1000000 + i);  // names the operation that wrote it
    }
    std::vector<V> in_out = inputs;
    const auto statuses = table.apply(ops, keys, in_out);
    const auto after = contents(table);

    // Per key, necessary conditions for a serial order (too many operations
    // for the exhaustive search): presence alternates between insertions and
    // erasures, reads see values that were written, and the final value is
    // the last write's.
    for (const K key : pool) {
      std::int64_t inserted = 0, erased = 0;
      bool saw_present = false, saw_absent = false;
      std::vector<V> written;
      std::vector<V> read;
      for (std::size_t i = 0; i < n; ++i) {
        if (keys[i] != key) continue;
        switch (statuses[i]) {
          case status::inserted:
            ++inserted;
            written.push_back(inputs[i]);
            break;
          case status::updated:
            saw_present = true;
            written.push_back(inputs[i]);
            break;
          case status::erased: ++erased; break;
          case status::exists: saw_present = true; break;
          case status::found:
            saw_present = true;
            read.push_back(in_out[i]);
            break;
          case status::not_found: saw_absent = true; break;
          default: ADD_FAILURE() << "unexpected status " << statuses[i];
        }
      }
      const auto was = start.find(key);
      const auto now = after.find(key);
      const std::int64_t present_before = was != start.end() ? 1 : 0;
      const std::int64_t present_after = now != after.end() ? 1 : 0;
      EXPECT_EQ(present_before + inserted - erased, present_after) << "key " << key;
      EXPECT_TRUE(!saw_present || present_before == 1 || inserted > 0) << "key " << key;
      EXPECT_TRUE(!saw_absent || present_before == 0 || erased > 0) << "key " << key;
      for (const V value : read) {
        const bool known = std::find(written.begin(), written.end(), value) != written.end() ||
                           (was != start.end() && was->second == value);
        EXPECT_TRUE(known) << "key " << key << " read a value never written to it";
      }
      if (now != after.end()) {
        const bool known = written.empty() ? (was != start.end() && was->second == now->second)
                                           : std::find(written.begin(), written.end(),
                                                       now->second) != written.end();
        EXPECT_TRUE(known) << "key " << key << " ended with a value never written to it";
      }
    }
  }
}

REGISTER_TYPED_TEST_SUITE_P(conformance, reserved_keys_are_rejected,
                            invalid_operations_are_reported, invalid_arguments_throw,
                            random_differential, duplicate_keys_in_one_batch, absent_keys,
                            erase_then_reinsert_never_duplicates, erase_and_reinsert_in_one_batch,
                            grows_past_ten_times_initial_capacity,
                            mixed_apply_matches_a_serial_order, keys_at_the_edges_of_the_range,
                            backend_memory_forms, find_with_found_flags, clear_reserve_and_size,
                            concurrent_inserts_of_few_keys,
                            concurrent_mixed_operations_on_few_keys);

}  // namespace gpuhash::testing
