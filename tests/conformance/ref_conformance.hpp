#pragma once
// The conformance suite of refs (gpuhash/map_ref.hpp): every design, on
// every backend, through the ref it hands out, called from many CPU threads
// (support/launch.hpp) or from a CUDA kernel, one call per thread. A .cpp
// (CPU) and a .cu (CUDA) include this header once each and instantiate it
// over the designs of designs.hpp, so both run the same calls: the functors
// below are host+device code.
//
// What it checks: a differential test against std::unordered_map (distinct
// keys per round, so every outcome is determined), many threads applying
// sums to few keys (no sum lost or counted twice, one insert per key),
// mixed calls on few keys checked against the serial-order model, `full`
// and the host-side retry of the keys that got it, and refs between
// batches (size() and growth after a kernel's inserts).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <optional>
#include <sstream>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "gpuhash/apply_ops.hpp"
#include "gpuhash/host_device.hpp"
#include "gpuhash/status.hpp"
#include "gpuhash/table_options.hpp"
#include "support/launch.hpp"
#include "support/random.hpp"
#include "support/serial_order.hpp"
#include "support/table_helpers.hpp"
#include "support/transfer.hpp"

namespace gpuhash::testing {

/// Call i: calls[i] on keys[i] with values[i]; find writes the value it
/// found back to values[i].
template <class Ref>
struct ref_calls {
  using key_type = typename Ref::key_type;
  using value_type = typename Ref::mapped_type;
  Ref ref;
  const ref_call* calls;
  const key_type* keys;
  value_type* values;
  status* statuses;

  GPUHASH_HD void operator()(std::uint64_t i) const {
    const key_type key = keys[i];
    value_type value = values[i];
    status result = status::invalid_operation;
    switch (calls[i]) {
      case ref_call::find: result = ref.find(key, &value); break;
      case ref_call::insert: result = ref.insert(key, value); break;
      case ref_call::insert_or_assign: result = ref.insert_or_assign(key, value); break;
      case ref_call::erase: result = ref.erase(key); break;
      case ref_call::insert_or_apply_plus: result = ref.insert_or_apply(key, value, plus{}); break;
    }
    statuses[i] = result;
    if (result == status::found) values[i] = value;
  }
};

/// A sum the table does not recognize as one (gpuhash::plus is an atomic
/// add): insert_or_apply runs it in its compare-and-swap loop.
struct add_by_swap {
  template <class Value>
  GPUHASH_HD void operator()(Value& stored, Value value) const {
    stored = static_cast<Value>(stored + value);
  }
};

template <class Ref, class Op>
struct apply_calls {
  Ref ref;
  Op op;
  const typename Ref::key_type* keys;
  const typename Ref::mapped_type* values;
  status* statuses;
  GPUHASH_HD void operator()(std::uint64_t i) const {
    statuses[i] = ref.insert_or_apply(keys[i], values[i], op);
  }
};

template <class Ref>
struct contains_calls {
  Ref ref;
  const typename Ref::key_type* keys;
  bool* flags;
  GPUHASH_HD void operator()(std::uint64_t i) const { flags[i] = ref.contains(keys[i]); }
};

template <class Table>
class ref_conformance : public ::testing::Test {
 protected:
  using table_type = Table;
  using key_type = typename Table::key_type;
  using value_type = typename Table::mapped_type;
  using backend_type = typename Table::backend_type;
  using ref_type = typename Table::ref_type;
  using reference_map = std::unordered_map<key_type, value_type>;
  static_assert(std::is_trivially_copyable_v<ref_type>, "a ref is passed to kernels by value");

  void SetUp() override {
    if (!backend_type::available())
      GTEST_SKIP() << "no " << backend_type::name
                   << " device: these tests need an NVIDIA GPU (scripts/gpu-check runs them)";
  }

  static Table make(std::size_t capacity = 1024) {
    return Table(table_options{capacity, 0.0f, 0x5eed});
  }

  /// Host data in backend memory.
  /// Runs f(i) for i < n: a kernel, or threads that interleave in chunks of
  /// a few calls; returns once it is done.
  template <class F>
  static void run(std::uint64_t n, const F& f) {
    if constexpr (backend_type::host_accessible)
      support::launcher<backend_type>::for_each(n, f, {}, 0, 8);
    else
      support::launcher<backend_type>::for_each(n, f);
    backend_type::synchronize({});
  }

  struct call_results {
    std::vector<status> statuses;
    std::vector<value_type> values;  ///< inputs, and found values where found
  };
  /// The calls, run concurrently through a fresh ref of the table.
  static call_results call(Table& table, const std::vector<ref_call>& calls,
                           const std::vector<key_type>& keys,
                           const std::vector<value_type>& values) {
    auto d_calls = to_backend<backend_type>(calls);
    auto d_keys = to_backend<backend_type>(keys);
    auto d_values = to_backend<backend_type>(values);
    auto d_statuses =
        backend_type::template allocate<status>(std::max<std::size_t>(keys.size(), 1));
    run(keys.size(), ref_calls<ref_type>{table.ref(), d_calls.data(), d_keys.data(),
                                         d_values.data(), d_statuses.data()});
    return {to_host<backend_type>(d_statuses.data(), keys.size()),
            to_host<backend_type>(d_values.data(), keys.size())};
  }
  /// insert_or_apply(keys[i], values[i], op) for every i, concurrently.
  template <class Op>
  static std::vector<status> apply(Table& table, Op op, const std::vector<key_type>& keys,
                                   const std::vector<value_type>& values) {
    auto d_keys = to_backend<backend_type>(keys);
    auto d_values = to_backend<backend_type>(values);
    auto d_statuses =
        backend_type::template allocate<status>(std::max<std::size_t>(keys.size(), 1));
    run(keys.size(), apply_calls<ref_type, Op>{table.ref(), op, d_keys.data(), d_values.data(),
                                               d_statuses.data()});
    return to_host<backend_type>(d_statuses.data(), keys.size());
  }
  static std::vector<bool> contains(Table& table, const std::vector<key_type>& keys) {
    auto d_keys = to_backend<backend_type>(keys);
    auto d_flags = backend_type::template allocate<bool>(std::max<std::size_t>(keys.size(), 1));
    run(keys.size(), contains_calls<ref_type>{table.ref(), d_keys.data(), d_flags.data()});
    const auto flags = std::make_unique<bool[]>(keys.size());
    backend_type::copy_to_host(flags.get(), d_flags.data(), keys.size());
    return std::vector<bool>(flags.get(), flags.get() + keys.size());
  }
};

TYPED_TEST_SUITE_P(ref_conformance);

TYPED_TEST_P(ref_conformance, reserved_keys_are_rejected) {
  using V = typename TestFixture::value_type;
  auto table = TestFixture::make();
  for (const auto reserved : TypeParam::reserved_keys()) {
    SCOPED_TRACE("reserved key " + std::to_string(reserved));
    const std::vector<ref_call> calls{ref_call::find, ref_call::insert, ref_call::insert_or_assign,
                                      ref_call::erase, ref_call::insert_or_apply_plus};
    const std::vector<typename TestFixture::key_type> keys(calls.size(), reserved);
    const auto results = TestFixture::call(table, calls, keys, std::vector<V>(calls.size(), 1));
    for (const status s : results.statuses) EXPECT_EQ(s, status::invalid_key);
    EXPECT_EQ(TestFixture::contains(table, keys), std::vector<bool>(keys.size(), false));
  }
  EXPECT_EQ(table.size(), 0U);
}

// Rounds of concurrent calls on distinct keys, each checked against a
// std::unordered_map; keys that came back `full` are retried from the host
// (insert or insert_or_assign: the same batch verb; insert_or_apply of an
// absent key: an insert of its value), as docs/device_api.md shows.
TYPED_TEST_P(ref_conformance, random_differential) {
  using K = typename TestFixture::key_type;
  using V = typename TestFixture::value_type;
  seeded_random random;
  auto table = TestFixture::make(1024);
  typename TestFixture::reference_map reference;
  const auto universe = distinct_keys<TypeParam>(random, scaled(20000));
  const std::size_t batch = scaled(3000);

  for (int round = 0; round < 30; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const std::vector<K> keys = sample_distinct(universe, batch, random);
    const std::vector<V> values = random_values<V>(random, batch);
    std::vector<ref_call> calls(batch);
    for (auto& c : calls) c = static_cast<ref_call>(random.below(ref_call_count));
    table.reserve(reference.size() + batch);
    const auto results = TestFixture::call(table, calls, keys, values);

    std::vector<K> retry_insert, retry_assign;
    std::vector<V> retry_insert_values, retry_assign_values;
    EXPECT_EQ("", first_failures(
                      batch,
                      [&](std::size_t i) {
                        const auto it = reference.find(keys[i]);
                        const bool present = it != reference.end();
                        const status s = results.statuses[i];
                        if (s == status::full) {
                          if (present || calls[i] == ref_call::find || calls[i] == ref_call::erase)
                            return false;
                          auto& retry_keys =
                              calls[i] == ref_call::insert_or_assign ? retry_assign : retry_insert;
                          auto& retry_values = calls[i] == ref_call::insert_or_assign
                                                   ? retry_assign_values
                                                   : retry_insert_values;
                          retry_keys.push_back(keys[i]);
                          retry_values.push_back(values[i]);
                          reference.emplace(keys[i], values[i]);
                          return true;
                        }
                        switch (calls[i]) {
                          case ref_call::find:
                            return present ? s == status::found && results.values[i] == it->second
                                           : s == status::not_found;
                          case ref_call::insert:
                            if (present) return s == status::exists;
                            reference.emplace(keys[i], values[i]);
                            return s == status::inserted;
                          case ref_call::insert_or_assign:
                            reference[keys[i]] = values[i];
                            return s == (present ? status::updated : status::inserted);
                          case ref_call::erase:
                            if (present) reference.erase(it);
                            return s == (present ? status::erased : status::not_found);
                          case ref_call::insert_or_apply_plus:
                            if (present) {
                              it->second = static_cast<V>(it->second + values[i]);
                              return s == status::updated;
                            }
                            reference.emplace(keys[i], values[i]);
                            return s == status::inserted;
                        }
                        return false;
                      },
                      [&](std::size_t i) {
                        std::ostringstream text;
                        text << "key " << keys[i] << " call " << static_cast<int>(calls[i])
                             << " status " << results.statuses[i];
                        return text.str();
                      }));
    for (const status s : table.insert(retry_insert, retry_insert_values))
      ASSERT_EQ(s, status::inserted);
    for (const status s : table.insert_or_assign(retry_assign, retry_assign_values))
      ASSERT_EQ(s, status::inserted);
    ASSERT_EQ(table.size(), reference.size());
  }
  EXPECT_EQ(contents(table), reference);
}

// Many threads, few keys: each sum is applied exactly once (plus: the
// atomic add; add_by_swap: the compare-and-swap loop), each key inserted by
// exactly one call, and size() counts the keys.
TYPED_TEST_P(ref_conformance, insert_or_apply_sums_on_few_keys) {
  using K = typename TestFixture::key_type;
  using V = typename TestFixture::value_type;
  seeded_random random;
  for (const bool atomic_add : {true, false}) {
    SCOPED_TRACE(atomic_add ? "gpuhash::plus" : "a sum by compare-and-swap");
    auto table = TestFixture::make(256);
    const auto pool = distinct_keys<TypeParam>(random, 32);
    const std::size_t n = scaled(100000);
    std::vector<K> keys(n);
    std::vector<V> values(n);
    std::unordered_map<K, V> sums;
    for (std::size_t i = 0; i < n; ++i) {
      keys[i] = pool[random.below(pool.size())];
      values[i] = static_cast<V>(random.next());
      sums[keys[i]] = static_cast<V>(sums[keys[i]] + values[i]);
    }
    const auto statuses = atomic_add ? TestFixture::apply(table, plus{}, keys, values)
                                     : TestFixture::apply(table, add_by_swap{}, keys, values);
    std::unordered_map<K, std::size_t> inserts;
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_TRUE(statuses[i] == status::inserted || statuses[i] == status::updated) << statuses[i];
      if (statuses[i] == status::inserted) ++inserts[keys[i]];
    }
    EXPECT_EQ(inserts.size(), sums.size());
    for (const auto& [key, count] : inserts) EXPECT_EQ(count, 1U) << "key " << key;
    EXPECT_EQ(table.size(), sums.size());
    EXPECT_EQ(contents(table), sums);
  }
}

// Mixed calls, at most six per key, on few keys at once: per key, the
// statuses, found values and final state fit some serial order of its calls
// (insert_or_apply with plus included; a write that answers `full`, which
// bucketed cuckoo's may where erases left tombstones, must have found the
// key absent and changed nothing).
TYPED_TEST_P(ref_conformance, mixed_calls_match_a_serial_order) {
  using K = typename TestFixture::key_type;
  using V = typename TestFixture::value_type;
  seeded_random random;
  auto table = TestFixture::make(1024);
  const auto pool = distinct_keys<TypeParam>(random, 64);
  typename TestFixture::reference_map reference;
  for (int round = 0; round < 60; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    std::vector<K> keys;
    std::vector<ref_call> calls;
    std::vector<std::size_t> uses(pool.size(), 0);
    for (std::size_t i = 0; i < 4 * pool.size(); ++i) {
      const std::size_t k = random.below(pool.size());
      if (uses[k] == 6) continue;
      ++uses[k];
      keys.push_back(pool[k]);
      calls.push_back(static_cast<ref_call>(random.below(ref_call_count)));
    }
    // Small values, so that sums of a few stay distinct from the inputs.
    std::vector<V> inputs(keys.size());
    for (auto& v : inputs) v = static_cast<V>(1 + random.below(1000));
    // Erases leave tombstones (open addressing, DACHash) that ref inserts do
    // not reuse, and only a rebuild reclaims: a kernel-only workload
    // compacts now and then.
    table.compact();
    const auto results = TestFixture::call(table, calls, keys, inputs);
    const auto after = contents(table);

    std::unordered_map<K, key_history<V, observed_ref_call<V>>> histories;
    for (std::size_t i = 0; i < keys.size(); ++i)
      histories[keys[i]].operations.push_back(
          {calls[i], inputs[i], results.statuses[i], results.values[i]});
    std::size_t unexplained = 0;
    for (auto& [key, history] : histories) {
      if (const auto it = reference.find(key); it != reference.end()) history.before = it->second;
      if (const auto it = after.find(key); it != after.end()) history.after = it->second;
      if (!has_serial_order(history) && ++unexplained <= 3) {
        std::ostringstream trace;
        trace << "key " << key << ":";
        for (const auto& c : history.operations)
          trace << " " << static_cast<int>(c.call) << "->" << c.result;
        ADD_FAILURE() << "no serial order explains " << trace.str();
      }
    }
    EXPECT_EQ(unexplained, 0U);
    ASSERT_EQ(table.size(), after.size());
    reference = after;
  }
}

// A table too small for a kernel's inserts: the ref answers `full` (never
// growing), stores every other key, and the host inserts the `full` ones,
// growing the table; then every key is there, found by the ref and by a
// batch, and size() counts them all.
TYPED_TEST_P(ref_conformance, full_keys_are_retried_from_the_host) {
  using K = typename TestFixture::key_type;
  using V = typename TestFixture::value_type;
  seeded_random random;
  auto table = TestFixture::make(256);
  const std::size_t n = 3 * table.capacity();
  const auto keys = distinct_keys<TypeParam>(random, n);
  const auto values = random_values<V>(random, n);
  const auto results =
      TestFixture::call(table, std::vector<ref_call>(n, ref_call::insert), keys, values);
  std::vector<K> full_keys;
  std::vector<V> full_values;
  std::size_t inserted = 0;
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_TRUE(results.statuses[i] == status::inserted || results.statuses[i] == status::full)
        << results.statuses[i];
    if (results.statuses[i] == status::inserted) {
      ++inserted;
    } else {
      full_keys.push_back(keys[i]);
      full_values.push_back(values[i]);
    }
  }
  EXPECT_GT(full_keys.size(), 0U) << "the table was meant to run out of room";
  EXPECT_EQ(table.size(), inserted);
  for (const status s : table.insert(full_keys, full_values)) ASSERT_EQ(s, status::inserted);
  EXPECT_EQ(table.size(), n);
  expect_all_found(table, keys, values);
  const auto found =
      TestFixture::call(table, std::vector<ref_call>(n, ref_call::find), keys, std::vector<V>(n));
  EXPECT_EQ(found.statuses, std::vector<status>(n, status::found));
  EXPECT_EQ(found.values, values);
}

// A group-by that outgrows its table, with the retry pattern of
// docs/device_api.md: the rows whose insert_or_apply came back `full` are
// inserted by a batch (one per group is inserted, the others find it
// there: `exists`), and those `exists` rows are applied again by a kernel.
// Every group's sum is right.
TYPED_TEST_P(ref_conformance, insert_or_apply_retries_full_rows) {
  using K = typename TestFixture::key_type;
  using V = typename TestFixture::value_type;
  seeded_random random;
  auto table = TestFixture::make(256);
  const auto groups = distinct_keys<TypeParam>(random, 2 * table.capacity());
  // At least 4 rows a slot: about 1.7 groups a slot are drawn, at any test scale.
  const std::size_t n = std::max(scaled(60000), 4 * table.capacity());
  std::vector<K> keys(n);
  std::vector<V> values(n);
  std::unordered_map<K, V> sums;
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = groups[random.below(groups.size())];
    values[i] = static_cast<V>(1 + random.below(16));
    sums[keys[i]] = static_cast<V>(sums[keys[i]] + values[i]);
  }
  const auto statuses = TestFixture::apply(table, plus{}, keys, values);
  std::vector<K> full_keys;
  std::vector<V> full_values;
  for (std::size_t i = 0; i < n; ++i) {
    if (statuses[i] != status::full) continue;
    full_keys.push_back(keys[i]);
    full_values.push_back(values[i]);
  }
  EXPECT_GT(full_keys.size(), 0U) << "the table was meant to run out of room";
  const auto inserted = table.insert(full_keys, full_values);
  std::vector<K> again_keys;
  std::vector<V> again_values;
  for (std::size_t i = 0; i < full_keys.size(); ++i) {
    ASSERT_TRUE(inserted[i] == status::inserted || inserted[i] == status::exists) << inserted[i];
    if (inserted[i] != status::exists) continue;
    again_keys.push_back(full_keys[i]);
    again_values.push_back(full_values[i]);
  }
  for (const status s : TestFixture::apply(table, plus{}, again_keys, again_values))
    ASSERT_EQ(s, status::updated);
  EXPECT_EQ(table.size(), sums.size());
  EXPECT_EQ(contents(table), sums);
}

// Refs between batches on one table: a kernel finds what a batch inserted
// and inserts more; batches see the kernel's keys; size() is right after
// each step; erases by a kernel count; and a batch that needs room after a
// kernel's inserts grows the table (its growth check sees them).
TYPED_TEST_P(ref_conformance, refs_and_batches_interleave) {
  using K = typename TestFixture::key_type;
  using V = typename TestFixture::value_type;
  seeded_random random;
  auto table = TestFixture::make(1024);
  const std::size_t n = scaled(4000);
  const auto keys = distinct_keys<TypeParam>(random, 3 * n);
  const auto values = random_values<V>(random, 3 * n);
  const std::vector<K> first(keys.begin(), keys.begin() + n);
  const std::vector<K> second(keys.begin() + n, keys.begin() + 2 * n);
  const std::vector<K> third(keys.begin() + 2 * n, keys.end());
  const std::vector<V> first_values(values.begin(), values.begin() + n);
  const std::vector<V> second_values(values.begin() + n, values.begin() + 2 * n);
  const std::vector<V> third_values(values.begin() + 2 * n, values.end());

  table.insert(first, first_values);
  table.reserve(2 * n);
  const auto found =
      TestFixture::call(table, std::vector<ref_call>(n, ref_call::find), first, std::vector<V>(n));
  EXPECT_EQ(found.statuses, std::vector<status>(n, status::found));
  EXPECT_EQ(found.values, first_values);
  const auto inserted =
      TestFixture::call(table, std::vector<ref_call>(n, ref_call::insert), second, second_values);
  std::vector<K> full_keys;
  std::vector<V> full_values;
  for (std::size_t i = 0; i < n; ++i) {
    if (inserted.statuses[i] == status::full) {
      full_keys.push_back(second[i]);
      full_values.push_back(second_values[i]);
    } else {
      ASSERT_EQ(inserted.statuses[i], status::inserted);
    }
  }
  EXPECT_EQ(table.size(), 2 * n - full_keys.size());
  table.insert(full_keys, full_values);
  EXPECT_EQ(table.size(), 2 * n);
  expect_all_found(table, second, second_values);

  // A batch three times the table's remaining room: it must grow first.
  const std::size_t capacity = table.capacity();
  for (const status s : table.insert(third, third_values)) ASSERT_EQ(s, status::inserted);
  EXPECT_GE(table.capacity(), capacity);
  EXPECT_EQ(table.size(), 3 * n);

  const auto erased =
      TestFixture::call(table, std::vector<ref_call>(n, ref_call::erase), first, std::vector<V>(n));
  EXPECT_EQ(erased.statuses, std::vector<status>(n, status::erased));
  EXPECT_EQ(table.size(), 2 * n);
  EXPECT_EQ(TestFixture::contains(table, first), std::vector<bool>(n, false));
  const auto flags = table.contains(third);
  EXPECT_TRUE(std::all_of(flags.begin(), flags.end(), [](bool f) { return f; }));
  typename TestFixture::reference_map expected;
  for (std::size_t i = n; i < 3 * n; ++i) expected.emplace(keys[i], values[i]);
  EXPECT_EQ(contents(table), expected);
}

REGISTER_TYPED_TEST_SUITE_P(ref_conformance, reserved_keys_are_rejected, random_differential,
                            insert_or_apply_sums_on_few_keys, mixed_calls_match_a_serial_order,
                            full_keys_are_retried_from_the_host, insert_or_apply_retries_full_rows,
                            refs_and_batches_interleave);

}  // namespace gpuhash::testing
