#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "gpuhash/cpu/thread_pool.hpp"
#include "gpuhash/detail/cpu/exec.hpp"

namespace gpuhash::cpu {
namespace {

TEST(thread_pool, covers_every_index_exactly_once) {
  for (const unsigned threads : {1U, 2U, 5U}) {
    thread_pool pool(threads);
    EXPECT_EQ(pool.thread_count(), threads);
    for (const std::uint64_t n : {0ULL, 1ULL, 1000ULL, 123457ULL}) {
      std::vector<std::atomic<int>> hits(n);
      pool.parallel_for(
          n,
          [&](std::uint64_t begin, std::uint64_t end) {
            for (std::uint64_t i = begin; i < end; ++i) hits[i].fetch_add(1);
          },
          100);
      for (std::uint64_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << "index " << i;
    }
  }
}

TEST(thread_pool, rethrows_the_first_exception) {
  thread_pool pool(3);
  EXPECT_THROW(pool.parallel_for(
                   100000,
                   [](std::uint64_t begin, std::uint64_t) {
                     if (begin >= 50000) throw std::runtime_error("boom");
                   },
                   1000),
               std::runtime_error);
  // The pool is usable afterwards.
  std::atomic<std::uint64_t> sum{0};
  pool.parallel_for(
      1000, [&](std::uint64_t begin, std::uint64_t end) { sum += end - begin; }, 10);
  EXPECT_EQ(sum.load(), 1000U);
}

TEST(thread_pool, nested_parallel_for_runs_inline) {
  thread_pool pool(2);
  std::atomic<std::uint64_t> total{0};
  pool.parallel_for(
      64,
      [&](std::uint64_t begin, std::uint64_t end) {
        for (std::uint64_t i = begin; i < end; ++i)
          pool.parallel_for(10, [&](std::uint64_t b, std::uint64_t e) { total += e - b; });
      },
      1);
  EXPECT_EQ(total.load(), 640U);
}

TEST(cpu_exec, select_if_keeps_order_and_counts) {
  thread_pool pool(3);
  std::vector<std::uint32_t> in(100001);
  for (std::uint32_t i = 0; i < in.size(); ++i) in[i] = i;
  std::vector<std::uint32_t> out(in.size());
  const auto count = detail::exec<cpu_backend>::select_if(
      in.data(), in.size(), out.data(), [](std::uint32_t v) { return v % 3 == 0; },
      cpu::stream{&pool});
  ASSERT_EQ(count, 33334U);
  for (std::uint64_t i = 0; i < count; ++i) ASSERT_EQ(out[i], 3 * i);
}

TEST(cpu_exec, tally_counts_statuses_that_change_a_table) {
  detail::table_counters counters;
  thread_pool pool(2);
  detail::exec<cpu_backend>::for_each_tally(
      9000, [](std::uint64_t i) { return static_cast<status>(i % 9); }, &counters,
      cpu::stream{&pool});
  EXPECT_EQ(counters.inserted, 1000U);
  EXPECT_EQ(counters.erased, 1000U);
  EXPECT_EQ(counters.full, 1000U);
}

}  // namespace
}  // namespace gpuhash::cpu
