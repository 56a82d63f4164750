// Tests of the engine with its index on the GPU (labelled gpu: they run on
// the GPU machine, scripts/gpu-check): what the CPU index cannot show.

#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <string>
#include <thread>

#include "engine/engine_harness.hpp"
#include "index/index_factory.hpp"
#include "index/index_service.hpp"

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

}  // namespace
}  // namespace gpuhash::server::engine::testing
