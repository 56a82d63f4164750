#pragma once
// Tests of gpuhash::signature_index (docs/designs/signature_index.md): a
// differential test against std::unordered_multimap on random mixed batches,
// entries sharing a signature, reserved signature 0, growth past the
// initial size, no insert lost in the thesis' batch setting, searches that
// never miss stored entries while inserts evict, and argument checks.
// Instantiated per backend.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gpuhash/signature_index.hpp"
#include "support/random.hpp"

namespace gpuhash::testing {

using signature = std::uint32_t;
using location = std::uint32_t;
/// The model: every stored (signature, location) entry, with multiplicity.
using index_model = std::multiset<std::pair<signature, location>>;

/// The index's contents as a multiset (duplicates would show).
template <class Index>
index_model contents(const Index& index) {
  const auto entries = index.entries();
  return index_model(entries.begin(), entries.end());
}

/// The model's locations under a signature, sorted.
inline std::vector<location> model_matches(const index_model& model, signature sig) {
  std::vector<location> out;
  for (auto it = model.lower_bound({sig, 0}); it != model.end() && it->first == sig; ++it)
    out.push_back(it->second);
  return out;
}

template <class Result>
std::vector<location> sorted_matches(const Result& result, std::size_t i) {
  const auto span = result.matches_of(i);
  std::vector<location> out(span.begin(), span.end());
  std::sort(out.begin(), out.end());
  return out;
}

/// A nonzero signature from a small universe, so entries share signatures.
inline signature small_signature(seeded_random& random, std::uint64_t universe) {
  return static_cast<signature>(1 + random.below(universe));
}

template <class Index>
class signature_index_test : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Index::backend_type::available())
      GTEST_SKIP() << "no " << Index::backend_type::name
                   << " device: these tests need an NVIDIA GPU (scripts/gpu-check runs them)";
  }
};

TYPED_TEST_SUITE_P(signature_index_test);

// Each batch mixes inserts of new entries, erases and replaces of stored and
// of missing entries, and searches of signatures the batch does not change,
// so every outcome is determined; statuses, matches and contents are checked
// against the model after every batch.
TYPED_TEST_P(signature_index_test, agrees_with_a_multimap_on_random_mixed_batches) {
  seeded_random random;
  TypeParam index(index_options{64, 0.0f, random.next()});
  index_model model;
  location next_location = 1;
  const std::uint64_t universe = scaled(3000);
  for (int round = 0; round < 12; ++round) {
    const std::size_t n = scaled(4000);
    std::vector<operation> ops;
    std::vector<signature> sigs;
    std::vector<location> locs, new_locs;
    std::set<signature> changed;
    std::vector<std::pair<signature, location>> stored(model.begin(), model.end());
    std::set<std::pair<signature, location>> touched;
    std::map<signature, int> per_signature;  // entries in the model plus this batch's inserts
    for (const auto& entry : model) ++per_signature[entry.first];
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t pick = random.below(10);
      if (pick < 4 || stored.empty()) {  // insert a new entry (fresh location)
        const signature sig = small_signature(random, universe);
        // At most 12 entries per signature, below the 16 a search returns.
        if (per_signature[sig] == 12) continue;
        ++per_signature[sig];
        ops.push_back(operation::insert);
        sigs.push_back(sig);
        locs.push_back(next_location++);
        new_locs.push_back(0);
        changed.insert(sig);
      } else if (pick < 7) {  // erase or replace a stored entry, or a missing one
        const bool missing = random.below(4) == 0;
        auto entry = stored[random.below(stored.size())];
        if (missing) entry.second = next_location++;  // never stored
        if (!touched.insert(entry).second) continue;
        const bool erase = random.below(2) == 0;
        ops.push_back(erase ? operation::erase : operation::update);
        sigs.push_back(entry.first);
        locs.push_back(entry.second);
        new_locs.push_back(erase ? 0 : next_location++);
        changed.insert(entry.first);
      } else {  // search (kept only if the batch leaves its signature alone)
        ops.push_back(operation::search);
        sigs.push_back(random.below(3) == 0 ? small_signature(random, 2 * universe)
                                            : stored[random.below(stored.size())].first);
        locs.push_back(0);
        new_locs.push_back(0);
      }
    }
    // Drop searches of signatures this batch changes (their outcome depends
    // on the order the batch runs in).
    for (std::size_t i = 0; i < ops.size();) {
      if (ops[i] == operation::search && changed.count(sigs[i]) != 0) {
        ops.erase(ops.begin() + static_cast<std::ptrdiff_t>(i));
        sigs.erase(sigs.begin() + static_cast<std::ptrdiff_t>(i));
        locs.erase(locs.begin() + static_cast<std::ptrdiff_t>(i));
        new_locs.erase(new_locs.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        ++i;
      }
    }
    const auto result = index.apply(ops, sigs, locs, new_locs);
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const std::pair<signature, location> entry{sigs[i], locs[i]};
      switch (ops[i]) {
        case operation::insert:
          ASSERT_EQ(result.statuses[i], status::inserted) << i;
          model.insert(entry);
          break;
        case operation::erase: {
          const auto it = model.find(entry);
          ASSERT_EQ(result.statuses[i], it == model.end() ? status::not_found : status::erased)
              << "erase " << sigs[i] << "/" << locs[i];
          if (it != model.end()) model.erase(it);
          break;
        }
        case operation::update: {
          const auto it = model.find(entry);
          ASSERT_EQ(result.statuses[i], it == model.end() ? status::not_found : status::updated)
              << "replace " << sigs[i] << "/" << locs[i];
          if (it != model.end()) {
            model.erase(it);
            model.insert({sigs[i], new_locs[i]});
          }
          break;
        }
        case operation::search: {
          const auto expected = model_matches(model, sigs[i]);
          ASSERT_EQ(result.statuses[i], expected.empty() ? status::not_found : status::found);
          ASSERT_EQ(sorted_matches(result.searches, i), expected) << "signature " << sigs[i];
          break;
        }
        case operation::upsert: FAIL();
      }
    }
    ASSERT_EQ(index.size(), model.size()) << "round " << round;
    ASSERT_EQ(contents(index), model) << "round " << round;
  }
  EXPECT_GT(index.rebuilds(), 0u) << "the test should have made the index grow";
}

TYPED_TEST_P(signature_index_test, sixteen_entries_share_a_signature_and_stay_apart) {
  seeded_random random;
  TypeParam index(index_options{1024, 0.0f, random.next()});
  const signature shared = small_signature(random, 1u << 30);
  std::vector<signature> sigs(TypeParam::max_matches, shared);
  std::vector<location> locs(TypeParam::max_matches);
  for (std::size_t i = 0; i < locs.size(); ++i) locs[i] = static_cast<location>(100 + i);
  for (const status s : index.insert(sigs, locs)) ASSERT_EQ(s, status::inserted);

  auto found = index.find(std::vector<signature>{shared});
  EXPECT_EQ(sorted_matches(found, 0), locs);

  // Removing one item never removes another sharing its signature, and a
  // replace changes only the entry it names.
  EXPECT_EQ(index.erase(std::vector<signature>{shared}, std::vector<location>{105})[0],
            status::erased);
  EXPECT_EQ(index.erase(std::vector<signature>{shared}, std::vector<location>{105})[0],
            status::not_found);
  EXPECT_EQ(index.replace(std::vector<signature>{shared}, std::vector<location>{107},
                          std::vector<location>{7007})[0],
            status::updated);
  EXPECT_EQ(index.replace(std::vector<signature>{shared + 1}, std::vector<location>{108},
                          std::vector<location>{8008})[0],
            status::not_found);
  std::vector<location> expected;
  for (const location l : locs)
    if (l != 105) expected.push_back(l == 107 ? 7007 : l);
  std::sort(expected.begin(), expected.end());
  found = index.find(std::vector<signature>{shared});
  EXPECT_EQ(sorted_matches(found, 0), expected);
  EXPECT_EQ(index.size(), expected.size());
}

TYPED_TEST_P(signature_index_test, a_seventeenth_entry_under_one_signature_is_refused) {
  seeded_random random;
  TypeParam index(index_options{64, 0.0f, random.next()});
  const signature shared = small_signature(random, 1u << 30);
  std::vector<signature> sigs(TypeParam::max_matches + 1, shared);
  std::vector<location> locs(sigs.size());
  for (std::size_t i = 0; i < locs.size(); ++i) locs[i] = static_cast<location>(i);
  const auto statuses = index.insert(sigs, locs);
  EXPECT_EQ(std::count(statuses.begin(), statuses.end(), status::inserted),
            static_cast<std::ptrdiff_t>(TypeParam::max_matches));
  EXPECT_EQ(std::count(statuses.begin(), statuses.end(), status::full), 1);
  EXPECT_EQ(index.size(), TypeParam::max_matches);
  // Exactly the entries reported inserted are stored.
  index_model expected;
  for (std::size_t i = 0; i < sigs.size(); ++i)
    if (statuses[i] == status::inserted) expected.insert({sigs[i], locs[i]});
  EXPECT_EQ(contents(index), expected);
  // A later one is refused too, and an erase makes room again.
  EXPECT_EQ(index.insert(std::vector<signature>{shared}, std::vector<location>{99})[0],
            status::full);
  const location stored = expected.begin()->second;
  EXPECT_EQ(index.erase(std::vector<signature>{shared}, std::vector<location>{stored})[0],
            status::erased);
  EXPECT_EQ(index.insert(std::vector<signature>{shared}, std::vector<location>{99})[0],
            status::inserted);
}

// Eighteen entries whose signatures all map to the same two buckets (found
// by hashing with the index's own bucket functions) cannot all fit in their
// sixteen slots: walks run out of exchanges, and the entries in their hands
// must end up in the grown index. Run as an insert batch (walks inline) and
// as an apply batch (walks in phase 2; two pending inserts in a batch of 18
// are more than its record of pending positions holds, so they are found by
// a search of the statuses).
TYPED_TEST_P(signature_index_test, homeless_entries_make_the_index_grow) {
  seeded_random random;
  for (const bool as_apply : {false, true}) {
    const std::uint64_t seed = random.next();
    TypeParam index(index_options{32, 1.0f, seed});
    ASSERT_EQ(index.capacity(), 32u);
    const detail::signature_index::index_view buckets(nullptr, 4, seed);
    std::vector<signature> sigs;
    while (sigs.size() < 18) {
      const signature sig = small_signature(random, 0xfffffffeu);
      const std::uint64_t first = buckets.first_bucket(sig);
      const std::uint64_t second = buckets.other_bucket(first, sig);
      if (std::min(first, second) == 0 && std::max(first, second) == 1) sigs.push_back(sig);
    }
    std::vector<location> locs(sigs.size());
    for (std::size_t i = 0; i < locs.size(); ++i) locs[i] = static_cast<location>(i);
    const auto statuses =
        as_apply
            ? index.apply(std::vector<operation>(sigs.size(), operation::insert), sigs, locs, {})
                  .statuses
            : index.insert(sigs, locs);
    for (const status s : statuses) ASSERT_EQ(s, status::inserted) << "apply: " << as_apply;
    EXPECT_GT(index.capacity(), 32u);
    index_model expected;
    for (std::size_t i = 0; i < sigs.size(); ++i) expected.insert({sigs[i], locs[i]});
    EXPECT_EQ(contents(index), expected) << "apply: " << as_apply;
  }
}

// The caller's bound on a batch's inserts replaces the counting pass: the
// index grows for it as for a counted batch, and a bound too small only
// leaves the growth to the inserts that find no room (none is lost).
TYPED_TEST_P(signature_index_test, a_given_insert_bound_grows_the_index_or_loses_nothing) {
  constexpr std::uint32_t n = 2000;
  for (const std::size_t bound : {std::size_t{n}, std::size_t{0}}) {
    SCOPED_TRACE("inserts_at_most " + std::to_string(bound));
    TypeParam index(index_options{64, 0.0f, 7});
    std::vector<signature> sigs;
    std::vector<location> locs;
    for (std::uint32_t i = 0; i < n; ++i) {
      sigs.push_back(static_cast<signature>(gpuhash::murmur3_fmix64(i + 1) | 1));
      locs.push_back(i);
    }
    const auto result =
        index.apply(std::vector<operation>(sigs.size(), operation::insert), sigs, locs, {}, bound);
    EXPECT_EQ(std::count(result.statuses.begin(), result.statuses.end(), status::inserted),
              static_cast<std::ptrdiff_t>(sigs.size()));
    EXPECT_EQ(index.size(), sigs.size());
    if (bound == n) {  // grown before the batch, as for a counted one
      EXPECT_GE(static_cast<double>(index.capacity()) * index.max_load_factor(),
                static_cast<double>(sigs.size()));
    }
    const auto found = index.find(sigs);
    for (std::size_t i = 0; i < sigs.size(); ++i) {
      const auto matches = found.matches_of(i);
      ASSERT_NE(std::find(matches.begin(), matches.end(), locs[i]), matches.end()) << i;
    }
  }
}

// find_async on backend memory gives find's results once the stream is done.
TYPED_TEST_P(signature_index_test, find_async_agrees_with_find) {
  using backend = typename TypeParam::backend_type;
  TypeParam index(index_options{64, 0.0f, 3});
  std::vector<signature> sigs;
  std::vector<location> locs;
  for (std::uint32_t i = 0; i < 3000; ++i) {
    sigs.push_back(static_cast<signature>(1 + i % 1000));  // three entries per signature
    locs.push_back(i);
  }
  index.insert(sigs, locs);
  std::vector<signature> searched(sigs.begin(), sigs.begin() + 1200);
  searched.push_back(5000);  // missing
  const auto expected = index.find(searched);
  const std::size_t n = searched.size();
  auto device_sigs = backend::template allocate<signature>(n);
  auto device_matches = backend::template allocate<location>(n * TypeParam::max_matches);
  auto device_counts = backend::template allocate<std::uint32_t>(n);
  backend::copy_from_host(device_sigs.data(), searched.data(), n);
  index.find_async(device_sigs.data(), n, device_matches.data(), device_counts.data());
  backend::synchronize({});
  std::vector<std::uint32_t> counts(n);
  std::vector<location> matches(n * TypeParam::max_matches);
  backend::copy_to_host(counts.data(), device_counts.data(), n);
  backend::copy_to_host(matches.data(), device_matches.data(), matches.size());
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(counts[i], expected.counts[i]) << i;
    std::vector<location> got(matches.begin() + i * TypeParam::max_matches,
                              matches.begin() + i * TypeParam::max_matches + counts[i]);
    std::vector<location> want(expected.matches_of(i).begin(), expected.matches_of(i).end());
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    EXPECT_EQ(got, want) << i;
  }
}

// apply_async: batches queued back to back, each settled by the next call;
// entries that no walk can place (a tiny index at load limit 1) are stored
// by the growth that settling runs, so none is lost, and the statuses are
// final when the stream gets there.
TYPED_TEST_P(signature_index_test, apply_async_loses_nothing_and_settles_at_the_next_call) {
  using backend = typename TypeParam::backend_type;
  TypeParam index(index_options{32, 1.0f, 11});
  constexpr std::size_t per_batch = 1500;
  std::vector<signature> all_sigs;
  std::vector<location> all_locs;
  for (int batch = 0; batch < 3; ++batch) {
    std::vector<operation> ops(per_batch, operation::insert);
    std::vector<signature> sigs;
    std::vector<location> locs;
    for (std::size_t i = 0; i < per_batch; ++i) {
      const auto k = static_cast<std::uint32_t>(batch * per_batch + i);
      sigs.push_back(static_cast<signature>(gpuhash::murmur3_fmix64(k + 99) | 1));
      locs.push_back(k);
    }
    // the batch also searches what the previous one stored
    if (batch > 0) {
      ops[0] = operation::search;
      sigs[0] = all_sigs.front();
      locs[0] = 0;
    }
    auto d_ops = backend::template allocate<operation>(per_batch);
    auto d_sigs = backend::template allocate<signature>(per_batch);
    auto d_locs = backend::template allocate<location>(per_batch);
    auto d_matches = backend::template allocate<location>(per_batch * TypeParam::max_matches);
    auto d_counts = backend::template allocate<std::uint32_t>(per_batch);
    auto d_statuses = backend::template allocate<status>(per_batch);
    backend::copy_from_host(d_ops.data(), ops.data(), per_batch);
    backend::copy_from_host(d_sigs.data(), sigs.data(), per_batch);
    backend::copy_from_host(d_locs.data(), locs.data(), per_batch);
    index.apply_async(d_ops.data(), d_sigs.data(), d_locs.data(), nullptr, per_batch,
                      d_matches.data(), d_counts.data(), d_statuses.data(), {},
                      batch == 0 ? 0 : per_batch);  // the first batch's bound is too small
    backend::synchronize({});
    std::vector<status> statuses(per_batch);
    std::vector<std::uint32_t> counts(per_batch);
    backend::copy_to_host(statuses.data(), d_statuses.data(), per_batch);
    backend::copy_to_host(counts.data(), d_counts.data(), per_batch);
    for (std::size_t i = 0; i < per_batch; ++i) {
      if (ops[i] == operation::search) {
        EXPECT_EQ(counts[i], 1u) << "batch " << batch;
      } else {
        ASSERT_EQ(statuses[i], status::inserted) << "batch " << batch << " element " << i;
        all_sigs.push_back(sigs[i]);
        all_locs.push_back(locs[i]);
      }
    }
    index.settle_async();
    EXPECT_EQ(index.size(), all_sigs.size()) << "batch " << batch;
  }
  EXPECT_GT(index.rebuilds(), 0u);
  const auto found = index.find(all_sigs);
  for (std::size_t i = 0; i < all_sigs.size(); ++i) {
    const auto matches = found.matches_of(i);
    ASSERT_NE(std::find(matches.begin(), matches.end(), all_locs[i]), matches.end()) << i;
  }
}

TYPED_TEST_P(signature_index_test, signature_zero_is_reserved) {
  TypeParam index(index_options{64, 0.0f, 1});
  EXPECT_EQ(index.insert(std::vector<signature>{0}, std::vector<location>{1})[0],
            status::invalid_key);
  EXPECT_EQ(index.erase(std::vector<signature>{0}, std::vector<location>{1})[0],
            status::invalid_key);
  EXPECT_EQ(index.replace(std::vector<signature>{0}, std::vector<location>{1},
                          std::vector<location>{2})[0],
            status::invalid_key);
  EXPECT_EQ(index.find(std::vector<signature>{0}).counts[0], 0u);
  EXPECT_EQ(index.size(), 0u);
  EXPECT_TRUE(TypeParam::is_reserved(0));
  EXPECT_NE(index.signature(""), 0u);
}

TYPED_TEST_P(signature_index_test, grows_far_past_its_initial_size) {
  seeded_random random;
  TypeParam index(index_options{16, 0.0f, random.next()});
  const std::size_t initial = index.capacity();
  index_model model;
  location next_location = 1;
  for (int batch = 0; batch < 8; ++batch) {
    const std::size_t n = scaled(8000);
    std::vector<signature> sigs(n);
    std::vector<location> locs(n);
    for (std::size_t i = 0; i < n; ++i) {
      sigs[i] = small_signature(random, 1u << 31);
      locs[i] = next_location++;
      model.insert({sigs[i], locs[i]});
    }
    for (const status s : index.insert(sigs, locs)) ASSERT_EQ(s, status::inserted);
  }
  EXPECT_GE(index.capacity(), 16 * initial);
  EXPECT_LE(static_cast<double>(index.size()),
            index.max_load_factor() * static_cast<double>(index.capacity()));
  EXPECT_EQ(contents(index), model);
}

// The thesis' setting (section 6.2): batches of 512 inserts, each followed by
// searches; it lost about 2 items per 32,768. Here the index starts small so
// that inserts go through eviction walks and growth; none may be lost.
TYPED_TEST_P(signature_index_test, loses_no_insert_in_the_thesis_batch_setting) {
  seeded_random random;
  TypeParam index(index_options{512, 0.97f, random.next()});
  std::vector<signature> all_sigs;
  std::vector<location> all_locs;
  for (int batch = 0; batch < 64; ++batch) {
    std::vector<signature> sigs(512);
    std::vector<location> locs(512);
    for (std::size_t i = 0; i < sigs.size(); ++i) {
      sigs[i] = small_signature(random, 0xfffffffeu);
      locs[i] = static_cast<location>(all_locs.size() + i);
    }
    for (const status s : index.insert(sigs, locs)) ASSERT_EQ(s, status::inserted);
    all_sigs.insert(all_sigs.end(), sigs.begin(), sigs.end());
    all_locs.insert(all_locs.end(), locs.begin(), locs.end());
  }
  const auto found = index.find(all_sigs);
  std::size_t lost = 0;
  for (std::size_t i = 0; i < all_sigs.size(); ++i) {
    const auto matches = found.matches_of(i);
    lost += std::find(matches.begin(), matches.end(), all_locs[i]) == matches.end();
  }
  EXPECT_EQ(lost, 0u) << "of " << all_sigs.size() << " inserts";
  EXPECT_EQ(index.size(), all_sigs.size());
}

// Phase-2 walks move entries, but only after the batch's searches ran: a
// search never misses an entry stored before the batch.
TYPED_TEST_P(signature_index_test, searches_never_miss_stored_entries_while_inserts_evict) {
  seeded_random random;
  TypeParam index(index_options{scaled(40000), 0.98f, random.next()});
  const std::size_t slots = index.capacity();
  const std::size_t stored = slots * 85 / 100;
  const std::size_t added = slots * 11 / 100;
  std::vector<signature> sigs(stored);
  std::vector<location> locs(stored);
  for (std::size_t i = 0; i < stored; ++i) {
    sigs[i] = small_signature(random, 0xfffffffeu);
    locs[i] = static_cast<location>(i);
  }
  index.insert(sigs, locs);
  std::vector<operation> ops;
  std::vector<signature> batch_sigs;
  std::vector<location> batch_locs;
  for (std::size_t i = 0; i < stored + added; ++i) {
    const bool insert = i >= stored;
    ops.push_back(insert ? operation::insert : operation::search);
    batch_sigs.push_back(insert ? small_signature(random, 0xfffffffeu) : sigs[i]);
    batch_locs.push_back(static_cast<location>(i));
  }
  // Interleave searches and inserts so they run side by side.
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const std::size_t j = i + random.below(ops.size() - i);
    std::swap(ops[i], ops[j]);
    std::swap(batch_sigs[i], batch_sigs[j]);
    std::swap(batch_locs[i], batch_locs[j]);
  }
  const auto result = index.apply(ops, batch_sigs, batch_locs, {});
  ASSERT_EQ(index.capacity(), slots) << "the index grew: the test would not exercise evictions";
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i] == operation::insert) {
      ASSERT_EQ(result.statuses[i], status::inserted);
      continue;
    }
    const auto matches = result.searches.matches_of(i);
    ASSERT_NE(std::find(matches.begin(), matches.end(), batch_locs[i]), matches.end())
        << "a search missed a stored entry";
  }
  EXPECT_EQ(index.size(), stored + added);
}

TYPED_TEST_P(signature_index_test, erase_then_reinsert_stores_one_entry) {
  seeded_random random;
  TypeParam index(index_options{256, 0.0f, random.next()});
  const std::size_t n = 150;
  std::vector<signature> sigs(n);
  std::vector<location> locs(n);
  for (std::size_t i = 0; i < n; ++i) {
    sigs[i] = small_signature(random, 40);  // many shared signatures
    locs[i] = static_cast<location>(i);
  }
  index.insert(sigs, locs);
  for (const status s : index.erase(sigs, locs)) ASSERT_EQ(s, status::erased);
  ASSERT_TRUE(index.empty());
  index.insert(sigs, locs);
  index_model expected;
  for (std::size_t i = 0; i < n; ++i) expected.insert({sigs[i], locs[i]});
  EXPECT_EQ(contents(index), expected);
  index.clear();
  EXPECT_TRUE(index.entries().empty());
  EXPECT_EQ(index.find(sigs).counts, std::vector<std::uint32_t>(n, 0));
}

TYPED_TEST_P(signature_index_test, seeds_are_random_per_instance_unless_given) {
  TypeParam a, b;
  EXPECT_NE(a.seed(), b.seed());
  EXPECT_NE(a.signature("user:42"), b.signature("user:42"));
  TypeParam c(index_options{64, 0.0f, 7}), d(index_options{64, 0.0f, 7});
  EXPECT_EQ(c.seed(), 7u);
  EXPECT_EQ(c.signature("user:42"), d.signature("user:42"));
  EXPECT_NE(c.signature("user:42"), c.signature("user:43"));
}

TYPED_TEST_P(signature_index_test, rejects_malformed_batches) {
  TypeParam index(index_options{64, 0.0f, 1});
  EXPECT_THROW(index.insert(std::vector<signature>{1, 2}, std::vector<location>{1}),
               std::invalid_argument);
  EXPECT_THROW(index.apply(std::vector<operation>{operation::update}, std::vector<signature>{1},
                           std::vector<location>{1}, {}),
               std::invalid_argument);
  EXPECT_THROW(TypeParam(index_options{64, 1.5f, 1}), std::invalid_argument);
  const auto result = index.apply(std::vector<operation>{operation::upsert},
                                  std::vector<signature>{1}, std::vector<location>{1}, {});
  EXPECT_EQ(result.statuses[0], status::invalid_operation);
  EXPECT_TRUE(index.empty());
}

REGISTER_TYPED_TEST_SUITE_P(signature_index_test, agrees_with_a_multimap_on_random_mixed_batches,
                            a_given_insert_bound_grows_the_index_or_loses_nothing,
                            find_async_agrees_with_find,
                            apply_async_loses_nothing_and_settles_at_the_next_call,
                            sixteen_entries_share_a_signature_and_stay_apart,
                            a_seventeenth_entry_under_one_signature_is_refused,
                            homeless_entries_make_the_index_grow, signature_zero_is_reserved,
                            grows_far_past_its_initial_size,
                            loses_no_insert_in_the_thesis_batch_setting,
                            searches_never_miss_stored_entries_while_inserts_evict,
                            erase_then_reinsert_stores_one_entry,
                            seeds_are_random_per_instance_unless_given, rejects_malformed_batches);

}  // namespace gpuhash::testing
