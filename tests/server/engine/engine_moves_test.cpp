// The engine while its index moves between the CPU and a device, as
// --index=auto moves it: the device a pretend one (the CPU index saying it
// is on a device, its statuses one batch late, as the GPU's), the moves
// made every few batches by a test policy (index_doubles.hpp). Nothing is
// lost, and who runs a shard's batches follows its index: with the index on
// the CPU the submitters do, and the batch thread sleeps.

#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engine/engine_harness.hpp"

namespace gpuhash::server::engine::testing {
namespace {

using index::index_site;

/// The server's runner (automatic) over `shards` shards whose indexes start
/// at `start` and move every `batches_per_stay` batches, `most_moves` times.
harness_config moving(index_site start, std::size_t batches_per_stay, std::size_t shards,
                      std::size_t most_moves = static_cast<std::size_t>(-1)) {
  harness_config config;
  config.shards = shards;
  config.index =
      index::test_doubles::moving_index_factory(test_seed, start, batches_per_stay, most_moves);
  return config;
}

/// The states (R, S, ...: /proc's) of this process's threads named `name`.
std::string states_of(const std::string& name) {
  std::string states;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string named;
    std::getline(comm, named);
    if (named != name) continue;
    std::ifstream stat(task.path() / "stat");
    std::string line;
    std::getline(stat, line);
    const std::size_t name_end = line.rfind(')');
    if (name_end != std::string::npos && name_end + 2 < line.size()) states += line[name_end + 2];
  }
  return states;
}

TEST(MovingIndex, EveryKeyIsFoundWhileTheIndexMovesEachWay) {
  engine_harness harness(moving(index_site::gpu, 3, 4));
  std::map<std::string, std::string> model;
  for (std::size_t round = 0; round < 30; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const std::optional<std::string> gone =
        round % 4 == 3 ? std::optional<std::string>(key_of(round * 10 - 25)) : std::nullopt;
    ASSERT_NO_FATAL_FAILURE(churn_round(harness, model, round * 10, 10, 20, gone));
  }
  const auto stats = harness.stats();
  EXPECT_GE(std::stoull(stats.at("index_moves_to_cpu")), 10u);
  EXPECT_GE(std::stoull(stats.at("index_moves_to_gpu")), 10u);
  EXPECT_EQ(stats.at("index_failovers"), "0");
  EXPECT_EQ(std::stoull(stats.at("curr_items")), model.size());
  harness.expect_index_matches_items();
}

TEST(MovingIndex, OnTheCpuTheSubmittersRunTheBatchesAndTheBatchThreadSleeps) {
  // The first batch moves the index from the device to the CPU, for good.
  engine_harness harness(moving(index_site::gpu, 1, 1, 1));
  ASSERT_FALSE(harness.runs_inline());
  // (the thread names itself as it starts)
  for (int wait = 0; wait < 100 && states_of("gh-batch-0").empty(); ++wait)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_EQ(states_of("gh-batch-0").size(), 1u) << "the shard has a batch thread";
  EXPECT_EQ(harness.run(store_text("set", "k", "v")), "STORED\r\n");
  EXPECT_TRUE(harness.runs_inline());
  EXPECT_EQ(harness.stat("index_moves_to_cpu"), 1u);
  std::string states;
  for (std::size_t n = 0; n < 20; ++n) {
    // answered before submit returns: no other thread ran it
    const auto parsed = harness.parse("get k\r\n");
    harness.submit(*parsed);
    EXPECT_TRUE(parsed->done) << n;
    EXPECT_EQ(parsed->replies(), value_reply("k", "v"));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    states += states_of("gh-batch-0");
  }
  EXPECT_EQ(states, std::string(20, 'S')) << "the batch thread is not asleep";
  EXPECT_EQ(harness.stats().at("index_in_use"), "cpu");
  harness.expect_index_matches_items();
}

TEST(MovingIndex, OnTheDeviceTheBatchThreadTakesOverAndAnIdleShardsSubmitterRunsItsBatch) {
  // The first batch moves the index from the CPU to the device, for good.
  engine_harness harness(moving(index_site::cpu, 1, 1, 1));
  ASSERT_TRUE(harness.runs_inline());
  EXPECT_EQ(harness.run(store_text("set", "k", "v")), "STORED\r\n");
  EXPECT_FALSE(harness.runs_inline());
  EXPECT_EQ(harness.stat("index_moves_to_gpu"), 1u);
  const auto parsed = harness.parse("get k\r\n");
  harness.submit(*parsed);
  EXPECT_TRUE(parsed->done) << "not answered on the submitting thread";
  EXPECT_EQ(parsed->replies(), value_reply("k", "v"));
  const auto stats = harness.stats();
  EXPECT_EQ(stats.at("index_in_use"), "gpu");
  EXPECT_EQ(stats.at("index_gpu_shards"), "1");
  EXPECT_EQ(stats.at("index"), "pretend device");
  harness.expect_index_matches_items();
}

TEST(MovingIndex, EachShardMovesOnItsOwnAndStatsShowThemMixed) {
  // Two shards, each moving to the CPU at its second batch.
  engine_harness harness(moving(index_site::gpu, 2, 2, 1));
  EXPECT_EQ(harness.run("get k\r\n"), "END\r\n");  // one shard's first batch
  EXPECT_EQ(harness.run("get k\r\n"), "END\r\n");  // its second: it moves
  // `stats` is the other shard's first batch
  const auto stats = harness.stats();
  EXPECT_EQ(stats.at("index_in_use"), "mixed");
  EXPECT_EQ(stats.at("index_gpu_shards"), "1");
  EXPECT_EQ(stats.at("index_moves_to_cpu"), "1");
  EXPECT_EQ(stats.at("index_moves_to_gpu"), "0");
}

TEST(MovingIndex, AMoveAtABatchWithoutIndexWorkCountsEveryEntryAtOnce) {
  // One shard, on the CPU, moving to the (pretend) device at its fourth
  // batch: a `stats` alone, with no find, insert or erase. The rebuilt
  // index (which counts a batch's entries at the next batch, as the GPU's)
  // holds every item already when that `stats` reads it. (On an H200 under
  // compute-sanitizer, a move that landed on such a batch showed a shard's
  // index without its entries: 1,002 of 1,340.)
  engine_harness harness(moving(index_site::cpu, 4, 1, 1));
  std::string sets;
  std::string stored;
  for (std::size_t n = 0; n < 10; ++n) {
    sets += store_text("set", key_of(n), value_of(n));
    stored += "STORED\r\n";
  }
  ASSERT_EQ(harness.run(sets), stored);  // batch 1
  ASSERT_EQ(harness.run(store_text("set", key_of(10), value_of(10))), "STORED\r\n");  // 2
  ASSERT_EQ(harness.run("delete " + key_of(3) + "\r\n"), "DELETED\r\n");            // 3
  const auto stats = harness.stats();  // 4: the move
  EXPECT_EQ(stats.at("index_moves_to_gpu"), "1");
  EXPECT_EQ(stats.at("index_in_use"), "gpu");
  EXPECT_EQ(stats.at("curr_items"), "10");
  EXPECT_EQ(stats.at("index_entries"), "10");
  EXPECT_EQ(harness.run("get " + key_of(10) + "\r\n"), value_reply(key_of(10), value_of(10)));
  harness.expect_index_matches_items();
}

}  // namespace
}  // namespace gpuhash::server::engine::testing
