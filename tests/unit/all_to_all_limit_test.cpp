// The all-to-all limit of gpuhash-bench's sharded.scaling
// (bench/sharded/all_to_all_limit.hpp): the plan it times must move the
// bytes a sharded batch moves, piece for piece, and count them right, or the
// share of it that a batch reaches means nothing.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "bench/sharded/all_to_all_limit.hpp"
#include "gpuhash/host_exchange.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash::bench {
namespace {

TEST(all_to_all_limit, even_plan_splits_each_part_over_every_shard_within_one_key) {
  const std::vector<std::size_t> parts{1000, 0, 10};
  const exchange_plan plan = even_plan(parts);
  for (std::size_t s = 0; s < parts.size(); ++s) {
    EXPECT_EQ(plan.sent(s), parts[s]);
    std::size_t least = parts[s];
    std::size_t most = 0;
    for (std::size_t d = 0; d < parts.size(); ++d) {
      least = std::min(least, plan.count(s, d));
      most = std::max(most, plan.count(s, d));
    }
    EXPECT_LE(most - least, 1U) << "part " << s;
  }
}

TEST(all_to_all_limit, a_plan_in_bytes_has_the_pieces_of_the_plan_in_elements) {
  const exchange_plan even = even_plan(std::vector<std::size_t>{7, 12, 0, 5});
  std::vector<std::vector<std::size_t>> counts(4, std::vector<std::size_t>(4));
  for (std::size_t s = 0; s < 4; ++s)
    for (std::size_t d = 0; d < 4; ++d) counts[s][d] = even.count(s, d);
  // its parts aligned as the sharded map's are, too
  for (const exchange_plan& plan : {even, exchange_plan(counts, 4)}) {
    const std::vector<exchange_piece> elements = plan.pieces(8);
    const exchange_plan plan_in_bytes = in_bytes(plan, 8);
    const std::vector<exchange_piece> bytes = plan_in_bytes.pieces(1);
    ASSERT_EQ(bytes.size(), elements.size());
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      EXPECT_EQ(bytes[i].from, elements[i].from);
      EXPECT_EQ(bytes[i].to, elements[i].to);
      EXPECT_EQ(bytes[i].send_offset, elements[i].send_offset);
      EXPECT_EQ(bytes[i].receive_offset, elements[i].receive_offset);
      EXPECT_EQ(bytes[i].bytes, elements[i].bytes);
    }
    for (std::size_t g = 0; g < 4; ++g) {
      EXPECT_EQ(plan_in_bytes.send_extent(g), plan.send_extent(g) * 8);
      EXPECT_EQ(plan_in_bytes.receive_extent(g), plan.receive_extent(g) * 8);
    }
  }
}

TEST(all_to_all_limit, insert_and_find_move_a_key_a_value_and_a_status) {
  using key = std::uint64_t;
  using value = std::uint32_t;
  const std::vector<exchange_transfer> inserts = insert_transfers<key, value>();
  const std::vector<exchange_transfer> finds = find_transfers<key, value>();
  for (const auto& transfers : {inserts, finds}) {
    std::size_t there = 0;
    std::size_t back = 0;
    for (const exchange_transfer& t : transfers) (t.back ? back : there) += t.element_bytes;
    EXPECT_EQ(there + back, sizeof(key) + sizeof(value) + sizeof(status));
  }
  // Insert sends the pair and gets a status back; find sends the key and
  // gets a status and a value back.
  EXPECT_FALSE(inserts[1].back);
  EXPECT_TRUE(inserts[2].back);
  EXPECT_EQ(inserts[2].element_bytes, sizeof(status));
  EXPECT_FALSE(finds[0].back);
  EXPECT_TRUE(finds[2].back);
  EXPECT_EQ(finds[2].element_bytes, sizeof(value));
}

TEST(all_to_all_limit, counts_every_byte_and_those_between_shards) {
  host_exchange exchange(3, 1);
  const std::vector<std::size_t> parts{1000, 0, 10};
  const exchange_plan there = even_plan(parts);
  const auto transfers = insert_transfers<std::uint64_t, std::uint64_t>();
  const all_to_all_limit limit =
      measure_all_to_all(exchange, there, std::span<const exchange_transfer>(transfers), 1, 5);
  constexpr std::uint64_t per_key = 8 + 8 + sizeof(status);
  EXPECT_EQ(limit.bytes, 1010 * per_key);
  // Part 0 keeps 334 of its keys (its share for itself), part 2 keeps 3.
  EXPECT_EQ(limit.bytes_between, (1000 - 334 + 10 - 3) * per_key);
  EXPECT_GT(limit.median_ms, 0.0);
  EXPECT_GT(limit.rate_gops(1010), 0.0);
}

}  // namespace
}  // namespace gpuhash::bench
