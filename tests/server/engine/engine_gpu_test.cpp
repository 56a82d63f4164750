// Tests of the engine with its index on the GPU (labelled gpu: they run on
// the GPU machine, scripts/gpu-check): what the CPU index cannot show,
// --index=auto's moves of the GPU index among them.

#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engine/engine_harness.hpp"
#include "index/index_factory.hpp"
#include "index/index_service.hpp"
#include "index_doubles.hpp"

namespace gpuhash::server::engine::testing {
namespace {

TEST(EngineOnTheGpu, RenewsTheResidentKernelsBetweenBatchesAtALowLoad) {
  // Lone requests a few milliseconds apart, run by the submitting thread:
  // each shard's batch thread sleeps, and renews its resident kernel
  // before it ages out (shard.cpp), without losing a write or an answer.
  if (!index::gpu_available()) GTEST_SKIP() << "no cuda device";
  harness_config config;
  config.shards = 2;
  config.index = [](std::size_t) {
    constexpr std::uint64_t resident_lifetime_us = 20'000;  // renewed every 10 ms
    return std::make_unique<index::index_port>(
        index::make_gpu_index(index::initial_capacity, test_seed, resident_lifetime_us), test_seed);
  };
  engine_harness harness(std::move(config));
  ASSERT_TRUE(harness.may_run_on_submitter());
  for (std::size_t n = 0; n < 40; ++n) {
    ASSERT_EQ(harness.run(store_text("set", key_of(n), value_of(n))), "STORED\r\n");
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    const std::size_t m = n / 2;
    ASSERT_EQ(harness.run("get " + key_of(m) + "\r\n"), "VALUE " + key_of(m) + " 0 " +
                                                            std::to_string(value_of(m).size()) +
                                                            "\r\n" + value_of(m) + "\r\nEND\r\n");
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
  }
  EXPECT_GT(harness.stat("index_kernel_renewals"), 0u);
  harness.expect_index_matches_items();
}

// ---- --index=auto on the GPU ------------------------------------------------------------

TEST(EngineOnTheGpu, TheIndexMovesToTheCpuAndBackLosingNothing) {
  // The GPU index moved to the CPU and back every four batches of each of
  // four shards (a test policy: index_doubles.hpp), through the port's moves
  // as --index=auto makes them, while keys are stored, replaced and deleted.
  if (!index::gpu_available()) GTEST_SKIP() << "no cuda device";
  harness_config config;
  config.shards = 4;
  config.index = [](std::size_t shard) {
    index::automatic_placement moving;
    moving.make_device = [](std::size_t capacity, std::uint64_t seed) {
      return index::make_gpu_index(capacity, seed);
    };
    moving.policy = index::test_doubles::make_alternating_policy(index::index_site::gpu, 4);
    moving.shard = shard;
    return std::make_unique<index::index_port>(
        index::make_gpu_index(index::initial_capacity, test_seed), test_seed, std::move(moving));
  };
  engine_harness harness(std::move(config));
  std::map<std::string, std::string> model;
  for (std::size_t round = 0; round < 40; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    ASSERT_NO_FATAL_FAILURE(churn_round(harness, model, round * 50, 50, 100, key_of(round * 37)));
  }
  const auto stats = harness.stats();
  EXPECT_GE(std::stoull(stats.at("index_moves_to_cpu")), 8u);
  EXPECT_GE(std::stoull(stats.at("index_moves_to_gpu")), 8u);
  EXPECT_EQ(stats.at("index_failovers"), "0");
  EXPECT_EQ(std::stoull(stats.at("curr_items")), model.size());
  harness.expect_index_matches_items();
}

TEST(EngineOnTheGpu, LoneRequestsMoveTheIndexToTheCpuByTheRule) {
  // The server's own factory with --index=auto (the calibration, the rule),
  // its windows shortened: lone requests cost the GPU index a round trip
  // each, far more than the CPU index's lookup of their key.
  if (!index::gpu_available()) GTEST_SKIP() << "no cuda device";
  index::auto_settings automatic;
  automatic.rule.window_ns = 50'000'000;
  automatic.rule.min_batches = 16;
  automatic.rule.dwell_ns = 1'000'000'000;
  automatic.shard_entries = 1 << 16;
  harness_config config;
  config.index = index::server_index(index::placement::automatic, 0, automatic);
  engine_harness harness(std::move(config));
  ASSERT_FALSE(harness.runs_inline()) << "--index=auto starts on the GPU";
  ASSERT_EQ(harness.run(store_text("set", "k", "v")), "STORED\r\n");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!harness.runs_inline() && std::chrono::steady_clock::now() < deadline)
    ASSERT_EQ(harness.run("get k\r\n"), value_reply("k", "v"));
  EXPECT_TRUE(harness.runs_inline()) << "still on the GPU after 5 s of lone requests";
  const auto stats = harness.stats();
  EXPECT_EQ(stats.at("index_moves_to_cpu"), "1");
  EXPECT_EQ(stats.at("index_in_use"), "cpu");
  EXPECT_NE(stats.at("index_auto_windows"), "0");
  EXPECT_EQ(harness.run("get k\r\n"), value_reply("k", "v"));
  harness.expect_index_matches_items();
}

}  // namespace
}  // namespace gpuhash::server::engine::testing
