#include <vector>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/detail/counters.hpp"
#include "gpuhash/detail/signature_index/batch.hpp"
#include "gpuhash/hash.hpp"
#include "signature_index_tests.hpp"

namespace gpuhash::testing {
using cpu_indexes = ::testing::Types<signature_index<cpu_backend>>;
INSTANTIATE_TYPED_TEST_SUITE_P(signature_index, signature_index_test, cpu_indexes);

// A batch run by the caller's own code through table_view(), as the server's
// resident kernel runs one (server/index/gpu_resident.cu): make_room_for
// before it, phase 1 and the walks of its pending inserts with the
// library's functors on a view reading from L2, adopt_batch after it. Every
// other batch's walks make no exchange, so that near the load limit some
// entries are left homeless and adopt_batch stores them by growing. The
// statuses, the size after each batch and the contents at the end are
// checked against a multiset. (On the CPU both kinds of view read alike;
// the GPU machine runs the same protocol in the resident kernel's tests.)
TEST(signature_index_caller_batches, are_adopted_with_their_homeless_entries) {
  namespace si = detail::signature_index;
  using l2_view = si::basic_index_view<si::bucket_reads::from_l2>;
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
    const l2_view view = index.table_view().reading_from_l2();
    std::vector<status> statuses(n);
    std::vector<std::size_t> pending(n);
    std::vector<si::slot_type> held(n);
    std::uint64_t pending_count = 0;
    si::index_batch args{si::batch_kind::apply, n,       ops.data(), sigs.data(),
                         locs.data(),           nullptr, nullptr,    nullptr,
                         statuses.data()};
    args.pending = pending.data();
    args.pending_count = &pending_count;
    args.pending_capacity = n;
    const si::phase_one<si::batch_kind::apply, l2_view> phase_one{view, args};
    detail::status_tally first;
    for (std::size_t i = 0; i < n; ++i) first.count(phase_one(i));
    ASSERT_EQ(pending_count, first.full);
    const std::uint32_t exchanges = round % 2 == 0 ? 0 : signature_index<>::max_exchanges;
    const si::place_pending_entries<l2_view> walks{
        view, args, pending.data(), held.data(), murmur3_fmix64(round), exchanges};
    detail::status_tally walked;
    for (std::size_t t = 0; t < first.full; ++t) walked.count(walks(t));
    pending_total += first.full;
    homeless_total += walked.full;
    index.adopt_batch({first.inserted, first.erased, first.full}, {walked.inserted, 0, walked.full},
                      held.data(), first.full);

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

}  // namespace gpuhash::testing
