// The refs' conformance suite on the CUDA backend (CTest label `gpu`; skipped
// with a message where no GPU is present): every design's ref called from a
// kernel, one call per thread. And the bucketed cuckoo ref's cooperative
// find, one tile per key, against its one-thread find.

#include <cooperative_groups.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "designs.hpp"
#include "gpuhash/bucketed_cuckoo_map.hpp"
#include "gpuhash/cuda/backend.hpp"
#include "ref_conformance.hpp"

namespace gpuhash::testing {

INSTANTIATE_TYPED_TEST_SUITE_P(refs, ref_conformance, conformance_tables<cuda_backend>);

/// Key i searched by tile i of Ref::cooperative_find_tile threads (thread
/// t of the launch is lane t % tile of tile t / tile: tiles are whole, since
/// the launch covers a multiple of the tile size).
template <class Ref>
struct tile_finds {
  Ref ref;
  const typename Ref::key_type* keys;
  typename Ref::mapped_type* values;
  status* statuses;
  bool* flags;

  __device__ void operator()(std::uint64_t t) const {
    namespace cg = cooperative_groups;
    constexpr unsigned size = Ref::cooperative_find_tile;
    const auto tile = cg::tiled_partition<size>(cg::this_thread_block());
    const std::uint64_t i = t / size;
    typename Ref::mapped_type value{};
    const status s = ref.find(tile, keys[i], &value);
    const bool present = ref.contains(tile, keys[i]);
    if (tile.thread_rank() != 0) return;
    statuses[i] = s;
    flags[i] = present;
    if (s == status::found) values[i] = value;
  }
};

template <class Table>
class cooperative_find : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_backend::available())
      GTEST_SKIP()
          << "no cuda device: these tests need an NVIDIA GPU (scripts/gpu-check runs them)";
  }
};
using cuckoo_tables =
    ::testing::Types<bucketed_cuckoo_map<std::uint32_t, std::uint32_t, cuda_backend>,
                     bucketed_cuckoo_map<std::uint64_t, std::uint64_t, cuda_backend>>;
TYPED_TEST_SUITE(cooperative_find, cuckoo_tables);

// At load 0.9 (so that misses read several buckets), present, absent and
// reserved keys: the tile's answers are the one-thread find's.
TYPED_TEST(cooperative_find, answers_as_one_thread_does) {
  using K = typename TypeParam::key_type;
  using V = typename TypeParam::mapped_type;
  using ref_type = typename TypeParam::ref_type;
  static_assert(ref_type::cooperative_find_tile > 1);
  seeded_random random;
  const std::size_t n = scaled(200000);
  TypeParam table(table_options{static_cast<std::size_t>(n / 0.9), 1.0f, random.next()});
  auto keys = distinct_keys<TypeParam>(random, 2 * n);
  const auto values = random_values<V>(random, 2 * n);
  table.insert(std::span(keys).first(n), std::span(values).first(n));
  keys.push_back(TypeParam::reserved_keys()[0]);
  const std::size_t m = keys.size();

  auto d_keys = cuda_backend::allocate<K>(m);
  cuda_backend::copy_from_host(d_keys.data(), keys.data(), m);
  auto d_values = cuda_backend::allocate<V>(m);
  auto d_statuses = cuda_backend::allocate<status>(m);
  auto d_flags = cuda_backend::allocate<bool>(m);
  support::launcher<cuda_backend>::for_each(
      m * ref_type::cooperative_find_tile,
      tile_finds<ref_type>{table.ref(), d_keys.data(), d_values.data(), d_statuses.data(),
                           d_flags.data()});
  std::vector<status> statuses(m);
  std::vector<V> found(m);
  const auto flags = std::make_unique<bool[]>(m);
  cuda_backend::copy_to_host(statuses.data(), d_statuses.data(), m);
  cuda_backend::copy_to_host(found.data(), d_values.data(), m);
  cuda_backend::copy_to_host(flags.get(), d_flags.data(), m);

  const auto expected = table.find(keys);
  EXPECT_EQ(statuses, expected.statuses);
  for (std::size_t i = 0; i < m; ++i) {
    ASSERT_EQ(flags[i], expected.statuses[i] == status::found) << "key " << keys[i];
    if (i < n) {
      ASSERT_EQ(found[i], values[i]) << "key " << keys[i];
    }
  }
}

}  // namespace gpuhash::testing
