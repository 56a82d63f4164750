#pragma once
// Tests of the reorders of gpuhash/reorder.hpp, DACHash's Alg. 1 (rows) and
// Cuckoo Node Hashing's Alg. 3 (warp_cooperative): the new order is a
// permutation of the batch, and keys of one row come together. Instantiated
// per backend, in a file the backend's compiler builds.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "gpuhash/errors.hpp"
#include "gpuhash/reorder.hpp"
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

  /// The new order; `paper_width`: rows exactly ceil(n / rows) wide, as the
  /// paper has them (a row width Alg. 3 takes, Alg. 1 refuses).
  static std::vector<std::uint64_t> order_of(const std::vector<std::uint32_t>& keys,
                                             std::uint64_t buckets, std::uint64_t combined,
                                             reorder_scheme scheme, bool paper_width = false) {
    auto device_keys = Backend::template allocate<std::uint32_t>(keys.size());
    Backend::copy_from_host(device_keys.data(), keys.data(), keys.size());
    auto order = Backend::template allocate<std::uint64_t>(keys.size());
    reorder_options options{scheme, buckets, combined};
    if (paper_width) {
      const std::uint64_t rows = (buckets + combined - 1) / combined;
      options.row_width = (keys.size() + rows - 1) / rows;
    }
    reorder_by_bucket<Backend>(device_keys.data(), keys.size(), modulo_bucket{buckets}, options,
                               order.data());
    std::vector<std::uint64_t> result(keys.size());
    Backend::copy_to_host(result.data(), order.data(), keys.size());
    return result;
  }
};

TYPED_TEST_SUITE_P(reorder);

TYPED_TEST_P(reorder, the_new_order_is_a_permutation) {
  seeded_random random;
  // Alg. 1, Alg. 3 with slack, and Alg. 3 with the paper's rows of exactly
  // ceil(n / rows): with a gap to drop (n = 50,000 over 4096 rows), exactly
  // full (n = 4096 * 12), and one row (2^20 combined) that every key
  // overflows into.
  struct variant {
    reorder_scheme scheme;
    bool paper_width;
    const char* name;
  };
  for (const variant v :
       {variant{reorder_scheme::rows, false, "Alg. 1"},
        variant{reorder_scheme::warp_cooperative, false, "Alg. 3"},
        variant{reorder_scheme::warp_cooperative, true, "Alg. 3, the paper's width"}}) {
    for (const std::size_t n : {scaled(50000), std::size_t{4096 * 12}}) {
      for (const std::uint64_t combined : {1, 4, 256, 1 << 20}) {
        SCOPED_TRACE(std::string(v.name) + ", " + std::to_string(n) + " keys, combined buckets " +
                     std::to_string(combined));
        std::vector<std::uint32_t> keys(n);
        for (auto& key : keys) key = static_cast<std::uint32_t>(random.next());
        auto order = TestFixture::order_of(keys, 4096, combined, v.scheme, v.paper_width);
        std::sort(order.begin(), order.end());
        std::vector<std::uint64_t> identity(keys.size());
        std::iota(identity.begin(), identity.end(), std::uint64_t{0});
        ASSERT_EQ(order, identity);
      }
    }
  }
}

TYPED_TEST_P(reorder, rows_with_room_keep_their_keys_together) {
  // 64 rows of one bucket each; the first 63 get 10 keys, the last none, so
  // every row has room (the paper's width is ceil(630 / 64) = 10; with
  // slack, rows are wider) and no key overflows: the new order is grouped
  // by bucket exactly.
  std::vector<std::uint32_t> keys;
  for (std::uint32_t round = 0; round < 10; ++round)
    for (std::uint32_t bucket = 0; bucket < 63; ++bucket) keys.push_back(bucket + 64 * round);
  for (const auto scheme : {reorder_scheme::rows, reorder_scheme::warp_cooperative}) {
    SCOPED_TRACE(scheme == reorder_scheme::rows ? "Alg. 1" : "Alg. 3");
    const auto order = TestFixture::order_of(keys, 64, 1, scheme);
    ASSERT_EQ(order.size(), keys.size());
    for (std::size_t j = 0; j < order.size(); ++j)
      EXPECT_EQ(keys[order[j]] % 64, j / 10) << "position " << j;
  }
}

TYPED_TEST_P(reorder, overflowing_keys_take_the_next_row_with_room) {
  // Alg. 3 with the paper's width, 64 rows of 4 positions (256 keys, so the
  // rows end exactly full): bucket 0 gets 8 keys, bucket 1 none, buckets 2 to 63 four each.
  // Bucket 0's four keys that find row 0 full look at the 32 rows from row 0
  // on, and the first with room is row 1, which no other key wants: rows 0
  // and 1 hold bucket 0's keys, every other row its own bucket's.
  std::vector<std::uint32_t> keys;
  for (std::uint32_t k = 0; k < 8; ++k) keys.push_back(64 * (k + 1));
  for (std::uint32_t round = 0; round < 4; ++round)
    for (std::uint32_t bucket = 2; bucket < 64; ++bucket) keys.push_back(bucket + 64 * round);
  const auto order = TestFixture::order_of(keys, 64, 1, reorder_scheme::warp_cooperative, true);
  ASSERT_EQ(order.size(), keys.size());
  for (std::size_t j = 0; j < order.size(); ++j) {
    const std::size_t row = j / 4;
    EXPECT_EQ(keys[order[j]] % 64, row < 2 ? 0 : row) << "position " << j;
  }
}

TYPED_TEST_P(reorder, a_row_width_is_taken_by_the_warp_cooperative_scheme_only) {
  const std::vector<std::uint32_t> keys{1, 2, 3};
  EXPECT_THROW(TestFixture::order_of(keys, 4, 1, reorder_scheme::rows, true), error);
}

REGISTER_TYPED_TEST_SUITE_P(reorder, the_new_order_is_a_permutation,
                            rows_with_room_keep_their_keys_together,
                            overflowing_keys_take_the_next_row_with_room,
                            a_row_width_is_taken_by_the_warp_cooperative_scheme_only);

}  // namespace gpuhash::testing
