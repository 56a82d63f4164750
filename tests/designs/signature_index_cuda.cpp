// The signature index on the GPU, and the check that the CPU and CUDA
// backends agree on the same batches.

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/cuda/backend.hpp"
#include "signature_index_tests.hpp"

namespace gpuhash::testing {
using cuda_indexes = ::testing::Types<signature_index<cuda_backend>>;
INSTANTIATE_TYPED_TEST_SUITE_P(signature_index, signature_index_test, cuda_indexes);

// Same seed, same batches: the same statuses, the same locations per search
// and the same contents (slot positions may differ: walks are concurrent).
TEST(signature_index_backends, agree_on_the_same_batches) {
  if (!cuda_backend::available())
    GTEST_SKIP() << "no cuda device: this test needs an NVIDIA GPU (scripts/gpu-check runs it)";
  seeded_random random;
  const index_options options{128, 0.0f, random.next()};
  signature_index<cpu_backend> on_cpu(options);
  signature_index<cuda_backend> on_gpu(options);
  location next_location = 1;
  std::vector<std::pair<signature, location>> stored;
  for (int round = 0; round < 6; ++round) {
    const std::size_t n = scaled(20000);
    std::vector<operation> ops(n);
    std::vector<signature> sigs(n);
    std::vector<location> locs(n), new_locs(n);
    std::set<std::pair<signature, location>> touched;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t pick = random.below(4);
      if (pick < 2 || stored.empty()) {
        ops[i] = operation::insert;
        sigs[i] = small_signature(random, scaled(20000));
        locs[i] = next_location++;
      } else if (pick == 2) {  // a stored entry, touched at most once per batch
        const auto entry = stored[random.below(stored.size())];
        const bool first = touched.insert(entry).second;
        ops[i] = first ? (random.below(2) == 0 ? operation::erase : operation::update)
                       : operation::search;
        sigs[i] = entry.first;
        locs[i] = entry.second;
        new_locs[i] = next_location++;
      } else {
        ops[i] = operation::search;
        sigs[i] = small_signature(random, scaled(40000));
      }
    }
    // Searches of signatures the batch changes may see either state: the
    // comparison below skips them.
    std::set<signature> changed;
    for (std::size_t i = 0; i < n; ++i)
      if (ops[i] != operation::search) changed.insert(sigs[i]);
    const auto cpu_result = on_cpu.apply(ops, sigs, locs, new_locs);
    const auto gpu_result = on_gpu.apply(ops, sigs, locs, new_locs);
    for (std::size_t i = 0; i < n; ++i) {
      if (ops[i] == operation::search && changed.count(sigs[i]) != 0) continue;
      ASSERT_EQ(cpu_result.statuses[i], gpu_result.statuses[i]) << i;
      if (ops[i] == operation::search) {
        ASSERT_EQ(sorted_matches(cpu_result.searches, i), sorted_matches(gpu_result.searches, i));
      }
    }
    ASSERT_EQ(on_cpu.size(), on_gpu.size());
    const auto cpu_contents = contents(on_cpu);
    ASSERT_EQ(cpu_contents, contents(on_gpu)) << "round " << round;
    stored.assign(cpu_contents.begin(), cpu_contents.end());
  }
}

}  // namespace gpuhash::testing
