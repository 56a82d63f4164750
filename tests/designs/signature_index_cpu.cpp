#include <algorithm>
#include <vector>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/hash.hpp"
#include "gpuhash/signature_index_ref.hpp"
#include "gpuhash/status_counts.hpp"
#include "signature_index_tests.hpp"

namespace gpuhash::testing {
using cpu_indexes = ::testing::Types<signature_index<cpu_backend>>;
INSTANTIATE_TYPED_TEST_SUITE_P(signature_index, signature_index_test, cpu_indexes);

// A batch run by the caller's own code through the index's public ref, as
// the server's resident kernel runs one (server/index/gpu_resident.cu):
// make_room_for before it, each entry's step with its status tallied, then
// insert_by_eviction for the inserts left pending (once the steps are done),
// adopt_batch after it. Every other batch's walks make no exchange, so that
// near the load limit some entries are left in hand and adopt_batch stores
// them by growing. The statuses, the size after each batch and the contents
// at the end are checked against a multiset. (On the CPU both kinds of ref
// read alike; the GPU machine runs the same protocol in the resident
// kernel's tests.)
TEST(signature_index_caller_batches, are_adopted_with_their_homeless_entries) {
  using l2_ref = basic_signature_index_ref<bucket_reads::from_l2>;
  seeded_random random;
  signature_index<cpu_backend> index(index_options{64, 0.0f, random.next()});
  index_model model;
  std::vector<std::pair<signature, location>> stored;
  location next_location = 1;
  std::size_t pending_total = 0;
  std::size_t homeless_total = 0;
  for (std::uint64_t round = 1; round <= 300; ++round) {
    std::vector<operation> ops;
    std::vector<signature> sigs;
    std::vector<location> locs;
    const std::size_t erases = std::min<std::size_t>(random.below(40), stored.size());
    for (std::size_t i = 0; i < erases; ++i) {
      const std::size_t victim = random.below(stored.size());
      ops.push_back(operation::erase);
      sigs.push_back(stored[victim].first);
      locs.push_back(stored[victim].second);
      stored[victim] = stored.back();
      stored.pop_back();
    }
    const std::size_t inserts = random.below(120);
    for (std::size_t i = 0; i < inserts; ++i) {
      ops.push_back(operation::insert);
      sigs.push_back(small_signature(random, 1u << 20));
      locs.push_back(next_location);
      stored.emplace_back(sigs.back(), next_location++);
    }
    const std::size_t n = ops.size();

    index.make_room_for(inserts);
    const l2_ref table = index.ref().reading_from_l2();
    std::vector<status> statuses(n);
    std::vector<std::size_t> pending;
    status_counts first;
    for (std::size_t i = 0; i < n; ++i) {
      statuses[i] = ops[i] == operation::insert ? table.insert(sigs[i], locs[i])
                                                : table.erase(sigs[i], locs[i]);
      if (statuses[i] == status::full) pending.push_back(i);
      first.count(statuses[i]);
    }
    ASSERT_EQ(pending.size(), first.full);
    const std::uint32_t exchanges = round % 2 == 0 ? 0 : signature_index<>::max_exchanges;
    std::vector<signature_index_ref::entry_type> held(pending.size(),
                                                      signature_index_ref::no_entry);
    status_counts walked;
    for (std::size_t t = 0; t < pending.size(); ++t) {
      const std::size_t i = pending[t];
      ASSERT_LT(table.count(sigs[i]), signature_index_ref::max_matches);
      statuses[i] = status::inserted;
      const auto placement =
          table.insert_by_eviction(sigs[i], locs[i], murmur3_fmix64(round ^ t), exchanges);
      held[t] = placement.held;
      walked.count(placement.placed ? status::inserted : status::full);
    }
    pending_total += first.full;
    homeless_total += walked.full;
    index.adopt_batch(first, walked, held.data(), held.size());

    for (std::size_t j = 0; j < n; ++j) {
      ASSERT_EQ(statuses[j], ops[j] == operation::erase ? status::erased : status::inserted)
          << "round " << round << ", operation " << j;
      if (ops[j] == operation::insert) {
        model.insert({sigs[j], locs[j]});
      } else {
        model.erase(model.find({sigs[j], locs[j]}));
      }
    }
    ASSERT_EQ(index.size(), model.size()) << "round " << round;
  }
  EXPECT_GT(pending_total, 0u) << "inserts were meant to find both buckets full at times";
  EXPECT_GT(homeless_total, 0u) << "walks with no exchange were meant to leave entries homeless";
  EXPECT_EQ(contents(index), model);
}

// The ref's own answers: reserved signatures, find and count of what its
// inserts stored, erase and replace of one entry among those sharing a
// signature, and `full` (nothing stored) once both buckets are full.
TEST(signature_index_ref, answers_as_the_batches_do) {
  seeded_random random;
  signature_index<cpu_backend> index(index_options{64, 0.0f, random.next()});
  index.make_room_for(40);
  const signature_index_ref table = index.ref();
  EXPECT_EQ(table.insert(0, 1), status::invalid_key);
  EXPECT_EQ(table.erase(0, 1), status::invalid_key);
  EXPECT_EQ(table.replace(0, 1, 2), status::invalid_key);
  signature_index_ref::location_type matches[signature_index_ref::max_matches];
  EXPECT_EQ(table.find(0, matches), 0U);

  const signature shared = 77;
  status_counts tally;
  for (location l = 1; l <= signature_index_ref::max_matches + 2; ++l)
    tally.count(table.insert(shared, l));
  EXPECT_EQ(tally.inserted, signature_index_ref::max_matches) << "two buckets of eight slots";
  EXPECT_EQ(tally.full, 2U);
  EXPECT_EQ(table.count(shared), signature_index_ref::max_matches);
  EXPECT_EQ(table.replace(shared, 3, 1000), status::updated);
  EXPECT_EQ(table.replace(shared, 3, 1001), status::not_found);
  EXPECT_EQ(table.erase(shared, 4), status::erased);
  EXPECT_EQ(table.erase(shared, 4), status::not_found);
  const std::uint32_t count = table.find(shared, matches);
  ASSERT_EQ(count, signature_index_ref::max_matches - 1);
  std::vector<location> found(matches, matches + count);
  std::sort(found.begin(), found.end());
  std::vector<location> expected;
  for (location l = 1; l <= signature_index_ref::max_matches; ++l)
    if (l != 3 && l != 4) expected.push_back(l);
  expected.push_back(1000);
  EXPECT_EQ(found, expected);
  index.adopt_batch({tally.inserted, 1, tally.full}, {}, nullptr, 0);
  EXPECT_EQ(index.size(), signature_index_ref::max_matches - 1);
  EXPECT_EQ(signature_index_ref::signature_of(signature_index_ref::pack(5, 9)), 5U);
  EXPECT_EQ(signature_index_ref::location_of(signature_index_ref::pack(5, 9)), 9U);
}

}  // namespace gpuhash::testing
