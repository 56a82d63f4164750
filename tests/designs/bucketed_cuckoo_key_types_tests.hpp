#pragma once
// Bucketed cuckoo with 16-byte keys (gpuhash/key_types.hpp): what the design
// adds to the key_types suite. Eviction walks (phase 2) at high load, growth
// when walks end homeless, tombstones reused by walks after erases, copies
// of one key in a batch reduced to one leader, and a key equality coarser
// than bytes through all of those (phase 2 finds the copies of a 16-byte key,
// or of a key under a policy, by hash: docs/designs/bucketed_cuckoo.md);
// and the slots of keys and values of different widths.
// Every test checks the table against a std::unordered_map model; the seed
// is printed on failure (seeded_random). Typed on the design
// (bucketed_cuckoo_design, and on the CPU also two_choice_cuckoo_design,
// whose walks run on many more keys): included by key_types_cpu.cpp and
// key_types_cuda.cu.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "key_types_tests.hpp"

namespace gpuhash::testing {

/// A 16-byte key whose equality looks at `id` only (the tag rides along),
/// hashed by id / 2: keys equal under the policy differ in their bytes, and
/// each hash is shared by two keys that are not equal.
struct tagged_wide {
  std::uint64_t id;
  std::uint64_t tag;
};
struct tagged_wide_hash {
  GPUHASH_HD std::uint64_t operator()(const tagged_wide& k) const { return k.id / 2; }
};
struct tagged_wide_equal {
  GPUHASH_HD bool operator()(const tagged_wide& a, const tagged_wide& b) const {
    return a.id == b.id;
  }
};

template <class Design>
class cuckoo_key_types : public key_types<Design> {};
TYPED_TEST_SUITE_P(cuckoo_key_types);

/// 16-byte keys and values, as the key_types suite's.
template <class Design>
using wide_cuckoo_map = typename Design::template map<wide_key, float4_value>;
using wide_model = std::unordered_map<wide_key, float4_value, wide_key_std_hash>;

/// `n` distinct 16-byte keys of random bytes (none reserved: those have
/// second = ~0).
inline std::vector<wide_key> distinct_wide_keys(seeded_random& random, std::size_t n) {
  std::unordered_set<wide_key, wide_key_std_hash> seen;
  std::vector<wide_key> keys;
  while (keys.size() < n) {
    const wide_key key{random.next(), random.next() >> 1};
    if (seen.insert(key).second) keys.push_back(key);
  }
  return keys;
}

inline float4_value some_float4(seeded_random& random) {
  const auto f = static_cast<float>(random.below(1 << 20));
  return float4_value{f, -f, f + 1, 2 * f};
}

/// The table holds exactly the model's pairs: retrieve_all, a find of every
/// key, and a find of `absent` keys (none of them in the model).
template <class Map>
void expect_contents(Map& table, const wide_model& model, const std::vector<wide_key>& absent) {
  ASSERT_EQ(table.size(), model.size());
  const auto [keys, values] = table.retrieve_all();
  ASSERT_EQ(keys.size(), model.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto it = model.find(keys[i]);
    ASSERT_NE(it, model.end()) << "a key the model does not hold";
    ASSERT_EQ(values[i], it->second);
  }
  std::vector<wide_key> queries = absent;
  for (const auto& [key, value] : model) queries.push_back(key);
  const auto [found, statuses] = table.find(queries);
  for (std::size_t i = 0; i < queries.size(); ++i) {
    if (i < absent.size()) {
      ASSERT_EQ(model.count(queries[i]), 0U);
      ASSERT_EQ(statuses[i], status::not_found) << "absent key " << i;
    } else {
      ASSERT_EQ(statuses[i], status::found) << "key " << i;
      ASSERT_EQ(found[i], model.at(queries[i])) << "key " << i;
    }
  }
}

// Four batches take the table to load 0.95 without growing: four-slot
// buckets hold that many keys only where eviction walks make room, so phase
// 2 runs in the later batches (for a few percent of the keys with the
// default's four choices, for many more with two). Then an upsert of every third
// key changes values in place (a batch that may insert that many keys makes
// the table grow first: a rebuild of 16-byte pairs).
TYPED_TEST_P(cuckoo_key_types, eviction_walks_fill_sixteen_byte_keys_to_load_095) {
  using map_type = wide_cuckoo_map<TypeParam>;
  seeded_random random;
  // Not below 8192 keys: small tables fill less reliably (bucketed_cuckoo_tests.hpp).
  const std::size_t n = std::max<std::size_t>(scaled(20000), 8192);
  const auto capacity = static_cast<std::size_t>(std::ceil(static_cast<double>(n) / 0.95));
  map_type table(table_options{capacity, 0.97f, random.next()});
  const std::size_t slots = table.capacity();
  const auto all = distinct_wide_keys(random, n + n / 10);
  const std::vector<wide_key> keys(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n));
  const std::vector<wide_key> absent(all.begin() + static_cast<std::ptrdiff_t>(n), all.end());
  wide_model model;
  for (std::size_t part = 0; part < 4; ++part) {
    const std::size_t begin = n * part / 4;
    const std::size_t end = n * (part + 1) / 4;
    std::vector<wide_key> batch(keys.begin() + static_cast<std::ptrdiff_t>(begin),
                                keys.begin() + static_cast<std::ptrdiff_t>(end));
    std::vector<float4_value> values(batch.size());
    for (auto& value : values) value = some_float4(random);
    for (const status s : table.insert(batch, values)) ASSERT_EQ(s, status::inserted);
    for (std::size_t i = 0; i < batch.size(); ++i) model.emplace(batch[i], values[i]);
  }
  EXPECT_EQ(table.capacity(), slots) << "the table grew below its load limit";
  expect_contents(table, model, absent);

  std::vector<wide_key> updated;
  std::vector<float4_value> new_values;
  for (std::size_t i = 0; i < n; i += 3) {
    updated.push_back(keys[i]);
    new_values.push_back(some_float4(random));
    model[keys[i]] = new_values.back();
  }
  for (const status s : table.insert_or_assign(updated, new_values)) ASSERT_EQ(s, status::updated);
  expect_contents(table, model, absent);
}

// Two buckets in all: keys whose choices are the same bucket compete for
// four slots, walks end homeless, and the table grows (a rebuild, inside
// the insert) without dropping a key; then more rounds grow it further.
TYPED_TEST_P(cuckoo_key_types, homeless_sixteen_byte_keys_make_the_table_grow) {
  using map_type = wide_cuckoo_map<TypeParam>;
  seeded_random random;
  for (int round = 0; round < 10; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    map_type table(table_options{8, 1.0f, random.next()});
    wide_model model;
    const auto keys = distinct_wide_keys(random, 8 + scaled(400) + 16);
    const std::vector<wide_key> absent(keys.end() - 16, keys.end());
    std::size_t done = 0;
    for (const std::size_t count : {std::size_t{8}, scaled(400)}) {
      std::vector<wide_key> batch(keys.begin() + static_cast<std::ptrdiff_t>(done),
                                  keys.begin() + static_cast<std::ptrdiff_t>(done + count));
      std::vector<float4_value> values(count);
      for (auto& value : values) value = some_float4(random);
      for (const status s : table.insert(batch, values)) ASSERT_EQ(s, status::inserted);
      for (std::size_t i = 0; i < count; ++i) model.emplace(batch[i], values[i]);
      done += count;
      expect_contents(table, model, absent);
    }
  }
}

// Rounds at load 0.7 that erase a tenth of the keys (with absent keys among
// them) and insert as many: half of them erased keys coming back with new
// values, half fresh ones. Tombstones count against the load limit of 0.97
// until a rebuild at the same size drops them, so inserts meet buckets full
// of keys and tombstones, and phase 2's walks claim tombstones. Every round
// is checked against the model; the table never grows.
TYPED_TEST_P(cuckoo_key_types, erased_sixteen_byte_keys_come_back_through_walks) {
  using map_type = wide_cuckoo_map<TypeParam>;
  seeded_random random;
  const std::size_t n = std::max<std::size_t>(scaled(20000), 8192);
  const std::size_t churn = n / 10;
  const int rounds = 6;
  const auto all = distinct_wide_keys(random, n + rounds * churn + 64);
  const std::vector<wide_key> absent(all.end() - 64, all.end());
  map_type table(table_options{n * 10 / 7, 0.97f, random.next()});
  const std::size_t slots = table.capacity();
  wide_model model;
  std::vector<wide_key> live(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n));
  {
    std::vector<float4_value> values(n);
    for (auto& value : values) value = some_float4(random);
    for (const status s : table.insert(live, values)) ASSERT_EQ(s, status::inserted);
    for (std::size_t i = 0; i < n; ++i) model.emplace(live[i], values[i]);
  }
  std::size_t fresh = n;
  for (int round = 0; round < rounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    std::shuffle(live.begin(), live.end(), random.engine());
    std::vector<wide_key> erased(live.end() - static_cast<std::ptrdiff_t>(churn), live.end());
    live.resize(live.size() - churn);
    std::vector<wide_key> erase_batch = erased;
    erase_batch.insert(erase_batch.end(), absent.begin(), absent.begin() + 8);
    const auto erase_statuses = table.erase(erase_batch);
    for (std::size_t i = 0; i < erase_batch.size(); ++i)
      ASSERT_EQ(erase_statuses[i], i < churn ? status::erased : status::not_found);
    for (const wide_key& key : erased) model.erase(key);

    std::vector<wide_key> back(erased.begin(),
                               erased.begin() + static_cast<std::ptrdiff_t>(churn / 2));
    back.insert(back.end(), all.begin() + static_cast<std::ptrdiff_t>(fresh),
                all.begin() + static_cast<std::ptrdiff_t>(fresh + churn - churn / 2));
    fresh += churn - churn / 2;
    std::vector<float4_value> values(back.size());
    for (auto& value : values) value = some_float4(random);
    for (const status s : table.insert(back, values)) ASSERT_EQ(s, status::inserted);
    for (std::size_t i = 0; i < back.size(); ++i) model.emplace(back[i], values[i]);
    live.insert(live.end(), back.begin(), back.end());
    expect_contents(table, model, absent);
  }
  EXPECT_EQ(table.capacity(), slots) << "the table grew with as many keys as it began with";
}

// Batches at load 0.85 to 0.89 that hold each new key three times and each
// present key twice, shuffled: copies that find all their buckets full go
// to phase 2 (many with two choices), which answers all but one leader per
// key. An insert stores the
// value of the copy it answers `inserted` (the others: exists); an upsert
// answers one copy of a new key `inserted` and the others `updated`, and
// leaves one of the batch's values for the key.
TYPED_TEST_P(cuckoo_key_types, copies_of_a_sixteen_byte_key_in_a_batch_are_one_key) {
  using map_type = wide_cuckoo_map<TypeParam>;
  seeded_random random;
  const std::size_t n = std::max<std::size_t>(scaled(20000), 8192);
  // Small batches: a batch counts all its keys against the load limit (0.97).
  const std::size_t added = n / 80;
  const auto all = distinct_wide_keys(random, n + 4 * added);
  map_type table(table_options{n * 100 / 85, 0.97f, random.next()});
  wide_model model;
  {
    const std::vector<wide_key> first(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n));
    std::vector<float4_value> values(n);
    for (auto& value : values) value = some_float4(random);
    table.insert(first, values);
    for (std::size_t i = 0; i < n; ++i) model.emplace(first[i], values[i]);
  }
  std::size_t next = n;
  for (const bool upsert : {false, true, false, true}) {
    SCOPED_TRACE(upsert ? "upsert" : "insert");
    std::vector<wide_key> batch;
    for (std::size_t i = 0; i < added; ++i) {
      for (int copy = 0; copy < 3; ++copy) batch.push_back(all[next + i]);
      const wide_key present = all[random.below(next)];
      for (int copy = 0; copy < 2; ++copy) batch.push_back(present);
    }
    next += added;
    std::shuffle(batch.begin(), batch.end(), random.engine());
    std::vector<float4_value> values(batch.size());
    for (auto& value : values) value = some_float4(random);
    const auto statuses =
        upsert ? table.insert_or_assign(batch, values) : table.insert(batch, values);

    // Per key: the positions of its copies.
    std::unordered_map<wide_key, std::vector<std::size_t>, wide_key_std_hash> copies;
    for (std::size_t i = 0; i < batch.size(); ++i) copies[batch[i]].push_back(i);
    const auto [found, found_statuses] = table.find(batch);
    for (const auto& [key, at] : copies) {
      const bool was_present = model.count(key) != 0;
      std::size_t inserted = 0;
      for (const std::size_t i : at) {
        if (statuses[i] == status::inserted) {
          ++inserted;
          if (!upsert) model[key] = values[i];
        } else {
          ASSERT_EQ(statuses[i], upsert ? status::updated : status::exists);
        }
      }
      ASSERT_EQ(inserted, was_present ? 0U : 1U);
      ASSERT_EQ(found_statuses[at[0]], status::found);
      if (upsert) {
        const bool from_batch = std::any_of(
            at.begin(), at.end(), [&](std::size_t i) { return values[i] == found[at[0]]; });
        ASSERT_TRUE(from_batch) << "an upserted key holds a value not in the batch";
        model[key] = found[at[0]];
      } else {
        ASSERT_EQ(found[at[0]], model.at(key));
      }
    }
    expect_contents(table, model, {});
  }
}

// A 16-byte key under a policy coarser than its bytes (tagged_wide): from a
// small table that grows by rebuilds and walks, batches of inserts, upserts
// and erases whose keys repeat ids under other tags. A key's stored bytes
// are those of its first insert; any key of its id finds, updates and
// erases it. The model maps id to (tag, value).
TYPED_TEST_P(cuckoo_key_types, a_coarse_key_equality_holds_through_walks_and_growth) {
  using map_type = typename TypeParam::template map<tagged_wide, std::uint64_t, tagged_wide_hash,
                                                    tagged_wide_equal>;
  seeded_random random;
  map_type table(table_options{64, 0.95f, random.next()});
  std::unordered_map<std::uint64_t, std::pair<std::uint64_t, std::uint64_t>> model;
  const std::uint64_t ids = scaled(6000);
  const auto some_key = [&] { return tagged_wide{random.below(ids), random.below(1000)}; };
  const auto expect_model = [&] {
    ASSERT_EQ(table.size(), model.size());
    const auto [keys, values] = table.retrieve_all();
    ASSERT_EQ(keys.size(), model.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const auto it = model.find(keys[i].id);
      ASSERT_NE(it, model.end()) << "id " << keys[i].id;
      ASSERT_EQ(keys[i].tag, it->second.first) << "id " << keys[i].id << ": stored bytes changed";
      ASSERT_EQ(values[i], it->second.second) << "id " << keys[i].id;
    }
  };
  for (int round = 0; round < 12; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    // Inserts: one copy of each new id answers inserted, and its bytes stay.
    std::vector<tagged_wide> keys(scaled(1500));
    std::vector<std::uint64_t> values(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      keys[i] = some_key();
      values[i] = random.next();
    }
    const auto statuses = table.insert(keys, values);
    std::unordered_map<std::uint64_t, std::size_t> inserted_at;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (model.count(keys[i].id) != 0) {
        ASSERT_EQ(statuses[i], status::exists);
      } else if (statuses[i] == status::inserted) {
        ASSERT_TRUE(inserted_at.emplace(keys[i].id, i).second) << "id " << keys[i].id << " twice";
      } else {
        ASSERT_EQ(statuses[i], status::exists);
      }
    }
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (model.count(keys[i].id) == 0) {
        ASSERT_EQ(inserted_at.count(keys[i].id), 1U) << "id " << keys[i].id << " not inserted";
      }
    }
    for (const auto& [id, i] : inserted_at)
      model.emplace(id, std::make_pair(keys[i].tag, values[i]));

    // Upserts under other tags: values change, stored bytes do not.
    std::vector<tagged_wide> upserted(scaled(300));
    std::vector<std::uint64_t> new_values(upserted.size());
    std::unordered_map<std::uint64_t, std::size_t> last_copy;
    for (std::size_t i = 0; i < upserted.size(); ++i) {
      upserted[i] = some_key();
      new_values[i] = random.next();
      last_copy[upserted[i].id] = i;
    }
    const auto upsert_statuses = table.insert_or_assign(upserted, new_values);
    std::unordered_map<std::uint64_t, std::size_t> new_ids;
    for (std::size_t i = 0; i < upserted.size(); ++i) {
      if (model.count(upserted[i].id) != 0) {
        ASSERT_EQ(upsert_statuses[i], status::updated);
      } else if (upsert_statuses[i] == status::inserted) {
        ASSERT_TRUE(new_ids.emplace(upserted[i].id, i).second) << "id " << upserted[i].id;
      } else {
        ASSERT_EQ(upsert_statuses[i], status::updated);
      }
    }
    // Which copy's value an upserted id holds depends on the serial order:
    // read it back, check it came from the batch, and keep it.
    std::vector<tagged_wide> written;
    for (const auto& [id, i] : last_copy) written.push_back(tagged_wide{id, 7});
    const auto [found, found_statuses] = table.find(written);
    for (std::size_t k = 0; k < written.size(); ++k) {
      const std::uint64_t id = written[k].id;
      ASSERT_EQ(found_statuses[k], status::found) << "id " << id;
      bool from_batch = false;
      for (std::size_t i = 0; i < upserted.size(); ++i)
        from_batch |= upserted[i].id == id && new_values[i] == found[k];
      ASSERT_TRUE(from_batch) << "id " << id;
      const auto it = model.find(id);
      if (it != model.end()) {
        it->second.second = found[k];
      } else {
        model.emplace(id, std::make_pair(upserted[new_ids.at(id)].tag, found[k]));
      }
    }

    // Erases under other tags: one copy of a present id erases it.
    std::vector<tagged_wide> erased(scaled(400));
    for (auto& key : erased) key = some_key();
    const auto erase_statuses = table.erase(erased);
    std::unordered_map<std::uint64_t, int> erasures;
    for (std::size_t i = 0; i < erased.size(); ++i) {
      if (erase_statuses[i] == status::erased) {
        ++erasures[erased[i].id];
      } else {
        ASSERT_EQ(erase_statuses[i], status::not_found);
      }
    }
    for (const tagged_wide& key : erased) {
      ASSERT_EQ(erasures[key.id], model.count(key.id) != 0 ? 1 : 0) << "id " << key.id;
    }
    for (const auto& [id, count] : erasures) model.erase(id);
    expect_model();
  }
}

// Keys and values of different widths, in the slots the key_types suite
// leaves out: 8-byte keys with 16-byte values (a 32-byte slot whose key word
// is read by the 8-byte tables' vector load) and 4-byte keys with 8-byte
// values (a 16-byte slot), through the rounds of
// expect_to_match_an_unordered_map (growth, walks, reserved keys drawn).
TYPED_TEST_P(cuckoo_key_types, keys_and_values_of_different_widths_match_an_unordered_map) {
  using design = TypeParam;
  seeded_random random;
  {
    SCOPED_TRACE("8-byte keys, 16-byte values");
    using map_type = typename design::template map<std::uint64_t, float4_value>;
    map_type table(table_options{16, 0.0f, random.next()});
    expect_to_match_an_unordered_map<map_type, std::hash<std::uint64_t>>(
        table, [&] { return random.below(300) - 4; },  // wraps: ~0 - 3 to ~0 are drawn too
        [&] { return some_float4(random); });
  }
  {
    SCOPED_TRACE("4-byte keys, 8-byte values");
    using map_type = typename design::template map<std::uint32_t, double>;
    map_type table(table_options{16, 0.0f, random.next()});
    expect_to_match_an_unordered_map<map_type, std::hash<std::uint32_t>>(
        table, [&] { return static_cast<std::uint32_t>(random.below(300) - 4); },
        [&] { return static_cast<double>(random.below(1000)) / 8; });
  }
}

REGISTER_TYPED_TEST_SUITE_P(cuckoo_key_types, eviction_walks_fill_sixteen_byte_keys_to_load_095,
                            homeless_sixteen_byte_keys_make_the_table_grow,
                            erased_sixteen_byte_keys_come_back_through_walks,
                            copies_of_a_sixteen_byte_key_in_a_batch_are_one_key,
                            a_coarse_key_equality_holds_through_walks_and_growth,
                            keys_and_values_of_different_widths_match_an_unordered_map);

}  // namespace gpuhash::testing
