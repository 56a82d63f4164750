// What only a sharded table has, beyond the conformance suite it passes as
// one table (sharded_conformance_*.cpp): keys live on their placement's
// shard, copies of a key from different parts meet in one shard, parts may
// be empty or all of one shard, found values land only where found, each
// shard grows by itself, arguments are checked per part, and shards of
// every design agree with one table of that design.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "gpuhash/bucketed_cuckoo_map.hpp"
#include "gpuhash/cuckoo_node_map.hpp"
#include "gpuhash/dachash_map.hpp"
#include "gpuhash/hashgraph_dynamic_map.hpp"
#include "gpuhash/linear_probing_map.hpp"
#include "gpuhash/sharded_map.hpp"
#include "support/random.hpp"
#include "support/table_helpers.hpp"

namespace gpuhash::testing {
namespace {

using table_32 = bucketed_cuckoo_map<std::uint32_t, std::uint32_t>;
using sharded_32 = sharded_map<table_32>;
using K = std::uint32_t;
using V = std::uint32_t;

/// n distinct keys that the placement puts on `shard`.
std::vector<K> keys_on_shard(const sharded_32& table, std::size_t shard, std::size_t n,
                             seeded_random& random) {
  std::vector<K> keys;
  for (const K key : distinct_keys<table_32>(random, 64 * n)) {
    if (table.shard_of(key) == shard) keys.push_back(key);
    if (keys.size() == n) break;
  }
  return keys;
}

/// Pointers to the starts of each part's array.
template <class T>
std::vector<T*> starts_of(std::vector<std::vector<std::remove_const_t<T>>>& parts) {
  std::vector<T*> starts;
  for (auto& part : parts) starts.push_back(part.data());
  return starts;
}

TEST(sharded_map, keys_live_on_the_shard_of_their_placement) {
  seeded_random random;
  sharded_32 table(3, table_options{1024});
  const auto keys = distinct_keys<table_32>(random, 20000);
  table.insert(keys, random_values<V>(random, keys.size()));
  std::vector<std::vector<K>> held(3);
  table.exchange().for_each_shard(
      [&](std::size_t g) { held[g] = table.shard(g).retrieve_all().first; });
  std::size_t total = 0;
  for (std::size_t g = 0; g < 3; ++g) {
    total += held[g].size();
    EXPECT_GT(held[g].size(), keys.size() / 4) << "shard " << g << " holds too few";
    for (const K key : held[g]) ASSERT_EQ(table.shard_of(key), g) << "key " << key;
  }
  EXPECT_EQ(total, keys.size());
  EXPECT_EQ(table.size(), keys.size());
}

TEST(sharded_map, copies_of_a_key_from_every_part_meet_in_one_shard) {
  seeded_random random;
  sharded_32 table(4);
  const auto pool = distinct_keys<table_32>(random, 500);
  // Every part holds every key once, with values that name the part.
  std::vector<std::vector<K>> keys(4, pool);
  std::vector<std::vector<V>> values(4);
  std::vector<std::vector<status>> statuses(4, std::vector<status>(pool.size()));
  for (std::size_t g = 0; g < 4; ++g) values[g].assign(pool.size(), static_cast<V>(g + 1));
  const std::vector<std::size_t> counts(4, pool.size());
  table.insert(starts_of<const K>(keys), starts_of<const V>(values), counts,
               starts_of<status>(statuses));

  const auto stored = contents(table);
  ASSERT_EQ(stored.size(), pool.size());
  for (std::size_t i = 0; i < pool.size(); ++i) {
    std::size_t inserted = 0;
    for (std::size_t g = 0; g < 4; ++g) {
      ASSERT_TRUE(statuses[g][i] == status::inserted || statuses[g][i] == status::exists);
      if (statuses[g][i] == status::inserted) {
        ++inserted;
        EXPECT_EQ(stored.at(pool[i]), g + 1) << "the stored value is not the inserter's";
      }
    }
    EXPECT_EQ(inserted, 1U) << "key " << pool[i];
  }
}

TEST(sharded_map, parts_may_be_empty_or_all_of_one_shard) {
  seeded_random random;
  sharded_32 table(4);
  // Part 1 holds only keys of shard 3; the other parts are empty (and null).
  const auto keys = keys_on_shard(table, 3, 3000, random);
  const auto values = random_values<V>(random, keys.size());
  std::vector<status> statuses(keys.size());
  const std::vector<const K*> key_parts{nullptr, keys.data(), nullptr, nullptr};
  const std::vector<const V*> value_parts{nullptr, values.data(), nullptr, nullptr};
  const std::vector<status*> status_parts{nullptr, statuses.data(), nullptr, nullptr};
  const std::vector<std::size_t> counts{0, keys.size(), 0, 0};
  table.insert(key_parts, value_parts, counts, status_parts);
  for (const status s : statuses) ASSERT_EQ(s, status::inserted);
  EXPECT_EQ(table.size(), keys.size());
  std::vector<std::size_t> sizes(4);
  table.exchange().for_each_shard([&](std::size_t g) { sizes[g] = table.shard(g).size(); });
  EXPECT_EQ(sizes, (std::vector<std::size_t>{0, 0, 0, keys.size()}));
  // An empty batch, spread or not.
  const std::vector<std::size_t> none(4, 0);
  table.erase(std::vector<const K*>(4, nullptr), none, std::vector<status*>(4, nullptr));
  table.erase(nullptr, 0, nullptr, 2);
  EXPECT_EQ(table.size(), keys.size());
}

TEST(sharded_map, find_leaves_the_values_of_missing_keys_untouched) {
  seeded_random random;
  sharded_32 table(3);
  const auto keys = distinct_keys<table_32>(random, 4000);
  const std::vector<K> present(keys.begin(), keys.begin() + 2000);
  const auto present_values = random_values<V>(random, present.size());
  table.insert(present, present_values);
  std::unordered_map<K, V> expected;
  for (std::size_t i = 0; i < present.size(); ++i) expected[present[i]] = present_values[i];

  std::vector<K> queries = keys;
  std::shuffle(queries.begin(), queries.end(), random.engine());
  const V untouched = 0xdeadbeef;
  const auto check = [&](const std::vector<V>& values, const auto& found_at) {
    for (std::size_t i = 0; i < queries.size(); ++i) {
      const auto it = expected.find(queries[i]);
      ASSERT_EQ(found_at(i), it != expected.end()) << "key " << queries[i];
      ASSERT_EQ(values[i], it != expected.end() ? it->second : untouched) << "key " << queries[i];
    }
  };
  {  // statuses, one shard
    std::vector<V> values(queries.size(), untouched);
    std::vector<status> statuses(queries.size());
    table.find(queries.data(), queries.size(), values.data(), statuses.data(), 2);
    check(values, [&](std::size_t i) { return statuses[i] == status::found; });
  }
  {  // found flags, spread in three parts
    std::vector<V> values(queries.size(), untouched);
    const auto found = std::make_unique<bool[]>(queries.size());
    const std::size_t third = queries.size() / 3;
    const std::vector<std::size_t> counts{third, third, queries.size() - 2 * third};
    const std::vector<const K*> key_parts{queries.data(), queries.data() + third,
                                          queries.data() + 2 * third};
    const std::vector<V*> value_parts{values.data(), values.data() + third,
                                      values.data() + 2 * third};
    const std::vector<bool*> found_parts{found.get(), found.get() + third, found.get() + 2 * third};
    table.find(key_parts, counts, value_parts, found_parts);
    check(values, [&](std::size_t i) { return found[i]; });
  }
}

TEST(sharded_map, retrieve_all_gathers_every_shard_on_any_shard) {
  seeded_random random;
  sharded_32 table(3);
  const auto keys = distinct_keys<table_32>(random, 5000);
  const auto values = random_values<V>(random, keys.size());
  table.insert(keys, values);
  std::map<K, V> expected;
  for (std::size_t i = 0; i < keys.size(); ++i) expected[keys[i]] = values[i];
  for (std::size_t target = 0; target < 3; ++target) {
    std::vector<K> out_keys(keys.size() + 10);
    std::vector<V> out_values(keys.size() + 10);
    ASSERT_EQ(table.retrieve_all(out_keys.data(), out_values.data(), target), keys.size());
    std::map<K, V> got;
    for (std::size_t i = 0; i < keys.size(); ++i) got[out_keys[i]] = out_values[i];
    EXPECT_EQ(got, expected) << "target " << target;
  }
}

TEST(sharded_map, each_shard_grows_by_itself) {
  seeded_random random;
  sharded_32 table(4, table_options{4 * 256});
  std::vector<std::size_t> initial(4), grown(4);
  table.exchange().for_each_shard([&](std::size_t g) { initial[g] = table.shard(g).capacity(); });
  // Only shard 1 gets keys: only shard 1 grows, and no key comes back full.
  const auto keys = keys_on_shard(table, 1, 20 * initial[1], random);
  const auto values = random_values<V>(random, keys.size());
  for (const status s : table.insert(keys, values)) ASSERT_EQ(s, status::inserted);
  table.exchange().for_each_shard([&](std::size_t g) { grown[g] = table.shard(g).capacity(); });
  EXPECT_GE(grown[1], keys.size());
  for (const std::size_t g : {0U, 2U, 3U}) EXPECT_EQ(grown[g], initial[g]) << "shard " << g;
  expect_all_found(table, keys, values);
}

TEST(sharded_map, a_spread_batch_grows_each_shard_as_one_call_of_its_table_would) {
  // Each shard runs a batch that inserts in one call of its table, so it
  // grows once for all the parts it received, as one table does for one
  // batch: not once a part (which rebuilt shards up to four times a batch
  // and could leave them a third larger than needed).
  using table = linear_probing_map<K, V>;
  seeded_random random;
  constexpr std::size_t shards = 3;
  sharded_map<table> sharded(shards, table_options{shards * 256});
  std::vector<std::vector<K>> keys(shards);
  std::vector<std::vector<V>> values(shards);
  std::vector<std::vector<status>> statuses(shards);
  const auto all = distinct_keys<table>(random, 60000);
  for (std::size_t g = 0; g < shards; ++g) {
    keys[g].assign(all.begin() + g * 20000, all.begin() + (g + 1) * 20000);
    values[g] = random_values<V>(random, keys[g].size());
    statuses[g].resize(keys[g].size());
  }
  sharded.insert(starts_of<const K>(keys), starts_of<const V>(values),
                 std::vector<std::size_t>(shards, 20000), starts_of<status>(statuses));
  for (std::size_t g = 0; g < shards; ++g) {
    std::vector<K> held;
    std::vector<V> held_values;
    std::size_t capacity = 0;
    sharded.exchange().for_each_shard([&](std::size_t shard) {
      if (shard != g) return;
      std::tie(held, held_values) = sharded.shard(g).retrieve_all();
      capacity = sharded.shard(g).capacity();
    });
    table one(table_options{256});
    for (const status s : one.insert(held, held_values)) ASSERT_EQ(s, status::inserted);
    EXPECT_EQ(capacity, one.capacity()) << "shard " << g << " holds " << held.size() << " keys";
  }
}

/// A host exchange that counts the parts it moves and those whose places in
/// their buffers are not multiples of 256 elements: a batch's exchanges
/// move aligned parts (NCCL moves others at up to half the rate,
/// docs/results/sharded.md). Called from one thread at a time.
class alignment_checking_exchange : public host_exchange {
 public:
  using host_exchange::host_exchange;

  template <class T>
  void all_to_all(const exchange_plan& plan, std::span<const T* const> send,
                  std::span<T* const> receive) {
    const std::size_t aligned = 256 * sizeof(T);
    for (const exchange_piece& piece : plan.pieces(sizeof(T))) {
      ++moved->parts;
      if (piece.send_offset % aligned != 0 || piece.receive_offset % aligned != 0)
        ++moved->misaligned;
    }
    host_exchange::all_to_all(plan, send, receive);
  }

  struct counts {
    std::size_t parts = 0;
    std::size_t misaligned = 0;
  };
  std::shared_ptr<counts> moved = std::make_shared<counts>();
};

TEST(sharded_map, every_part_a_batch_moves_is_aligned) {
  seeded_random random;
  constexpr std::size_t shards = 3;
  sharded_map<table_32, alignment_checking_exchange> table(shards, table_options{shards * 256});
  // uneven parts, so that packed groups would start anywhere
  const std::vector<std::size_t> sizes{1000, 3333, 77};
  const auto all = distinct_keys<table_32>(random, 1000 + 3333 + 77);
  std::vector<std::vector<K>> keys(shards);
  std::vector<std::vector<V>> values(shards);
  std::vector<std::vector<status>> statuses(shards);
  for (std::size_t g = 0, at = 0; g < shards; at += sizes[g], ++g) {
    keys[g].assign(all.begin() + at, all.begin() + at + sizes[g]);
    values[g] = random_values<V>(random, sizes[g]);
    statuses[g].resize(sizes[g]);
  }
  table.insert(starts_of<const K>(keys), starts_of<const V>(values), sizes,
               starts_of<status>(statuses));
  std::vector<std::vector<V>> found(shards);
  for (std::size_t g = 0; g < shards; ++g) found[g].resize(sizes[g]);
  table.find(starts_of<const K>(keys), sizes, starts_of<V>(found), starts_of<status>(statuses));
  for (std::size_t g = 0; g < shards; ++g) {
    for (std::size_t i = 0; i < sizes[g]; ++i) {
      ASSERT_EQ(statuses[g][i], status::found);
      ASSERT_EQ(found[g][i], values[g][i]);
    }
  }
  const auto& moved = *table.exchange().moved;
  EXPECT_GT(moved.parts, 0U);
  EXPECT_EQ(moved.misaligned, 0U) << "of " << moved.parts << " parts";
}

TEST(sharded_map, arguments_are_checked_per_part) {
  sharded_32 table(4);
  const std::vector<K> keys{1, 2, 3};
  const std::vector<V> values{1, 2, 3};
  std::vector<status> statuses(3);
  // A part count per shard, an array per part.
  EXPECT_THROW(
      table.insert(std::vector<const K*>(3, keys.data()), std::vector<const V*>(3, values.data()),
                   std::vector<std::size_t>(3, 1), std::vector<status*>(3, statuses.data())),
      std::invalid_argument);
  EXPECT_THROW(table.erase(std::vector<const K*>(4, keys.data()), std::vector<std::size_t>(4, 0),
                           std::vector<status*>(3, statuses.data())),
               std::invalid_argument);
  // A part with keys needs every array its batch uses; an empty one none.
  EXPECT_THROW(table.insert(std::vector<const K*>{nullptr, keys.data(), nullptr, nullptr},
                            std::vector<const V*>(4, nullptr), std::vector<std::size_t>{0, 3, 0, 0},
                            std::vector<status*>{nullptr, statuses.data(), nullptr, nullptr}),
               std::invalid_argument);
  EXPECT_THROW(table.insert(keys.data(), values.data(), 3, nullptr, 1), std::invalid_argument);
  // Shards are 0 to 3.
  EXPECT_THROW(table.insert(keys.data(), values.data(), 3, statuses.data(), 4),
               std::invalid_argument);
  EXPECT_THROW(table.retrieve_all(nullptr, nullptr, 4), std::invalid_argument);
  EXPECT_EQ(table.size(), 0U);
}

/// Shards of each design, spread batches and all, agree with one table of it.
template <class Table>
class sharded_designs : public ::testing::Test {};
using designs_32 = ::testing::Types<linear_probing_map<K, V>, dachash_map<K, V>,
                                    cuckoo_node_map<K, V>, hashgraph_csr_map<K, V>>;
TYPED_TEST_SUITE(sharded_designs, designs_32);

TYPED_TEST(sharded_designs, agree_with_one_table) {
  seeded_random random;
  sharded_map<TypeParam> sharded(3, table_options{512});
  TypeParam one(table_options{512});
  expect_same_outcomes(sharded, one, random, 12);
}

}  // namespace
}  // namespace gpuhash::testing
