#pragma once
// Tests of exec<Backend>::stable_partition (detail/exec.hpp), which groups a
// sharded batch by shard: against a sequential stable grouping of the same
// ways, over sizes around the GPU's tile of 256 indices and across several
// tiles, 1 to 1,024 ways, every index in one way, and no indices.
// Instantiated per backend, in a file the backend's compiler builds.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gpuhash/detail/exec.hpp"
#include "gpuhash/host_device.hpp"
#include "support/random.hpp"

namespace gpuhash::testing {

/// The way of index i: read from an array in the backend's memory.
struct way_from_array {
  const std::uint32_t* ways;
  GPUHASH_HD std::uint32_t operator()(std::uint64_t i) const { return ways[i]; }
};

/// Records where index i went: placed[at] = i, and at[i] = at.
struct record_place {
  std::uint64_t* placed;
  std::uint64_t* at;
  GPUHASH_HD void operator()(std::uint64_t i, std::uint64_t position) const {
    placed[position] = i;
    at[i] = position;
  }
};

template <class Backend>
class stable_partition : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Backend::available())
      GTEST_SKIP() << "no " << Backend::name
                   << " device: these tests need an NVIDIA GPU (scripts/gpu-check runs them)";
  }

  /// Partitions indices with the given ways, each way's group starting at
  /// the first multiple of `align` after the one before it, and checks the
  /// result against the sequential stable grouping: the same counts, each
  /// index at the position the grouping gives it (so every position of a
  /// group is written once), and nothing written between groups.
  static void expect_grouped(const std::vector<std::uint32_t>& ways, std::uint32_t way_count,
                             std::uint64_t align = 1) {
    const std::size_t n = ways.size();
    const std::size_t extent = n + way_count * (align - 1);
    const typename Backend::stream_type stream{};
    auto device_ways = Backend::template allocate<std::uint32_t>(n, stream);
    auto placed = Backend::template allocate<std::uint64_t>(extent, stream);
    auto at = Backend::template allocate<std::uint64_t>(n, stream);
    if (n > 0) Backend::copy_from_host(device_ways.data(), ways.data(), n, stream);
    if (extent > 0)
      Backend::fill_bytes(placed.data(), extent * sizeof(std::uint64_t), 0xff, stream);
    std::vector<std::uint64_t> counts(way_count, 12345);
    detail::exec<Backend>::stable_partition(n, way_count, way_from_array{device_ways.data()},
                                            record_place{placed.data(), at.data()}, counts.data(),
                                            stream, align);

    std::vector<std::uint64_t> expected_counts(way_count, 0);
    for (const std::uint32_t way : ways) ++expected_counts[way];
    EXPECT_EQ(counts, expected_counts);

    const std::uint64_t nowhere = ~std::uint64_t{0};
    std::vector<std::uint64_t> expected_placed(extent, nowhere);
    std::uint64_t end = 0;
    for (std::uint32_t way = 0; way < way_count; ++way) {
      end = (end + align - 1) / align * align;
      for (std::uint64_t i = 0; i < n; ++i)
        if (ways[i] == way) expected_placed[end++] = i;
    }
    std::vector<std::uint64_t> host_placed(extent), host_at(n);
    if (extent > 0) Backend::copy_to_host(host_placed.data(), placed.data(), extent, stream);
    if (n > 0) Backend::copy_to_host(host_at.data(), at.data(), n, stream);
    ASSERT_EQ(host_placed, expected_placed);
    for (std::uint64_t position = 0; position < extent; ++position) {
      if (expected_placed[position] != nowhere) {
        ASSERT_EQ(host_at[expected_placed[position]], position)
            << "index " << expected_placed[position];
      }
    }
  }

  static std::vector<std::uint32_t> random_ways(seeded_random& random, std::size_t n,
                                                std::uint32_t way_count) {
    std::vector<std::uint32_t> ways(n);
    for (auto& way : ways) way = static_cast<std::uint32_t>(random.below(way_count));
    return ways;
  }
};

TYPED_TEST_SUITE_P(stable_partition);

TYPED_TEST_P(stable_partition, groups_random_ways_stably) {
  seeded_random random;
  for (const std::uint32_t way_count : {1U, 2U, 3U, 4U, 7U, 33U, 1024U}) {
    // Around a warp, a warp's run (256) and a GPU tile (2,048), and many tiles.
    for (const std::size_t n :
         {std::size_t{1}, std::size_t{31}, std::size_t{255}, std::size_t{256}, std::size_t{257},
          std::size_t{2047}, std::size_t{2048}, std::size_t{2049}, std::size_t{4096},
          std::size_t{5000}, std::size_t{70001}}) {
      SCOPED_TRACE(std::to_string(way_count) + " ways, " + std::to_string(n) + " indices");
      this->expect_grouped(this->random_ways(random, n, way_count), way_count);
    }
  }
}

TYPED_TEST_P(stable_partition, aligns_each_group) {
  // As the sharded map's partition runs it: groups at multiples of 256
  // (and of an odd alignment), some ways empty.
  seeded_random random;
  for (const std::uint64_t align : {std::uint64_t{3}, std::uint64_t{256}}) {
    for (const std::uint32_t way_count : {1U, 2U, 4U, 9U}) {
      for (const std::size_t n :
           {std::size_t{1}, std::size_t{300}, std::size_t{2049}, std::size_t{70001}}) {
        SCOPED_TRACE(std::to_string(way_count) + " ways, " + std::to_string(n) +
                     " indices, align " + std::to_string(align));
        this->expect_grouped(this->random_ways(random, n, way_count), way_count, align);
      }
    }
  }
}

TYPED_TEST_P(stable_partition, groups_runs_of_one_way) {
  // Long runs of one way (as a batch sorted by key would have), so that
  // whole warps and tiles share a way and some ways are empty in a tile.
  seeded_random random;
  std::vector<std::uint32_t> ways;
  while (ways.size() < 20000) {
    const auto way = static_cast<std::uint32_t>(random.below(5));
    const std::size_t run = 1 + random.below(700);
    ways.insert(ways.end(), run, way);
  }
  this->expect_grouped(ways, 5);
  this->expect_grouped(ways, 5, 256);
}

TYPED_TEST_P(stable_partition, every_index_in_one_way) {
  for (std::uint32_t only = 0; only < 4; ++only) {
    SCOPED_TRACE("way " + std::to_string(only));
    this->expect_grouped(std::vector<std::uint32_t>(3000, only), 4);
    this->expect_grouped(std::vector<std::uint32_t>(3000, only), 4, 256);
  }
}

TYPED_TEST_P(stable_partition, no_indices_counts_nothing) {
  this->expect_grouped({}, 3);
}

REGISTER_TYPED_TEST_SUITE_P(stable_partition, groups_random_ways_stably, aligns_each_group,
                            groups_runs_of_one_way, every_index_in_one_way,
                            no_indices_counts_nothing);

}  // namespace gpuhash::testing
