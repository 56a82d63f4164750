// The server's GPU index against its CPU index, batch for batch (GPU tests):
// random searches, inserts and erases in batches of every size the GPU index
// treats differently (the resident kernel, a launched search reading
// host memory in place, copies both ways), signatures shared by several
// entries (so the full rows are read), the index growing past its first
// size, and resident kernels ending between batches: after idle spells
// longer than their lifetime, and with lifetimes of a few microseconds, so
// that a kernel often ends just as a batch is posted; every other batch
// with work for the index's wait, as the server's batch threads give it.
// And the resident kernel alone, against a map of what the index holds.

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <memory_resource>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/hash.hpp"
#include "gpuhash/signature_index.hpp"
#include "index/gpu_resident.cuh"
#include "index/gpu_results.cuh"
#include "index/index_service.hpp"
#include "index_doubles.hpp"
#include "tests/support/random.hpp"

namespace gpuhash::server::index {
namespace {

using testing::seeded_random;

// As the server does: every kernel loaded at the start (before main, so
// before the first CUDA call).
const bool kernels_loaded_at_start = (load_kernels_at_start(), true);

/// The locations a result holds for search i, sorted.
std::vector<location_type> matches_of(const index_results& results, std::size_t i) {
  std::vector<location_type> found;
  for (std::size_t k = 0; k < results.count(i); ++k) found.push_back(results.match(i, k));
  std::sort(found.begin(), found.end());
  return found;
}

/// Work for an index's wait, as the engine's batch thread gives it (its
/// sends): each step spins for about a microsecond; a batch offers
/// `per_batch` steps. Counts the steps the index took.
class spinning_work final : public wait_work {
 public:
  explicit spinning_work(std::size_t per_batch) : per_batch_(per_batch) {}
  void next_batch() { left_ = per_batch_; }
  bool step() override {
    if (left_ == 0) return false;
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(1);
    while (std::chrono::steady_clock::now() < until) {
    }
    ++taken_;
    return --left_ != 0;
  }
  std::size_t taken() const noexcept { return taken_; }

 private:
  std::size_t per_batch_;
  std::size_t left_ = 0;
  std::size_t taken_ = 0;
};

class gpu_and_cpu {
 public:
  /// resident_lifetime_us: 0 for the default (100 ms).
  explicit gpu_and_cpu(std::uint64_t seed, std::uint64_t resident_lifetime_us = 0)
      : gpu_(make_gpu_index(1024, seed, resident_lifetime_us)),
        cpu_(test_doubles::make_late_statuses_index(make_cpu_index(1024, seed))),
        gpu_batch_(gpu_->batch_memory()) {}

  void add(operation op, signature_type signature, location_type location) {
    gpu_batch_.add(op, signature, location);
    cpu_batch_.add(op, signature, location);
  }

  /// Runs the batch on both and checks that they answer alike. The GPU
  /// index is given work for its wait (as the server's batch threads give
  /// it), every other batch.
  void apply_and_compare() {
    work_.next_batch();
    const index_results gpu = gpu_->apply(gpu_batch_, ++batches_ % 2 == 0 ? &work_ : nullptr);
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
  /// Steps of wait work the GPU index took, over all batches.
  std::size_t steps_taken() const noexcept { return work_.taken(); }

 private:
  spinning_work work_{8};
  std::size_t batches_ = 0;
  std::unique_ptr<index_service> gpu_;
  std::unique_ptr<index_service> cpu_;
  index_batch gpu_batch_;
  index_batch cpu_batch_;
};

/// The resident kernels' lifetime: the default, and 3 us (kernels end
/// between most batches, and at times just as one is posted).
class gpu_index_lifetimes : public ::testing::TestWithParam<std::uint64_t> {};
std::string lifetime_name(const ::testing::TestParamInfo<std::uint64_t>& param) {
  return param.param == 0 ? std::string("default_lifetime")
                          : "lifetime_" + std::to_string(param.param) + "us";
}
INSTANTIATE_TEST_SUITE_P(, gpu_index_lifetimes,
                         ::testing::Values(std::uint64_t{0}, std::uint64_t{3}), lifetime_name);

TEST_P(gpu_index_lifetimes, answers_as_the_cpu_index_in_batches_of_every_size) {
  if (!gpu_available()) GTEST_SKIP() << "no cuda device";
  seeded_random random;
  gpu_and_cpu both(random.next(), GetParam());
  // Signatures from a small pool, so that several entries share one and
  // the full rows are fetched (about 1.3 entries a signature at the end: 15
  // never share one, where two racing inserts of a 17th make either index
  // throw, signature_index.hpp).
  const signature_type pool = 16384;
  std::vector<std::pair<signature_type, location_type>> stored;
  location_type next_location = 1;
  // Sizes around each path's limits: none (a batch of inserts and erases
  // only), 1, small, the resident kernel's limit (2048) and past it, the
  // in-place limit (4096) and past it. The inserts and erases (up to 2099)
  // go to the resident kernel or are launched, by their own limit (2048).
  const std::size_t sizes[] = {0, 1, 17, 300, 2048, 2049, 4096, 4097, 9000};
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
  // (a batch of searches takes microseconds to answer: over the rounds,
  // some wait was long enough for a step)
  EXPECT_GT(both.steps_taken(), 0u) << "the GPU index never did the work given for its wait";
}

TEST_P(gpu_index_lifetimes, lone_searches_see_every_earlier_batch) {
  // One search per batch, as a lone client makes them: each batch's search
  // must see the inserts and erases of the batches before it.
  if (!gpu_available()) GTEST_SKIP() << "no cuda device";
  seeded_random random;
  gpu_and_cpu both(random.next(), GetParam());
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

TEST(gpu_index, renewing_the_kernel_between_batches_loses_nothing) {
  // The engine's batch thread renews the resident kernel between batches
  // (index_service::renew): the batches after it, and the statuses and
  // walks of the inserts still settling then, come out as on the CPU, and
  // each renewal starts a new lifetime.
  if (!gpu_available()) GTEST_SKIP() << "no cuda device";
  seeded_random random;
  gpu_and_cpu both(random.next());
  ASSERT_TRUE(both.gpu().renew_at().has_value());
  EXPECT_LT(*both.gpu().renew_at(), std::chrono::steady_clock::now()) << "due before any kernel";
  std::vector<signature_type> signatures;
  for (location_type location = 1; location <= 300; ++location) {
    const auto signature = 1 + static_cast<signature_type>(random.next() % 0xfffffffeu);
    signatures.push_back(signature);
    both.add(operation::search, signatures[random.below(signatures.size())], 0);
    both.add(operation::insert, signature, location);
    if (location % 4 == 0) both.add(operation::erase, signatures[location / 2 - 1], location / 2);
    ASSERT_NO_FATAL_FAILURE(both.apply_and_compare());
    if (location % 3 != 0) continue;
    const auto due = both.gpu().renew_at();
    ASSERT_TRUE(due.has_value());
    both.gpu().renew();
    const auto next = both.gpu().renew_at();
    ASSERT_TRUE(next.has_value());
    EXPECT_GT(*next, *due) << "a renewed kernel's lifetime starts again";
  }
  for (const signature_type signature : signatures) both.add(operation::search, signature, 0);
  ASSERT_NO_FATAL_FAILURE(both.apply_and_compare());
}

TEST(gpu_index, several_indexes_search_at_once) {
  // As the engine's shards do: each thread its own index and resident kernel.
  if (!gpu_available()) GTEST_SKIP() << "no cuda device";
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

/// A page-locked batch for the resident kernel, as gpu_index stages one.
struct resident_arrays {
  cuda::pinned_buffer<signature_type> searches =
      cuda_backend::allocate_host<signature_type>(resident_kernel::max_searches);
  cuda::pinned_buffer<std::uint32_t> results =
      cuda_backend::allocate_host<std::uint32_t>(1 + resident_kernel::max_searches * 3);
  cuda::pinned_buffer<location_type> rows =
      cuda_backend::allocate_host<location_type>(resident_kernel::max_searches * max_matches);
  cuda::pinned_buffer<unsigned char> mutations =
      cuda_backend::allocate_host<unsigned char>(mutation_bytes(resident_kernel::max_mutations));
  cuda::pinned_buffer<status> statuses =
      cuda_backend::allocate_host<status>(resident_kernel::max_mutations);
};

TEST(resident_kernel, answers_and_changes_the_index_while_kernels_come_and_go) {
  // The mailbox protocol alone: batches of 0 to 300 searches and 0 to 300
  // inserts and erases, with pauses around a kernel's lifetime (20 us), so
  // that kernels end before, during and just after posts. Every search is
  // checked against a map of the entries stored before its batch, every
  // status against what the map says, and in one batch of two the walks
  // may make no exchange, so that entries are left homeless near the load
  // limit and the index grows for them (adopt_batch).
  if (!gpu_available()) GTEST_SKIP() << "no cuda device";
  seeded_random random;
  signature_index<cuda_backend> index(index_options{1024, 0.0f, random.next()});
  std::unordered_multimap<signature_type, location_type> stored;
  std::vector<std::pair<signature_type, location_type>> entries;  // stored, for picking victims
  const signature_type pool = 1u << 20;  // few signatures are shared, none 16 times
  resident_kernel kernel(std::chrono::microseconds(20));
  resident_arrays arrays;
  arrays.results.data()[0] = 0;
  location_type next_location = 1;
  std::size_t walks = 0;
  std::size_t homeless = 0;
  const std::size_t batches = testing::scaled(3000);
  for (std::uint32_t b = 1; b <= batches; ++b) {
    const std::size_t n = random.below(301);
    for (std::size_t i = 0; i < n; ++i)
      arrays.searches.data()[i] = 1 + static_cast<signature_type>(random.below(pool));
    // Erases of stored entries (each once), then inserts of new ones.
    std::vector<signature_type> signatures;
    std::vector<location_type> locations;
    std::vector<operation> ops;
    const std::size_t erases = std::min<std::size_t>(random.below(100), entries.size());
    for (std::size_t i = 0; i < erases; ++i) {
      const std::size_t victim = random.below(entries.size());
      signatures.push_back(entries[victim].first);
      locations.push_back(entries[victim].second);
      ops.push_back(operation::erase);
      entries[victim] = entries.back();
      entries.pop_back();
    }
    const std::size_t inserts = random.below(201);
    for (std::size_t i = 0; i < inserts; ++i) {
      const auto signature = 1 + static_cast<signature_type>(random.below(pool));
      signatures.push_back(signature);
      locations.push_back(next_location);
      ops.push_back(operation::insert);
      entries.emplace_back(signature, next_location++);
    }
    const std::size_t m = signatures.size();
    unsigned char* staged = arrays.mutations.data();
    std::memcpy(staged, signatures.data(), m * 4);
    std::memcpy(staged + m * 4, locations.data(), m * 4);
    std::memcpy(staged + m * 8, ops.data(), m);

    index.make_room_for(inserts);
    resident_batch batch;
    batch.searches.count = static_cast<std::uint32_t>(n);
    batch.searches.batch = b;
    batch.searches.signatures = arrays.searches.data();
    batch.searches.results = arrays.results.data();
    batch.searches.rows = arrays.rows.data();
    batch.searches.view = index.ref();
    batch.mutations.count = static_cast<std::uint32_t>(m);
    batch.mutations.max_exchanges = b % 2 == 0 ? 0 : signature_index<cuda_backend>::max_exchanges;
    batch.mutations.random = murmur3_fmix64(b);
    batch.mutations.arguments = staged;
    batch.mutations.statuses = arrays.statuses.data();
    kernel.post(batch);
    kernel.wait();

    // The searches saw the entries stored before this batch.
    bool more_than_two = false;
    for (std::size_t i = 0; i < n; ++i) {
      const auto [first, last] = stored.equal_range(arrays.searches.data()[i]);
      std::vector<location_type> expected;
      for (auto it = first; it != last; ++it) expected.push_back(it->second);
      std::sort(expected.begin(), expected.end());
      const std::uint32_t count = arrays.results.data()[1 + i];
      ASSERT_EQ(count, expected.size()) << "batch " << b << ", search " << i;
      std::vector<location_type> found(arrays.rows.data() + i * max_matches,
                                       arrays.rows.data() + i * max_matches + count);
      std::sort(found.begin(), found.end());
      ASSERT_EQ(found, expected) << "batch " << b << ", search " << i;
      for (std::uint32_t k = 0; k < 2; ++k)
        ASSERT_EQ(arrays.results.data()[1 + n + 2 * i + k],
                  k < count ? arrays.rows.data()[i * max_matches + k] : 0u);
      more_than_two = more_than_two || count > 2;
    }
    if (more_than_two) {
      ASSERT_EQ(arrays.results.data()[0], b) << "batch " << b;
    }

    const resident_outcome outcome = kernel.wait_finished();
    EXPECT_EQ(outcome.phase_one.erased, erases) << "batch " << b;
    EXPECT_EQ(outcome.phase_one.inserted + outcome.walks.inserted + outcome.walks.full, inserts)
        << "batch " << b << ": every insert placed, or left homeless";
    walks += outcome.phase_one.full;
    homeless += outcome.walks.full;
    index.adopt_batch(outcome.phase_one, outcome.walks, outcome.held, outcome.phase_one.full);
    for (std::size_t j = 0; j < m; ++j) {
      const status expected = ops[j] == operation::erase ? status::erased : status::inserted;
      ASSERT_EQ(arrays.statuses.data()[j], expected) << "batch " << b << ", mutation " << j;
    }
    for (std::size_t j = 0; j < m; ++j) {
      if (ops[j] == operation::insert) {
        stored.emplace(signatures[j], locations[j]);
        continue;
      }
      const auto [first, last] = stored.equal_range(signatures[j]);
      for (auto it = first; it != last; ++it)
        if (it->second == locations[j]) {
          stored.erase(it);
          break;
        }
    }
    ASSERT_EQ(index.size(), stored.size()) << "batch " << b;
    const auto pause = random.below(40);
    if (pause != 0) std::this_thread::sleep_for(std::chrono::microseconds(pause));
  }
  EXPECT_GT(kernel.launches(), 1u) << "kernels were meant to end and be launched again";
  EXPECT_GT(walks, 0u) << "inserts were meant to find both buckets full at times";
  EXPECT_GT(homeless, 0u) << "walks with no exchange were meant to leave entries homeless";
  std::vector<std::pair<signature_type, location_type>> in_index = index.entries();
  std::vector<std::pair<signature_type, location_type>> expected(stored.begin(), stored.end());
  std::sort(in_index.begin(), in_index.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(in_index, expected);
}

TEST(gpu_index, batch_memory_keeps_freed_page_locked_blocks_for_reuse) {
  // Freeing page-locked memory waits for the resident kernels of every
  // shard: a block freed is kept and handed out again, by size class.
  if (!gpu_available()) GTEST_SKIP() << "no cuda device";
  const auto index = make_gpu_index(1024, 1);
  std::pmr::memory_resource& memory = *index->batch_memory();
  void* first = memory.allocate(5000);
  cudaPointerAttributes attributes{};
  ASSERT_EQ(cudaPointerGetAttributes(&attributes, first), cudaSuccess);
  EXPECT_EQ(attributes.type, cudaMemoryTypeHost) << "batch memory is page-locked";
  memory.deallocate(first, 5000);
  void* again = memory.allocate(6000);  // the same size class (8 KB with its header)
  EXPECT_EQ(again, first);
  void* larger = memory.allocate(9000);  // the next class: a block of its own
  EXPECT_NE(larger, again);
  memory.deallocate(larger, 9000);
  memory.deallocate(again, 6000);
}

}  // namespace
}  // namespace gpuhash::server::index
