// The server's GPU index against its CPU index, batch for batch (GPU tests):
// random searches, inserts and erases in batches of every size the GPU index
// treats differently (the resident search kernel, a launched search reading
// host memory in place, copies both ways), signatures shared by up to 16
// entries (so the full rows are fetched), the index growing past its first
// size, and idle spells longer than a resident kernel's lifetime (so that
// kernels end and are launched again).

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "index/index_service.hpp"
#include "tests/support/random.hpp"

namespace gpuhash::server::index {
namespace {

using testing::seeded_random;

/// The locations a result holds for search i, sorted.
std::vector<location_type> matches_of(const index_results& results, std::size_t i) {
  std::vector<location_type> found;
  for (std::size_t k = 0; k < results.count(i); ++k) found.push_back(results.match(i, k));
  std::sort(found.begin(), found.end());
  return found;
}

class gpu_and_cpu {
 public:
  explicit gpu_and_cpu(std::uint64_t seed)
      : gpu_(make_gpu_index(1024, seed)),
        cpu_(make_cpu_index(1024, seed, /*defer_mutations=*/true)),
        gpu_batch_(gpu_->batch_memory()) {}

  void add(operation op, signature_type signature, location_type location) {
    gpu_batch_.add(op, signature, location);
    cpu_batch_.add(op, signature, location);
  }

  /// Runs the batch on both and checks that they answer alike.
  void apply_and_compare() {
    const index_results gpu = gpu_->apply(gpu_batch_);
    const index_results cpu = cpu_->apply(cpu_batch_);
    const std::size_t searches = cpu_batch_.searches();
    for (std::size_t i = 0; i < searches; ++i) {
      ASSERT_EQ(matches_of(gpu, i), matches_of(cpu, i))
          << "search " << i << " of " << searches << ", signature " << cpu_batch_.signatures[i];
    }
    ASSERT_EQ(gpu.settled, cpu.settled);
    for (std::size_t j = 0; j < cpu.settled; ++j)
      ASSERT_EQ(gpu.status_of(j), cpu.status_of(j)) << "mutation " << j;
    gpu_batch_.clear();
    cpu_batch_.clear();
  }

  index_service& gpu() { return *gpu_; }
  index_service& cpu() { return *cpu_; }

 private:
  std::unique_ptr<index_service> gpu_;
  std::unique_ptr<index_service> cpu_;
  index_batch gpu_batch_;
  index_batch cpu_batch_;
};

TEST(gpu_index, answers_as_the_cpu_index_in_batches_of_every_size) {
  ASSERT_TRUE(gpu_available()) << "these tests need a GPU";
  seeded_random random;
  gpu_and_cpu both(random.next());
  // Signatures from a small pool, so that several entries share one and
  // the full rows are fetched (about 1.3 entries a signature at the end: 15
  // never share one, where two racing inserts of a 17th make either index
  // throw, signature_index.hpp).
  const signature_type pool = 16384;
  std::vector<std::pair<signature_type, location_type>> stored;
  location_type next_location = 1;
  // Sizes around each path's limits: 1, small, the resident kernel's limit
  // (2048) and past it, the in-place limit (4096) and past it.
  const std::size_t sizes[] = {1, 17, 300, 2048, 2049, 4096, 4097, 9000};
  const std::size_t rounds = testing::scaled(48);  // GPUHASH_TEST_SCALE shortens sanitizer runs
  for (std::size_t round = 0; round < rounds; ++round) {
    const std::size_t searches = sizes[random.below(std::size(sizes))];
    for (std::size_t i = 0; i < searches; ++i)
      both.add(operation::search, 1 + static_cast<signature_type>(random.below(pool + 64)), 0);
    // Erases of entries from earlier batches only: an insert and an erase of
    // one entry in one batch may run in either order.
    const std::size_t erases = std::min<std::size_t>(random.below(600), stored.size());
    for (std::size_t i = 0; i < erases; ++i) {
      const std::size_t victim = random.below(stored.size());
      both.add(operation::erase, stored[victim].first, stored[victim].second);
      stored[victim] = stored.back();
      stored.pop_back();
    }
    const std::size_t inserts = random.below(1500);
    for (std::size_t i = 0; i < inserts; ++i) {
      const auto signature = 1 + static_cast<signature_type>(random.below(pool));
      both.add(operation::insert, signature, next_location);
      stored.emplace_back(signature, next_location++);
    }
    ASSERT_NO_FATAL_FAILURE(both.apply_and_compare()) << "round " << round;
    // Now and then an idle spell longer than a resident kernel lives (5 ms).
    if (random.below(6) == 0) std::this_thread::sleep_for(std::chrono::milliseconds(7));
  }
  // One more search: it settles the last batch's inserts and erases (their
  // statuses, and the GPU index's count of entries).
  both.add(operation::search, 1, 0);
  ASSERT_NO_FATAL_FAILURE(both.apply_and_compare());
  EXPECT_EQ(both.gpu().entries(), both.cpu().entries());
  EXPECT_GT(both.gpu().rebuilds(), 0u) << "the index was meant to grow past its first size";
}

TEST(gpu_index, lone_searches_see_every_earlier_batch) {
  // One search per batch, as a lone client makes them: each batch's search
  // must see the inserts and erases of the batches before it.
  ASSERT_TRUE(gpu_available()) << "these tests need a GPU";
  seeded_random random;
  gpu_and_cpu both(random.next());
  std::vector<signature_type> signatures;
  const auto batches = static_cast<location_type>(testing::scaled(400));
  for (location_type location = 1; location <= batches; ++location) {
    const auto signature = 1 + static_cast<signature_type>(random.next() % 0xfffffffeu);
    both.add(operation::search, signature, 0);
    both.add(operation::insert, signature, location);
    ASSERT_NO_FATAL_FAILURE(both.apply_and_compare());
    signatures.push_back(signature);
    both.add(operation::search, signatures[random.below(signatures.size())], 0);
    if (location % 3 == 0) both.add(operation::erase, signature, location);
    ASSERT_NO_FATAL_FAILURE(both.apply_and_compare());
    if (location % 97 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(7));
  }
}

TEST(gpu_index, several_indexes_search_at_once) {
  // As the engine's shards do: each thread its own index and resident kernel.
  ASSERT_TRUE(gpu_available()) << "these tests need a GPU";
  seeded_random random;
  std::vector<std::uint64_t> seeds;
  for (int t = 0; t < 4; ++t) seeds.push_back(random.next());
  std::vector<std::thread> threads;
  std::vector<int> failures(seeds.size(), 0);
  for (std::size_t t = 0; t < seeds.size(); ++t) {
    threads.emplace_back([&, t] {
      gpu_and_cpu both(seeds[t]);
      std::uint64_t state = seeds[t];
      location_type location = 1;
      for (std::size_t round = 0; round < testing::scaled(300); ++round) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        const std::size_t searches = 1 + (state >> 40) % 64;
        for (std::size_t i = 0; i < searches; ++i)
          both.add(operation::search, 1 + static_cast<signature_type>((state >> (i % 24)) % 512),
                   0);
        for (int i = 0; i < 8; ++i)
          both.add(operation::insert, 1 + static_cast<signature_type>((state >> (3 * i)) % 512),
                   location++);
        both.apply_and_compare();
        if (::testing::Test::HasFatalFailure()) {
          failures[t] = 1;
          return;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (std::size_t t = 0; t < seeds.size(); ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
}

}  // namespace
}  // namespace gpuhash::server::index
