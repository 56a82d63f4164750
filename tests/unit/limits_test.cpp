// gpuhash-bench's access limits: their list, the buffer a limit is measured
// over for a table of a given size, and the positions of the limit kernels,
// which must be what the limits claim (uniform; a bijection where each access
// needs a word of its own).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string_view>
#include <vector>

#include "bench/limits.hpp"
#include "bench/random_positions.hpp"

namespace gpuhash::bench {
namespace {

TEST(limits, every_limit_has_a_name_of_its_own_and_a_pattern) {
  std::set<std::string_view> names;
  for (const access_limit& limit : access_limits) {
    EXPECT_TRUE(names.insert(limit.name).second) << limit.name << " is listed twice";
    EXPECT_FALSE(limit.pattern.empty()) << limit.name;
    EXPECT_EQ(find_access_limit(limit.name), &limit);
  }
  EXPECT_EQ(find_access_limit("no_such_limit"), nullptr);
}

TEST(limits, buffers_are_the_table_size_rounded_up_to_a_quarter_octave) {
  constexpr std::uint64_t mib = std::uint64_t{1} << 20;
  EXPECT_EQ(limit_buffer_bytes(0), mib);
  EXPECT_EQ(limit_buffer_bytes(1000), mib);
  EXPECT_EQ(limit_buffer_bytes(mib), mib);
  EXPECT_EQ(limit_buffer_bytes(mib + 1), mib + mib / 4);
  EXPECT_EQ(limit_buffer_bytes(1024 * mib), 1024 * mib);
  EXPECT_EQ(limit_buffer_bytes(1024 * mib + 24), 1280 * mib);  // 2^26 slots and a counter
  EXPECT_EQ(limit_buffer_bytes(596523288), 640 * mib);         // bucketed cuckoo at load 0.9
  EXPECT_EQ(limit_buffer_bytes(16 * mib), 16 * mib);           // a table that fits in L2
  std::uint64_t previous = 0;
  for (std::uint64_t bytes = 1; bytes < (std::uint64_t{1} << 36); bytes = bytes * 3 / 2 + 1) {
    const std::uint64_t buffer = limit_buffer_bytes(bytes);
    EXPECT_GE(buffer, bytes);
    EXPECT_LE(buffer, std::max(mib, bytes + bytes / 4)) << bytes;
    EXPECT_GE(buffer, previous) << bytes;
    previous = buffer;
  }
}

TEST(random_positions, a_permutation_maps_each_index_to_a_word_of_its_own) {
  for (const std::uint64_t count : {1ULL, 2ULL, 3ULL, 5ULL, 64ULL, 1000ULL, 4097ULL, 65536ULL}) {
    for (const std::uint64_t seed : {0ULL, 0x1234ULL, ~0ULL}) {
      const position_permutation permutation = position_permutation::over(count, seed);
      std::vector<bool> taken(count, false);
      for (std::uint64_t i = 0; i < count; ++i) {
        const std::uint64_t word = permutation(i);
        ASSERT_LT(word, count) << "count " << count << " seed " << seed;
        ASSERT_FALSE(taken[word]) << "count " << count << " seed " << seed << ": " << word
                                  << " twice";
        taken[word] = true;
      }
    }
  }
  // Seeds give different orders.
  const auto first = position_permutation::over(1000, 1);
  const auto second = position_permutation::over(1000, 2);
  int same = 0;
  for (std::uint64_t i = 0; i < 1000; ++i) same += first(i) == second(i);
  EXPECT_LT(same, 20);
}

TEST(random_positions, positions_spread_over_the_whole_range) {
  constexpr std::uint64_t count = 1000;
  constexpr std::uint64_t accesses = 200000;
  std::vector<int> hits(count, 0);
  for (std::uint64_t access = 0; access < accesses; ++access) {
    const std::uint64_t position = random_position(access, 0xfeedULL, count);
    ASSERT_LT(position, count);
    ++hits[position];
  }
  // 200 expected per position; a standard deviation of about 14.
  EXPECT_GT(*std::min_element(hits.begin(), hits.end()), 120);
  EXPECT_LT(*std::max_element(hits.begin(), hits.end()), 280);
}

}  // namespace
}  // namespace gpuhash::bench
