// The connections' memory budget (net/memory_budget.hpp).

#include "net/memory_budget.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace gpuhash::server::net {
namespace {

TEST(MemoryBudget, EachConnectionHasItsAllowanceThenTheSharedLimit) {
  std::atomic<std::uint64_t> used{0}, stalls{0};
  memory_budget budget(1000, 100, 0, used, stalls);
  memory_charge a, b;
  EXPECT_EQ(budget.take(a, 1, 950), 950u);
  EXPECT_EQ(a.total, 950u);
  EXPECT_EQ(budget.used(), 950u);
  EXPECT_EQ(budget.take(a, 100, 5000), 0u);  // past its allowance, and the limit is near
  EXPECT_EQ(a.total, 950u);                  // (nothing taken)
  EXPECT_EQ(budget.take(a, 1, 5000), 50u);
  // another connection still has its allowance
  EXPECT_EQ(budget.take(b, 1, 5000), 100u);
  EXPECT_EQ(budget.used(), 1100u);
  EXPECT_EQ(budget.take(a, 0, 5000), 0u);
  EXPECT_TRUE(budget.pressed());
  // what a connection gives back is anyone's again
  const std::uint64_t given_back = budget.given_back();
  budget.recharge(a, 0, 0);
  EXPECT_EQ(a.total, 0u);
  EXPECT_NE(budget.given_back(), given_back);
  EXPECT_EQ(budget.used(), 100u);
  EXPECT_FALSE(budget.pressed());
  EXPECT_EQ(budget.take(b, 1, 5000), 900u);
  budget.count_stall();
  EXPECT_EQ(stalls.load(), 1u);
}

TEST(MemoryBudget, InputLeavesTheReplyReserve) {
  std::atomic<std::uint64_t> used{0}, stalls{0};
  memory_budget budget(1000, 100, 300, used, stalls);
  memory_charge a, b;
  EXPECT_EQ(budget.take_input(a, 1, 5000), 700u);
  EXPECT_EQ(a.input, 700u);
  EXPECT_EQ(budget.input_used(), 700u);
  // the clients' input holds all it may: replies still find the reserve
  EXPECT_EQ(budget.take_input(a, 1, 5000), 0u);
  EXPECT_EQ(budget.take_input(b, 1, 5000), 100u);  // the allowance stays
  EXPECT_EQ(budget.take(a, 1, 5000), 200u);
  EXPECT_EQ(budget.used(), 1000u);
  EXPECT_EQ(budget.input_used(), 800u);
  // replies that took the reserve hold input back too
  budget.recharge(a, 600, 500);
  EXPECT_EQ(budget.input_used(), 600u);
  EXPECT_EQ(budget.take_input(a, 1, 5000), 100u);  // the input's share binds first
  EXPECT_EQ(budget.take(a, 1, 5000), 200u);        // and the rest is the replies'
  EXPECT_EQ(budget.used(), 1000u);
  budget.recharge(a, 0, 0);
  budget.recharge(b, 0, 0);
  EXPECT_EQ(budget.input_used(), 0u);
  EXPECT_EQ(budget.used(), 0u);
}

TEST(MemoryBudget, ConcurrentTakesNeverPassTheLimit) {
  std::atomic<std::uint64_t> used{0}, stalls{0};
  constexpr std::size_t limit = 1 << 20;
  memory_budget budget(limit, 0, 4096, used, stalls);
  std::vector<memory_charge> charges(8);
  std::vector<std::thread> threads;
  for (memory_charge& charge : charges) {
    threads.emplace_back([&budget, &charge] {
      for (int i = 0; i < 20000; ++i) {
        if (i % 2 == 0) {
          budget.take_input(charge, 1, 1000);
        } else {
          budget.take(charge, 1, 700);
        }
        if (i % 97 == 0) budget.recharge(charge, charge.total / 2, charge.input / 2);
      }
    });
  }
  for (std::thread& each : threads) each.join();
  std::size_t total = 0, input = 0;
  for (const memory_charge& charge : charges) {
    total += charge.total;
    input += charge.input;
  }
  EXPECT_EQ(budget.used(), total);
  EXPECT_EQ(budget.input_used(), input);
  EXPECT_LE(total, limit);
  EXPECT_LE(input, limit - 4096);
}

TEST(MemoryBudget, ZeroIsNoLimit) {
  std::atomic<std::uint64_t> used{0}, stalls{0};
  memory_budget budget(0, 100, 300, used, stalls);
  memory_charge a;
  budget.recharge(a, std::size_t{1} << 40, std::size_t{1} << 40);
  EXPECT_EQ(budget.take(a, 1, 12345), 12345u);
  EXPECT_EQ(budget.take_input(a, 1, 12345), 12345u);
  EXPECT_FALSE(budget.pressed());
}

}  // namespace
}  // namespace gpuhash::server::net
