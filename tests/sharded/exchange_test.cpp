// The exchange's pieces on the host: the plan's offsets and its reverse,
// the host exchange's all-to-all (empty shards, everything to one shard,
// one shard), and the per-shard threads both exchanges run their tasks on.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "gpuhash/detail/sharded/shard_threads.hpp"
#include "gpuhash/host_exchange.hpp"
#include "gpuhash/shard_exchange.hpp"
#include "support/random.hpp"

namespace gpuhash::testing {
namespace {

using count_matrix = std::vector<std::vector<std::size_t>>;

TEST(exchange_plan, offsets_follow_destinations_when_sending_and_sources_when_receiving) {
  // Shard 2 sends 4 to shard 0, 5 to 1, 6 to itself: its parts in
  // destination order. Shard 0 receives 1 from itself, nothing from 1, 4
  // from 2: its parts in source order. With an alignment of 4 every part
  // (an empty one too) starts at a multiple of 4, and a buffer ends where
  // its last part does.
  struct layout {
    std::size_t align;
    std::size_t send_offsets[3][3];     // [from][to]
    std::size_t receive_offsets[3][3];  // [to][from]
    std::size_t send_extents[3];
    std::size_t receive_extents[3];
  };
  for (const layout& expected : {layout{1,
                                        {{0, 1, 3}, {0, 0, 0}, {0, 4, 9}},
                                        {{0, 1, 1}, {0, 2, 2}, {0, 0, 0}},
                                        {3, 0, 15},
                                        {5, 7, 6}},
                                 layout{4,
                                        {{0, 4, 8}, {0, 0, 0}, {0, 4, 12}},
                                        {{0, 4, 4}, {0, 4, 4}, {0, 0, 0}},
                                        {8, 0, 18},
                                        {8, 9, 6}}}) {
    SCOPED_TRACE("align " + std::to_string(expected.align));
    const exchange_plan plan(count_matrix{{1, 2, 0}, {0, 0, 0}, {4, 5, 6}}, expected.align);
    EXPECT_EQ(plan.shard_count(), 3U);
    EXPECT_EQ(plan.align(), expected.align);
    for (std::size_t g = 0; g < 3; ++g) {
      for (std::size_t other = 0; other < 3; ++other) {
        EXPECT_EQ(plan.send_offset(g, other), expected.send_offsets[g][other]);
        EXPECT_EQ(plan.receive_offset(g, other), expected.receive_offsets[g][other]);
      }
      EXPECT_EQ(plan.send_extent(g), expected.send_extents[g]);
      EXPECT_EQ(plan.receive_extent(g), expected.receive_extents[g]);
    }
    // what is sent and received does not depend on the alignment
    EXPECT_EQ(plan.sent(2), 15U);
    EXPECT_EQ(plan.sent(1), 0U);
    EXPECT_EQ(plan.received(0), 5U);
    EXPECT_EQ(plan.received(1), 7U);
    EXPECT_EQ(plan.received(2), 6U);
    for (const exchange_piece& piece : plan.pieces(2)) {
      EXPECT_EQ(piece.send_offset % (2 * expected.align), 0U);
      EXPECT_EQ(piece.receive_offset % (2 * expected.align), 0U);
    }
  }
  EXPECT_THROW(exchange_plan(count_matrix{{1}}, 0), std::invalid_argument);
}

TEST(exchange_plan, the_way_back_lands_where_the_way_there_started) {
  seeded_random random;
  for (const std::size_t align : {std::size_t{1}, std::size_t{3}, std::size_t{256}}) {
    for (std::size_t shards = 1; shards <= 5; ++shards) {
      SCOPED_TRACE(std::to_string(shards) + " shards, align " + std::to_string(align));
      count_matrix counts(shards, std::vector<std::size_t>(shards));
      for (auto& row : counts)
        for (auto& count : row) count = random.below(3) == 0 ? 0 : random.below(700);
      const exchange_plan there(counts, align);
      const exchange_plan back = there.reversed();
      EXPECT_EQ(back.align(), align);
      for (std::size_t s = 0; s < shards; ++s) {
        EXPECT_EQ(back.received(s), there.sent(s));
        EXPECT_EQ(back.sent(s), there.received(s));
        EXPECT_EQ(back.receive_extent(s), there.send_extent(s));
        EXPECT_EQ(back.send_extent(s), there.receive_extent(s));
        for (std::size_t d = 0; d < shards; ++d) {
          EXPECT_EQ(there.send_offset(s, d) % align, 0U);
          EXPECT_EQ(there.receive_offset(d, s) % align, 0U);
          EXPECT_EQ(back.count(d, s), there.count(s, d));
          EXPECT_EQ(back.send_offset(d, s), there.receive_offset(d, s));
          EXPECT_EQ(back.receive_offset(s, d), there.send_offset(s, d));
        }
      }
    }
  }
}

TEST(exchange_plan, pieces_are_the_nonempty_parts_in_bytes) {
  const exchange_plan plan(count_matrix{{1, 2, 0}, {0, 0, 0}, {4, 5, 6}});
  const auto pieces = plan.pieces(8);
  ASSERT_EQ(pieces.size(), 5U);  // (0,0) (0,1) (2,0) (2,1) (2,2)
  const auto expect_piece = [](const exchange_piece& p, std::size_t from, std::size_t to,
                               std::size_t send_offset, std::size_t receive_offset,
                               std::size_t bytes) {
    EXPECT_EQ(p.from, from);
    EXPECT_EQ(p.to, to);
    EXPECT_EQ(p.send_offset, send_offset);
    EXPECT_EQ(p.receive_offset, receive_offset);
    EXPECT_EQ(p.bytes, bytes);
  };
  expect_piece(pieces[0], 0, 0, 0, 0, 8);
  expect_piece(pieces[1], 0, 1, 8, 0, 16);
  expect_piece(pieces[2], 2, 0, 0, 8, 32);
  expect_piece(pieces[3], 2, 1, 32, 16, 40);
  expect_piece(pieces[4], 2, 2, 72, 0, 48);
  EXPECT_TRUE(exchange_plan(count_matrix{{0, 0}, {0, 0}}).pieces(4).empty());
}

TEST(exchange_plan, rejects_a_matrix_that_is_not_square) {
  EXPECT_THROW(exchange_plan(count_matrix{{1, 2}, {3}}), std::invalid_argument);
}

/// An element that names where it came from: (source, destination, index).
std::uint64_t tag(std::size_t from, std::size_t to, std::size_t k) {
  return (std::uint64_t{from} << 48) | (std::uint64_t{to} << 32) | k;
}

/// Runs the host exchange on `counts` and checks every element's landing place.
void expect_delivered(const count_matrix& counts, std::size_t align = 1) {
  const std::size_t shards = counts.size();
  const exchange_plan plan(counts, align);
  std::vector<std::vector<std::uint64_t>> send(shards), receive(shards);
  for (std::size_t s = 0; s < shards; ++s) {
    send[s].resize(plan.send_extent(s));
    receive[s].assign(plan.receive_extent(s), ~std::uint64_t{0});
    for (std::size_t d = 0; d < shards; ++d)
      for (std::size_t k = 0; k < plan.count(s, d); ++k)
        send[s][plan.send_offset(s, d) + k] = tag(s, d, k);
  }
  std::vector<const std::uint64_t*> send_parts(shards);
  std::vector<std::uint64_t*> receive_parts(shards);
  for (std::size_t g = 0; g < shards; ++g) {
    send_parts[g] = send[g].data();  // null where empty: never read then
    receive_parts[g] = receive[g].data();
  }
  host_exchange exchange(shards, 1);
  exchange.all_to_all(plan, std::span<const std::uint64_t* const>(send_parts),
                      std::span<std::uint64_t* const>(receive_parts));
  for (std::size_t d = 0; d < shards; ++d)
    for (std::size_t s = 0; s < shards; ++s)
      for (std::size_t k = 0; k < plan.count(s, d); ++k)
        ASSERT_EQ(receive[d][plan.receive_offset(d, s) + k], tag(s, d, k))
            << "from " << s << " to " << d << ", element " << k;
}

TEST(host_exchange, delivers_every_part_to_its_place) {
  seeded_random random;
  for (const std::size_t align : {std::size_t{1}, std::size_t{256}}) {
    for (std::size_t shards = 1; shards <= 4; ++shards) {
      SCOPED_TRACE(std::to_string(shards) + " shards, align " + std::to_string(align));
      count_matrix counts(shards, std::vector<std::size_t>(shards));
      for (auto& row : counts)
        for (auto& count : row) count = random.below(4) == 0 ? 0 : random.below(1000);
      expect_delivered(counts, align);
    }
  }
}

TEST(host_exchange, empty_shards_and_everything_to_one_shard) {
  for (const std::size_t align : {std::size_t{1}, std::size_t{256}}) {
    SCOPED_TRACE("align " + std::to_string(align));
    expect_delivered(count_matrix{{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, align);
    expect_delivered(count_matrix{{0, 7, 0}, {0, 300, 0}, {0, 1, 0}}, align);  // all to shard 1
    expect_delivered(count_matrix{{0, 0, 0}, {5, 6, 7}, {0, 0, 0}}, align);    // all from shard 1
    expect_delivered(count_matrix{{12345}}, align);
  }
}

TEST(host_exchange, gives_each_shard_its_own_pool) {
  host_exchange exchange(3, 2);
  EXPECT_EQ(exchange.shard_count(), 3U);
  std::set<cpu::thread_pool*> pools;
  for (std::size_t g = 0; g < 3; ++g) {
    pools.insert(exchange.stream(g).pool);
    EXPECT_EQ(exchange.stream(g).get().thread_count(), 2U);
  }
  EXPECT_EQ(pools.size(), 3U);
  EXPECT_THROW(host_exchange(0), std::invalid_argument);
}

TEST(shard_threads, runs_each_shard_once_on_a_thread_of_its_own) {
  detail::shard_threads threads(4);
  for (int round = 0; round < 50; ++round) {
    std::vector<int> calls(4, 0);
    std::vector<std::thread::id> ids(4);
    threads.run([&](std::size_t g) {
      ++calls[g];
      ids[g] = std::this_thread::get_id();
    });
    EXPECT_EQ(calls, (std::vector<int>{1, 1, 1, 1}));
    EXPECT_EQ(std::set<std::thread::id>(ids.begin(), ids.end()).size(), 4U);
    EXPECT_EQ(std::count(ids.begin(), ids.end(), std::this_thread::get_id()), 0);
  }
}

TEST(shard_threads, all_tasks_run_at_once) {
  // Each task waits for all the others to start: a run that took the shards
  // in turns would never finish this.
  detail::shard_threads threads(3);
  std::atomic<int> started{0};
  threads.run([&](std::size_t) {
    started.fetch_add(1);
    while (started.load() < 3) std::this_thread::yield();
  });
  EXPECT_EQ(started.load(), 3);
}

TEST(shard_threads, rethrows_the_first_exception_after_every_task_ends) {
  detail::shard_threads threads(3);
  std::atomic<int> finished{0};
  EXPECT_THROW(threads.run([&](std::size_t g) {
    finished.fetch_add(1);
    if (g == 1) throw std::runtime_error("shard 1 failed");
  }),
               std::runtime_error);
  EXPECT_EQ(finished.load(), 3);
  // Usable afterwards, and the error does not come back.
  threads.run([&](std::size_t) { finished.fetch_add(1); });
  EXPECT_EQ(finished.load(), 6);
}

}  // namespace
}  // namespace gpuhash::testing
