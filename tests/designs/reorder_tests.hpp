#pragma once
// Tests of reorder_by_bucket (detail/reorder.hpp), the thesis' Alg. 1:
// the new order is a permutation of the batch, and keys of one row come
// together. Instantiated per backend, in a file the backend's compiler builds.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "gpuhash/detail/reorder.hpp"
#include "support/random.hpp"

namespace gpuhash::testing {

/// A key's "bucket" for the test: the key itself, modulo the bucket count.
struct modulo_bucket {
  std::uint64_t buckets;
  GPUHASH_HD std::uint64_t operator()(std::uint32_t key) const { return key % buckets; }
};

template <class Backend>
class reorder : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Backend::available())
      GTEST_SKIP() << "no " << Backend::name
                   << " device: these tests need an NVIDIA GPU (scripts/gpu-check runs them)";
  }

  static std::vector<std::uint64_t> order_of(const std::vector<std::uint32_t>& keys,
                                             std::uint64_t buckets, std::uint64_t combined) {
    auto device_keys = Backend::template allocate<std::uint32_t>(keys.size());
    Backend::copy_from_host(device_keys.data(), keys.data(), keys.size());
    auto order = Backend::template allocate<std::uint64_t>(keys.size());
    detail::reorder_by_bucket<Backend>(device_keys.data(), keys.size(), modulo_bucket{buckets},
                                       buckets, combined, order.data(), {});
    std::vector<std::uint64_t> result(keys.size());
    Backend::copy_to_host(result.data(), order.data(), keys.size());
    return result;
  }
};

TYPED_TEST_SUITE_P(reorder);

TYPED_TEST_P(reorder, the_new_order_is_a_permutation) {
  seeded_random random;
  for (const std::uint64_t combined : {1, 4, 256, 1 << 20}) {
    SCOPED_TRACE("combined buckets " + std::to_string(combined));
    std::vector<std::uint32_t> keys(scaled(50000));
    for (auto& key : keys) key = static_cast<std::uint32_t>(random.next());
    auto order = TestFixture::order_of(keys, 4096, combined);
    std::sort(order.begin(), order.end());
    std::vector<std::uint64_t> identity(keys.size());
    std::iota(identity.begin(), identity.end(), std::uint64_t{0});
    ASSERT_EQ(order, identity);
  }
}

TYPED_TEST_P(reorder, rows_with_room_keep_their_keys_together) {
  // 64 rows of one bucket each; the first 63 get 10 keys, the last none, so
  // every row has room (width = ceil(630 / 64) = 10) and no key overflows:
  // the new order is grouped by bucket exactly.
  std::vector<std::uint32_t> keys;
  for (std::uint32_t round = 0; round < 10; ++round)
    for (std::uint32_t bucket = 0; bucket < 63; ++bucket) keys.push_back(bucket + 64 * round);
  const auto order = TestFixture::order_of(keys, 64, 1);
  ASSERT_EQ(order.size(), keys.size());
  for (std::size_t j = 0; j < order.size(); ++j)
    EXPECT_EQ(keys[order[j]] % 64, j / 10) << "position " << j;
}

REGISTER_TYPED_TEST_SUITE_P(reorder, the_new_order_is_a_permutation,
                            rows_with_room_keep_their_keys_together);

}  // namespace gpuhash::testing
