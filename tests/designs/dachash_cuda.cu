#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "dachash_tests.hpp"
#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/dachash_map_impl.hpp"

// 16-byte nodes (one 32/32 pair each) are not compiled into the library;
// these tests compile them for the longest chains and the most racing node
// attachments.
GPUHASH_INSTANTIATE_DACHASH_MAP(std::uint32_t, std::uint32_t, gpuhash::cuda_backend,
                                gpuhash::dachash_preset<16>);
GPUHASH_INSTANTIATE_DACHASH_MAP(std::uint32_t, std::uint32_t, gpuhash::cuda_backend,
                                gpuhash::dachash_preset<16, 1>);

namespace gpuhash::testing {
template <class Table>
using one_to_one = with_mapping<Table, dachash_mapping::one_to_one>;
template <class Table>
using many_to_one = with_mapping<Table, dachash_mapping::many_to_one>;
template <unsigned TileSize>
using small_nodes_map =
    dachash_map_with<std::uint32_t, std::uint32_t, cuda_backend, dachash_preset<16, TileSize>>;

// Each mapping on its own (the default, dynamic, picks one per batch),
// 16-byte nodes with tiles of 1 and 2 lanes (the most racing attachments),
// and the paper and slab presets.
using cuda_dachash_tables =
    ::testing::Types<one_to_one<dachash_map<std::uint32_t, std::uint32_t, cuda_backend>>,
                     one_to_one<dachash_map<std::uint64_t, std::uint64_t, cuda_backend>>,
                     many_to_one<dachash_map<std::uint32_t, std::uint32_t, cuda_backend>>,
                     many_to_one<dachash_map<std::uint64_t, std::uint64_t, cuda_backend>>,
                     one_to_one<small_nodes_map<0>>, many_to_one<small_nodes_map<0>>,
                     many_to_one<small_nodes_map<1>>,
                     dachash_paper_map<std::uint32_t, std::uint32_t, cuda_backend>,
                     dachash_slab_map<std::uint32_t, std::uint32_t, cuda_backend>,
                     dachash_slab_map<std::uint64_t, std::uint64_t, cuda_backend>>;
INSTANTIATE_TYPED_TEST_SUITE_P(dachash, dachash, cuda_dachash_tables);

// The many-to-one mapping on the GPU gives what the CPU backend (one-to-one)
// gives, batch by batch: distinct keys per batch, so outcomes are determined.
template <class Instance>
class dachash_mappings_agree : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_backend::available())
      GTEST_SKIP()
          << "no cuda device: these tests need an NVIDIA GPU (scripts/gpu-check runs them)";
  }
};
using dachash_widths = ::testing::Types<std::uint32_t, std::uint64_t>;
TYPED_TEST_SUITE(dachash_mappings_agree, dachash_widths);

TYPED_TEST(dachash_mappings_agree, many_to_one_on_the_gpu_matches_the_cpu) {
  using K = TypeParam;
  seeded_random random;
  const table_options options{256, 0.0f, random.next()};
  dachash_map<K, K, cpu_backend> on_cpu(options);
  many_to_one<dachash_map<K, K, cuda_backend>> on_gpu(options);
  expect_same_outcomes(on_cpu, on_gpu, random, 30);
}
}  // namespace gpuhash::testing

namespace gpuhash::testing {

// Builds at the benchmark's size (2^22 keys, expected lengths 0.7 to 1) with
// the reorder on: the pool's pops contend hardest there, and a pop that got
// a wrong count from nvcc's own aggregation of its atomic would answer
// `full` while the pool holds hundreds of thousands of free nodes
// (detail/atomic.hpp, fetch_add_coalesced). Here every key must be inserted
// the first time, with its value, and the pool must have handed out only
// what the chains need.
// Odd rounds insert keys grouped by bucket on the host with the reorder off
// (the same contention without the reorder's kernels).
TEST(dachash_reordered_builds, every_key_is_inserted_at_benchmark_size) {
  if (!cuda_backend::available()) GTEST_SKIP() << "no cuda device";
  using table_type = dachash_map<std::uint32_t, std::uint32_t, cuda_backend>;
  seeded_random random;
  const std::size_t n = scaled(std::size_t{1} << 22);
  for (const double length : {0.7, 0.8, 1.0}) {
    const auto buckets = static_cast<std::size_t>(static_cast<double>(n) / (2 * length * 7));
    const std::uint64_t table_seed = random.next();
    table_type table(table_options{buckets * 7, 0.0f, table_seed});
    table.reserve(n);
    const detail::dachash::bucket_hash<std::uint32_t> bucket_of{
        seeded_hash<std::uint32_t>{table_seed}, table.engine().buckets()};
    for (int round = 0; round < 8; ++round) {
      auto settings = table.engine().settings();
      settings.combined_buckets = round % 2 == 0 ? 256 : 0;
      table.engine().configure(settings);
      SCOPED_TRACE("length " + std::to_string(length) + ", round " + std::to_string(round) +
                   ", combined buckets " + std::to_string(settings.combined_buckets));
      table.clear();
      auto keys = distinct_keys<table_type>(random, n);
      if (round % 2 == 1)
        std::stable_sort(keys.begin(), keys.end(),
                         [&](auto a, auto b) { return bucket_of(a) / 256 < bucket_of(b) / 256; });
      const auto values = random_values<std::uint32_t>(random, n);
      // The asynchronous form, as the benchmark: the synchronous one would
      // retry keys that come back `full`.
      auto device_keys = cuda_backend::allocate<std::uint32_t>(n);
      auto device_values = cuda_backend::allocate<std::uint32_t>(n);
      auto device_statuses = cuda_backend::allocate<status>(n);
      cuda_backend::copy_from_host(device_keys.data(), keys.data(), n);
      cuda_backend::copy_from_host(device_values.data(), values.data(), n);
      table.insert_async(device_keys.data(), device_values.data(), n, device_statuses.data());
      std::vector<status> statuses(n);
      cuda_backend::copy_to_host(statuses.data(), device_statuses.data(), n);
      ASSERT_EQ(std::count(statuses.begin(), statuses.end(), status::inserted),
                static_cast<std::ptrdiff_t>(n));
      ASSERT_EQ(table.size(), n);
      EXPECT_EQ(table.engine().empty_entries_popped({}), 0U)
          << "pops that found no node below the top of the stack";
      std::vector<std::uint32_t> per_bucket(table.engine().buckets(), 0);
      for (const auto key : keys) ++per_bucket[bucket_of(key)];
      std::size_t needed = 0;
      for (const auto count : per_bucket) needed += count <= 7 ? 0 : (count - 1) / 7;
      EXPECT_EQ(table.engine().pool_nodes() - table.engine().free_nodes({}), needed);
      const auto found = table.find(keys);
      std::size_t missing = 0;
      for (std::size_t i = 0; i < n; ++i)
        missing += found.statuses[i] != status::found || found.values[i] != values[i];
      EXPECT_EQ(missing, 0U) << "keys not found with their values after the build";
    }
  }
}

/// Distinct keys made on the device: a bijection of 32-bit counters
/// (murmur3's finalizer), so a build needs no host work.
struct mixed_keys {
  std::uint32_t* keys;
  std::uint32_t base;
  GPUHASH_HD void operator()(std::uint64_t i) const {
    std::uint32_t h = base + static_cast<std::uint32_t>(i);
    h ^= h >> 16;
    h *= 0x85ebca6bU;
    h ^= h >> 13;
    h *= 0xc2b2ae35U;
    h ^= h >> 16;
    keys[i] = h;
  }
};

// Many reordered builds, fast (keys made on the device, statuses counted on
// the host): before the fix about one in a hundred answered `full` with a
// pool half free, so 200 builds found it with a probability near 0.87.
TEST(dachash_reordered_builds, no_build_answers_full_with_room_in_the_pool) {
  if (!cuda_backend::available()) GTEST_SKIP() << "no cuda device";
  using table_type = dachash_map<std::uint32_t, std::uint32_t, cuda_backend>;
  seeded_random random;
  const std::size_t n = scaled(std::size_t{1} << 22);
  auto keys = cuda_backend::allocate<std::uint32_t>(n);
  auto statuses = cuda_backend::allocate<status>(n);
  std::vector<status> host(n);
  const int builds = n == (std::size_t{1} << 22) ? 200 : 4;  // few in sanitizer runs
  for (int build = 0; build < builds; ++build) {
    const double length = 0.7 + 0.1 * (build % 4);
    const auto buckets = static_cast<std::size_t>(static_cast<double>(n) / (2 * length * 7));
    table_type table(table_options{buckets * 7, 0.0f, random.next()});
    table.reserve(n);
    auto settings = table.engine().settings();
    settings.combined_buckets = 256;
    table.engine().configure(settings);
    detail::exec<cuda_backend>::for_each(
        n, mixed_keys{keys.data(), static_cast<std::uint32_t>(random.next())}, {});
    // Values equal to the keys: only the statuses are checked here.
    table.insert_async(keys.data(), keys.data(), n, statuses.data());
    cuda_backend::copy_to_host(host.data(), statuses.data(), n);
    const auto full = std::count(host.begin(), host.end(), status::full);
    const auto reserved = std::count(host.begin(), host.end(), status::invalid_key);
    ASSERT_EQ(full, 0) << "build " << build << " (expected length " << length << ") with "
                       << table.engine().free_nodes({}) << " of " << table.engine().pool_nodes()
                       << " pool nodes free";
    ASSERT_EQ(std::count(host.begin(), host.end(), status::inserted) + reserved,
              static_cast<std::ptrdiff_t>(n));
  }
}

}  // namespace gpuhash::testing
