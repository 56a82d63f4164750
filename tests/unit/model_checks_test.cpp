// The differential tests' checks against std::unordered_map
// (support/model_checks.hpp) and the mixed batches they draw
// (support/table_helpers.hpp): a check must name the keys whose outcome the
// model does not predict and bring the model up to date, or the tests built
// on it would pass whatever the table did.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "support/model_checks.hpp"
#include "support/random.hpp"
#include "support/serial_order.hpp"
#include "support/table_helpers.hpp"

namespace gpuhash::testing {
namespace {

using K = std::uint32_t;
using V = std::uint32_t;
using model = model_map<K, V>;

TEST(model_checks, insert_names_a_wrong_status_and_records_the_inserted_key) {
  model m{{1, 10}};
  EXPECT_EQ(insert_mismatches(m, {1, 2}, {5, 6}, {status::exists, status::inserted}), "");
  EXPECT_EQ(m, (model{{1, 10}, {2, 6}}));
  const std::string message =
      insert_mismatches(m, {2, 3}, {7, 8}, {status::inserted, status::inserted});
  EXPECT_NE(message.find("1 of 2 failed"), std::string::npos) << message;
  EXPECT_NE(message.find("key 2"), std::string::npos) << message;
  EXPECT_EQ(m.at(2), 6U) << "an insert of a present key leaves its value";
}

TEST(model_checks, insert_or_assign_overwrites_the_model) {
  model m{{1, 10}};
  EXPECT_EQ(insert_or_assign_mismatches(m, {1, 2}, {5, 6}, {status::updated, status::inserted}),
            "");
  EXPECT_EQ(m, (model{{1, 5}, {2, 6}}));
  EXPECT_NE(insert_or_assign_mismatches(m, {1}, {7}, {status::inserted}), "");
}

TEST(model_checks, find_checks_values_and_untouched_misses) {
  const model m{{1, 10}};
  EXPECT_EQ(find_mismatches(m, {1, 2}, {10, 0}, {status::found, status::not_found}), "");
  EXPECT_NE(find_mismatches(m, {1}, {11}, {status::found}), "") << "a wrong value";
  EXPECT_NE(find_mismatches(m, {2}, {0}, {status::found}), "") << "an absent key found";
  const std::vector<V> unwritten{3, 4};
  EXPECT_EQ(find_mismatches(m, {1, 2}, {10, 4}, {status::found, status::not_found}, &unwritten),
            "");
  EXPECT_NE(find_mismatches(m, {1, 2}, {10, 9}, {status::found, status::not_found}, &unwritten), "")
      << "a miss wrote its value";
}

TEST(model_checks, contains_and_erase) {
  model m{{1, 10}};
  EXPECT_EQ(contains_mismatches(m, {1, 2}, {true, false}), "");
  EXPECT_NE(contains_mismatches(m, {1, 2}, {true, true}), "");
  EXPECT_EQ(erase_mismatches(m, {1, 2}, {status::erased, status::not_found}), "");
  EXPECT_TRUE(m.empty());
  EXPECT_NE(erase_mismatches(m, {1}, {status::erased}), "");
}

TEST(model_checks, apply_runs_each_operation_on_the_model) {
  model m{{1, 10}, {2, 20}};
  const std::vector<operation> ops{operation::search, operation::erase, operation::upsert};
  EXPECT_EQ(apply_mismatches(m, ops, {1, 2, 3}, {0, 0, 30},
                             {status::found, status::erased, status::inserted}, {10, 0, 30}),
            "");
  EXPECT_EQ(m, (model{{1, 10}, {3, 30}}));
  EXPECT_NE(apply_mismatches(m, {operation::search}, {1}, {0}, {status::found}, {11}), "")
      << "a search that reports a value the key does not hold";
}

TEST(model_checks, batch_histories_gather_each_keys_operations_and_states) {
  const std::vector<K> keys{1, 2, 1};
  const std::vector<operation> ops{operation::erase, operation::insert, operation::insert};
  const auto histories = batch_histories<K, V>(keys, ops, {0, 6, 7},
                                               {status::erased, status::inserted, status::inserted},
                                               {0, 6, 7}, model{{1, 10}}, model{{1, 7}, {2, 6}});
  ASSERT_EQ(histories.size(), 2U);
  const auto& one = histories.at(1);
  EXPECT_EQ(one.before, 10U);
  EXPECT_EQ(one.after, 7U);
  ASSERT_EQ(one.operations.size(), 2U);
  EXPECT_EQ(one.operations[1].input, 7U);
  EXPECT_TRUE(has_serial_order(one));
  EXPECT_FALSE(histories.at(2).before.has_value());
  EXPECT_TRUE(has_serial_order(histories.at(2)));
}

TEST(model_checks, mixed_batches_keep_to_the_pool_and_the_limit_per_key) {
  seeded_random random;
  const std::vector<K> pool{4, 5, 6};
  const auto batch = random_mixed_batch(pool, random, 2);
  ASSERT_EQ(batch.keys.size(), batch.ops.size());
  std::map<K, std::size_t> uses;
  for (const K key : batch.keys) ++uses[key];
  for (const auto& [key, count] : uses) {
    EXPECT_NE(std::find(pool.begin(), pool.end(), key), pool.end()) << "key " << key;
    EXPECT_LE(count, 2U) << "key " << key;
  }
  for (const operation op : batch.ops) EXPECT_LE(static_cast<int>(op), 4);
}

}  // namespace
}  // namespace gpuhash::testing
