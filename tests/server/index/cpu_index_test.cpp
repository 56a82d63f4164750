// The CPU index service (index/cpu_index.cpp), which runs its batches
// through the index's ref, against a model: random batches of searches,
// inserts and erases, dense enough that inserts find both buckets full
// (eviction walks), signatures reach their sixteen entries (a 17th is
// refused) and the index grows.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "index/index_service.hpp"

namespace gpuhash::server::index {
namespace {

TEST(CpuIndex, BatchesAgreeWithAModelAtEveryLoad) {
  const std::uint64_t seed = std::random_device{}();
  std::mt19937_64 random(seed);
  const std::unique_ptr<index_service> index = make_cpu_index(16, seed);
  // signature -> its locations; each (signature, location) at most once, as
  // the engine keeps them
  std::map<signature_type, std::set<location_type>> model;
  std::size_t entries = 0;
  location_type next_location = 0;
  std::size_t refused = 0;
  constexpr signature_type signatures = 2500;
  // one signature only ever inserted under: past sixteen entries, refused
  constexpr signature_type crowded = 1;
  for (int round = 0; round < 400; ++round) {
    index_batch batch;
    // a signature is searched, inserted under or erased from in one way a
    // batch (the searches may or may not see the batch's own changes)
    std::map<signature_type, operation> used;
    used.emplace(crowded, operation::insert);
    const auto pick = [&](operation op) -> signature_type {
      for (;;) {
        const auto signature = static_cast<signature_type>(1 + random() % signatures);
        const auto [it, added] = used.try_emplace(signature, op);
        if (added || it->second == op) return signature;
      }
    };
    std::vector<signature_type> searched;
    for (std::size_t s = random() % 40; s > 0; --s) {
      searched.push_back(pick(operation::search));
      batch.add(operation::search, searched.back(), 0);
    }
    struct change {
      operation op;
      signature_type signature;
      location_type location;
    };
    std::vector<change> changes;
    if (round % 2 == 0) changes.push_back({operation::insert, crowded, next_location++});
    for (std::size_t c = random() % 120; c > 0; --c) {
      if (random() % 4 != 0 || entries == 0) {
        changes.push_back({operation::insert, pick(operation::insert), next_location++});
      } else {
        const signature_type signature = pick(operation::erase);
        const auto found = model.find(signature);
        // mostly an entry that is there; sometimes one that is not
        const location_type location =
            found != model.end() && random() % 8 != 0 ? *found->second.begin() : next_location++;
        if (std::none_of(changes.begin(), changes.end(), [&](const change& other) {
              return other.signature == signature && other.location == location;
            }))
          changes.push_back({operation::erase, signature, location});
      }
    }
    for (const change& each : changes) batch.add(each.op, each.signature, each.location);
    const index_results results = index->apply(batch);

    for (std::size_t i = 0; i < searched.size(); ++i) {
      std::set<location_type> found;
      for (std::uint32_t k = 0; k < results.count(i); ++k) found.insert(results.match(i, k));
      const auto expected = model.find(searched[i]);
      ASSERT_EQ(found, expected == model.end() ? std::set<location_type>{} : expected->second)
          << "seed " << seed << ", round " << round << ", signature " << searched[i];
    }
    ASSERT_EQ(results.settled, changes.size()) << "seed " << seed;
    for (std::size_t j = 0; j < changes.size(); ++j) {
      const change& each = changes[j];
      std::set<location_type>& stored = model[each.signature];
      status expected = status::not_found;
      if (each.op == operation::erase && stored.erase(each.location) == 1) {
        expected = status::erased;
        --entries;
      } else if (each.op == operation::insert) {
        expected = stored.size() == max_matches ? status::full : status::inserted;
        if (expected == status::inserted) {
          stored.insert(each.location);
          ++entries;
        } else {
          ++refused;
        }
      }
      ASSERT_EQ(results.status_of(j), expected)
          << "seed " << seed << ", round " << round << ", change " << j;
    }
    ASSERT_EQ(index->entries(), entries) << "seed " << seed << ", round " << round;
  }
  EXPECT_EQ(model[crowded].size(), max_matches);
  EXPECT_GE(refused, 200u - max_matches);
  EXPECT_GT(index->rebuilds(), 0u);
}

}  // namespace
}  // namespace gpuhash::server::index
