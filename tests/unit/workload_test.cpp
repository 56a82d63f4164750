// gpuhash-bench's workload generators and result checkers: the benchmark's
// correctness rests on them (distinct keys, absent keys disjoint from present
// ones, a real Zipf skew, hit ratios as asked, checkers that count every wrong
// answer).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numeric>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "bench/workload.hpp"
#include "support/random.hpp"

namespace gpuhash::bench {
namespace {

using gpuhash::testing::seeded_random;

template <class Key>
std::vector<Key> generate(const key_spec& spec, std::uint64_t first, std::size_t n) {
  std::vector<Key> keys(n);
  std::vector<Key> values(n);
  generate_keys<Key, Key>(cpu_backend{}, spec, first, n, keys.data(), values.data(), {});
  for (std::size_t i = 0; i < n; ++i)
    EXPECT_EQ(values[i], (key_generator<Key, Key>::value_for(keys[i])));
  return keys;
}

TEST(workload, uniform_keys_are_distinct_allowed_and_disjoint_from_absent_ones) {
  for (const std::uint64_t seed : {1ULL, 99ULL}) {
    key_spec spec{distribution::uniform, seed, 0.99, 0};
    const auto present = generate<std::uint32_t>(spec, 0, 200000);
    const auto absent = generate<std::uint32_t>(spec, 200000, 200000);
    std::unordered_set<std::uint32_t> seen(present.begin(), present.end());
    EXPECT_EQ(seen.size(), present.size()) << "duplicate keys";
    for (const auto key : absent)
      EXPECT_TRUE(seen.insert(key).second) << "absent key " << key << " is present";
    for (const auto key : seen) {
      EXPECT_NE(key, 0U);
      EXPECT_LE(key, key_permutation<std::uint32_t>::largest_allowed());
    }
  }
  const auto wide = generate<std::uint64_t>({distribution::uniform, 5, 0.99, 0}, 0, 100000);
  EXPECT_EQ(std::unordered_set<std::uint64_t>(wide.begin(), wide.end()).size(), wide.size());
  std::size_t high = 0;
  for (const auto key : wide) high += key >> 32 != 0;
  EXPECT_GT(high, 99000U) << "64-bit keys should use the whole key space";
}

TEST(workload, seeds_give_fresh_keys) {
  const auto a = generate<std::uint32_t>({distribution::uniform, 1, 0.99, 0}, 0, 10000);
  const auto b = generate<std::uint32_t>({distribution::uniform, 2, 0.99, 0}, 0, 10000);
  std::unordered_set<std::uint32_t> first(a.begin(), a.end());
  std::size_t shared = 0;
  for (const auto key : b) shared += first.contains(key);
  EXPECT_LT(shared, 10U);
}

TEST(workload, dense_keys_count_from_one) {
  const auto keys = generate<std::uint32_t>({distribution::dense, 1, 0.99, 0}, 10, 5);
  EXPECT_EQ(keys, (std::vector<std::uint32_t>{11, 12, 13, 14, 15}));
}

TEST(workload, zipf_ranks_follow_the_power_law) {
  const double s = 0.99;
  const std::uint64_t universe = 1000;
  const auto sampler = zipf_sampler::make(s, universe);
  std::vector<std::uint64_t> counts(universe + 1, 0);
  const std::uint64_t samples = 400000;
  for (std::uint64_t i = 0; i < samples; ++i) {
    const auto rank = sampler(7, i);
    ASSERT_GE(rank, 1U);
    ASSERT_LE(rank, universe);
    ++counts[rank];
  }
  double normalizer = 0;
  for (std::uint64_t k = 1; k <= universe; ++k) normalizer += std::pow(static_cast<double>(k), -s);
  for (const std::uint64_t k : {1ULL, 2ULL, 10ULL, 100ULL}) {
    const double expected = samples * std::pow(static_cast<double>(k), -s) / normalizer;
    EXPECT_NEAR(static_cast<double>(counts[k]), expected, 5 * std::sqrt(expected) + 0.02 * expected)
        << "rank " << k;
  }
}

// The query and upsert helpers (bench/query_ops.hpp's experiments): a batch
// of searches with a given share of hits, and checkers that must count every
// wrong answer, since a checker that accepts anything would hide broken
// tables behind fast timings.

template <class Key>
class workload_queries : public ::testing::Test {};
using key_widths = ::testing::Types<std::uint32_t, std::uint64_t>;
TYPED_TEST_SUITE(workload_queries, key_widths);

/// The value the generators pair with `key`.
template <class Key>
Key value_of(Key key) {
  return key_generator<Key, Key>::value_for(key);
}

template <class Key>
std::vector<Key> queries_for(const query_mix& mix, std::size_t n) {
  std::vector<Key> queries(n);
  generate_queries<Key, Key>(cpu_backend{}, mix, n, queries.data(), {});
  return queries;
}

template <class Key>
struct answers {
  std::vector<Key> values;
  std::vector<status> statuses;
};

/// What a correct table holding keys [0, mix.present) of mix.keys answers.
/// Misses leave their value slot as `miss_value`: find writes values of hits only.
template <class Key>
answers<Key> look_up(const query_mix& mix, const std::vector<Key>& queries, Key miss_value = 0) {
  std::unordered_map<Key, Key> table;
  const auto stored = generate<Key>(mix.keys, 0, mix.present);
  for (const Key key : stored) table.emplace(key, value_of(key));
  answers<Key> result{std::vector<Key>(queries.size(), miss_value),
                      std::vector<status>(queries.size(), status::not_found)};
  for (std::size_t i = 0; i < queries.size(); ++i) {
    if (const auto it = table.find(queries[i]); it != table.end()) {
      result.values[i] = it->second;
      result.statuses[i] = status::found;
    }
  }
  return result;
}

template <class Key>
std::size_t wrong_answers(const query_mix& mix, const std::vector<Key>& queries,
                          const answers<Key>& result) {
  return count_wrong_answers<Key, Key>(cpu_backend{}, mix, queries.data(), result.values.data(),
                                       result.statuses.data(), queries.size(), {});
}

TYPED_TEST(workload_queries, hit_share_matches_the_ratio_and_hits_never_meet_misses) {
  using Key = TypeParam;
  seeded_random random;
  const std::size_t present = 20000;
  for (const distribution kind : {distribution::uniform, distribution::dense}) {
    const key_spec spec{kind, random.next(), 0.99, 0};
    const auto stored = generate<Key>(spec, 0, present);
    const auto absent = generate<Key>(spec, present, present);
    const std::unordered_set<Key> stored_set(stored.begin(), stored.end());
    for (const double ratio : {0.0, 0.25, 0.5, 0.75, 1.0}) {
      SCOPED_TRACE(to_string(kind) + " keys, hit ratio " + std::to_string(ratio));
      const auto queries = queries_for<Key>({spec, present, ratio}, present);
      std::size_t hits = 0;
      for (std::size_t i = 0; i < present; ++i) {
        if (stored_set.contains(queries[i])) {
          ++hits;
          ASSERT_EQ(queries[i], stored[i]) << "hit " << i << " should look for stored key " << i;
        } else {
          ASSERT_EQ(queries[i], absent[i]) << "miss " << i << " should look for absent key " << i;
        }
      }
      if (ratio == 0.0) {
        EXPECT_EQ(hits, 0U);
      } else if (ratio == 1.0) {
        EXPECT_EQ(hits, present);
      } else {
        // Six standard deviations of a binomial share: a false alarm is ~1e-9.
        const double share = static_cast<double>(hits) / static_cast<double>(present);
        EXPECT_NEAR(share, ratio,
                    6 * std::sqrt(ratio * (1 - ratio) / static_cast<double>(present)));
      }
    }
  }
}

TYPED_TEST(workload_queries, a_shorter_batch_is_a_prefix_of_the_full_one) {
  using Key = TypeParam;
  seeded_random random;
  const query_mix mix{{distribution::uniform, random.next(), 0.99, 0}, 3000, 0.5};
  const auto full = queries_for<Key>(mix, mix.present);
  const auto again = queries_for<Key>(mix, mix.present);
  EXPECT_EQ(full, again) << "a batch must be a pure function of its mix";
  const auto shorter = queries_for<Key>(mix, 1000);
  EXPECT_TRUE(std::equal(shorter.begin(), shorter.end(), full.begin()));
  EXPECT_EQ(wrong_answers(mix, shorter, look_up(mix, shorter)), 0U);
}

TYPED_TEST(workload_queries, seeds_give_different_batches) {
  using Key = TypeParam;
  seeded_random random;
  const std::size_t n = 10000;
  const std::uint64_t seed = random.next();
  const query_mix first{{distribution::uniform, seed, 0.99, 0}, n, 0.5};
  const query_mix second{{distribution::uniform, seed + 1, 0.99, 0}, n, 0.5};
  const auto a = queries_for<Key>(first, n);
  const auto b = queries_for<Key>(second, n);
  const auto a_found = look_up(first, a).statuses;
  const auto b_found = look_up(second, b).statuses;
  std::size_t other_pattern = 0;
  for (std::size_t i = 0; i < n; ++i) other_pattern += a_found[i] != b_found[i];
  // Independent patterns at ratio 0.5 differ at about half the positions.
  EXPECT_GT(other_pattern, n / 4) << "the seed should choose which queries hit";
  const std::unordered_set<Key> a_set(a.begin(), a.end());
  std::size_t shared = 0;
  for (const Key key : b) shared += a_set.contains(key);
  EXPECT_LT(shared, 10U) << "the seed should choose the queried keys";
}

TYPED_TEST(workload_queries, wrong_answers_are_zero_for_a_correct_table) {
  using Key = TypeParam;
  seeded_random random;
  const std::size_t n = 5000;
  for (const double ratio : {0.0, 0.25, 0.5, 0.75, 1.0}) {
    SCOPED_TRACE("hit ratio " + std::to_string(ratio));
    const query_mix mix{{distribution::uniform, random.next(), 0.99, 0}, n, ratio};
    const auto queries = queries_for<Key>(mix, n);
    EXPECT_EQ(wrong_answers(mix, queries, look_up(mix, queries)), 0U);
    // What a miss leaves in its value slot is no answer.
    EXPECT_EQ(wrong_answers(mix, queries, look_up(mix, queries, Key{0x5a5a})), 0U);
  }
}

TYPED_TEST(workload_queries, wrong_answers_counts_each_corruption_once) {
  using Key = TypeParam;
  seeded_random random;
  const std::size_t n = 4000;
  const query_mix mix{{distribution::uniform, random.next(), 0.99, 0}, n, 0.5};
  const auto stored = generate<Key>(mix.keys, 0, n);
  auto queries = queries_for<Key>(mix, n);
  auto result = look_up(mix, queries);
  std::vector<std::size_t> hits;
  std::vector<std::size_t> misses;
  for (std::size_t i = 0; i < n; ++i)
    (result.statuses[i] == status::found ? hits : misses).push_back(i);
  ASSERT_GE(hits.size(), 4U);
  ASSERT_GE(misses.size(), 4U);
  std::shuffle(hits.begin(), hits.end(), random.engine());
  std::shuffle(misses.begin(), misses.end(), random.engine());

  // Each corruption at a position of its own, so the count grows by one each.
  const std::vector<std::function<void()>> corruptions = {
      [&] { result.statuses[hits[0]] = status::not_found; },
      [&] { result.statuses[hits[1]] = status::updated; },
      [&] { result.values[hits[2]] ^= Key{1}; },
      // A miss reported found, even with the key's own value.
      [&] {
        result.statuses[misses[0]] = status::found;
        result.values[misses[0]] = value_of(queries[misses[0]]);
      },
      [&] { result.statuses[misses[1]] = status::invalid_key; },
      // The queried key was overwritten: another stored key, answered correctly.
      [&] {
        const std::size_t i = hits[3];
        queries[i] = stored[(i + 1) % n];
        result.values[i] = value_of(queries[i]);
      },
      // A miss whose query became a stored key, still answered not_found.
      [&] { queries[misses[2]] = stored[misses[2]]; },
      // Two faults at one query count once.
      [&] {
        result.statuses[misses[3]] = status::found;
        result.values[misses[3]] = Key{7};
      },
  };
  for (std::size_t k = 0; k < corruptions.size(); ++k) {
    corruptions[k]();
    EXPECT_EQ(wrong_answers(mix, queries, result), k + 1) << "after corruption " << k;
  }
  // A value in a miss's slot is still ignored.
  result.values[misses[4]] ^= Key{1};
  EXPECT_EQ(wrong_answers(mix, queries, result), corruptions.size());
}

TYPED_TEST(workload_queries, unexpected_counts_wrong_statuses_and_values) {
  using Key = TypeParam;
  seeded_random random;
  const std::size_t n = 3000;
  const key_spec spec{distribution::uniform, random.next(), 0.99, 0};
  const auto keys = generate<Key>(spec, 0, n);
  std::vector<Key> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = value_of(keys[i]);
  std::vector<status> statuses(n, status::found);
  const auto unexpected = [&](const std::vector<Key>* checked_values, status expected) {
    return count_unexpected<Key, Key>(cpu_backend{}, keys.data(),
                                      checked_values ? checked_values->data() : nullptr,
                                      statuses.data(), n, expected, {});
  };
  EXPECT_EQ(unexpected(&values, status::found), 0U);
  EXPECT_EQ(unexpected(nullptr, status::inserted), n);
  const std::size_t p = random.below(n);
  const std::size_t q = (p + 1 + random.below(n - 1)) % n;
  values[p] ^= Key{1};
  EXPECT_EQ(unexpected(&values, status::found), 1U);
  EXPECT_EQ(unexpected(nullptr, status::found), 0U) << "values are not checked without values";
  statuses[q] = status::not_found;
  EXPECT_EQ(unexpected(&values, status::found), 2U);
  statuses[p] = status::not_found;
  EXPECT_EQ(unexpected(&values, status::found), 2U) << "two faults at one key count once";
  std::fill(statuses.begin(), statuses.end(), status::updated);
  EXPECT_EQ(unexpected(&values, status::updated), 0U) << "values are checked for found only";
  statuses[q] = status::inserted;
  EXPECT_EQ(unexpected(&values, status::updated), 1U);
}

/// A batch of upserts with repeated keys (Zipf over a few ranks), and each
/// distinct key's positions in it.
template <class Key>
struct upsert_batch {
  std::vector<Key> keys;
  std::vector<Key> values;
  std::unordered_map<Key, std::vector<std::size_t>> writes;

  upsert_batch(std::uint64_t seed, std::size_t n)
      : keys(generate<Key>({distribution::zipf, seed, 0.99, 64}, 0, n)), values(n) {
    generate_tagged_values<Key, Key>(cpu_backend{}, keys.data(), n, values.data(), {});
    for (std::size_t i = 0; i < n; ++i) writes[keys[i]].push_back(i);
  }
  std::size_t untagged(const std::vector<Key>& found, const std::vector<status>& statuses) const {
    return count_untagged<Key, Key>(cpu_backend{}, keys.data(), keys.size(), keys.data(),
                                    found.data(), statuses.data(), keys.size(), {});
  }
};

TYPED_TEST(workload_queries, tagged_values_name_their_write) {
  using Key = TypeParam;
  seeded_random random;
  const upsert_batch<Key> batch(random.next(), 2000);
  ASSERT_LT(batch.writes.size(), batch.keys.size() / 4) << "the batch should repeat keys";
  for (std::size_t i = 0; i < batch.keys.size(); ++i)
    ASSERT_EQ(batch.values[i], value_of(batch.keys[i]) ^ Key(i + 1));
  for (const auto& [key, positions] : batch.writes) {
    std::unordered_set<Key> values;
    for (const std::size_t i : positions) values.insert(batch.values[i]);
    EXPECT_EQ(values.size(), positions.size()) << "writes of key " << key << " share a value";
  }
}

TYPED_TEST(workload_queries, untagged_accepts_the_value_of_any_own_upsert) {
  using Key = TypeParam;
  seeded_random random;
  const upsert_batch<Key> batch(random.next(), 2000);
  const std::size_t n = batch.keys.size();
  const std::vector<status> found(n, status::found);
  // The last write of each key (a serial run), then any write of each key
  // (concurrent upserts may end in any order).
  std::unordered_map<Key, Key> last;
  for (std::size_t i = 0; i < n; ++i) last[batch.keys[i]] = batch.values[i];
  std::unordered_map<Key, Key> any;
  for (const auto& [key, positions] : batch.writes)
    any[key] = batch.values[positions[random.below(positions.size())]];
  for (const auto* final_state : {&last, &any}) {
    std::vector<Key> values(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = final_state->at(batch.keys[i]);
    EXPECT_EQ(batch.untagged(values, found), 0U);
  }
}

TYPED_TEST(workload_queries, untagged_rejects_values_no_upsert_of_the_key_wrote) {
  using Key = TypeParam;
  using tags = value_tags<Key, Key>;
  seeded_random random;
  const upsert_batch<Key> batch(random.next(), 2000);
  const std::size_t n = batch.keys.size();
  std::vector<Key> values = batch.values;
  std::vector<status> statuses(n, status::found);
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::shuffle(order.begin(), order.end(), random.engine());
  // A write of another key than the one at `i`.
  const auto other_write = [&](std::size_t i) {
    std::size_t j = random.below(n);
    while (batch.keys[j] == batch.keys[i]) j = random.below(n);
    return j;
  };

  const std::vector<std::function<void(std::size_t)>> corruptions = {
      // The value the key had before the batch (no tag).
      [&](std::size_t i) { values[i] = value_of(batch.keys[i]); },
      // A value another key's upsert wrote.
      [&](std::size_t i) { values[i] = batch.values[other_write(i)]; },
      // The key's value tagged with the position of another key's write.
      [&](std::size_t i) { values[i] = tags::tagged(batch.keys[i], other_write(i)); },
      // A tag past the end of the batch.
      [&](std::size_t i) { values[i] = tags::tagged(batch.keys[i], n); },
      [&](std::size_t i) { values[i] ^= Key{1} << 20; },
      // The right value, but the key was not found.
      [&](std::size_t i) { statuses[i] = status::not_found; },
      [&](std::size_t i) { statuses[i] = status::updated; },
  };
  for (std::size_t k = 0; k < corruptions.size(); ++k) {
    corruptions[k](order[k]);
    EXPECT_EQ(batch.untagged(values, statuses), k + 1) << "after corruption " << k;
  }
}

TYPED_TEST(workload_queries, untagged_ignores_writes_past_the_batch) {
  using Key = TypeParam;
  seeded_random random;
  // The batch is the first n keys of a longer array whose next key repeats
  // key 0: a tag naming position n is no write of the batch.
  const upsert_batch<Key> longer(random.next(), 1001);
  const std::size_t n = longer.keys.size() - 1;
  std::vector<Key> written = longer.keys;
  written[n] = written[0];
  const std::vector<Key> key{written[0]};
  const std::vector<status> found{status::found};
  const auto untagged = [&](Key value) {
    return count_untagged<Key, Key>(cpu_backend{}, written.data(), n, key.data(), &value,
                                    found.data(), 1, {});
  };
  EXPECT_EQ(untagged(value_tags<Key, Key>::tagged(key[0], 0)), 0U);
  EXPECT_EQ(untagged(value_tags<Key, Key>::tagged(key[0], n)), 1U);
}

TYPED_TEST(workload_queries, untagged_agrees_with_a_brute_force_check) {
  using Key = TypeParam;
  seeded_random random;
  const upsert_batch<Key> batch(random.next(), 1000);
  const std::size_t n = batch.keys.size();
  std::vector<Key> values(n);
  std::size_t expected = 0;
  for (std::size_t i = 0; i < n; ++i) {
    // Half own writes, half writes of any key (some of them the key's own).
    values[i] = random.below(2) == 0 ? batch.values[batch.writes.at(batch.keys[i])[0]]
                                     : batch.values[random.below(n)];
    const auto& own = batch.writes.at(batch.keys[i]);
    expected += std::none_of(own.begin(), own.end(),
                             [&](std::size_t j) { return batch.values[j] == values[i]; });
  }
  ASSERT_GT(expected, 0U);
  ASSERT_LT(expected, n);
  EXPECT_EQ(batch.untagged(values, std::vector<status>(n, status::found)), expected);
}

}  // namespace
}  // namespace gpuhash::bench
