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

// Takes race each other and the recharges that give memory back: at no
// moment may the counters pass the limits (each thread looks after each of
// its takes), and nothing is lost (the counters end equal to the charges).
TEST(MemoryBudget, ConcurrentTakesAndGiveBacksStayWithinTheLimitsAtEveryMoment) {
  std::atomic<std::uint64_t> used{0}, stalls{0};
  constexpr std::size_t limit = 64 << 10;
  constexpr std::size_t reserve = 16 << 10;
  constexpr std::size_t allowance = 1 << 10;
  constexpr std::size_t connections = 8;
  memory_budget budget(limit, allowance, reserve, used, stalls);
  std::vector<memory_charge> charges(connections);
  std::atomic<std::size_t> past_total{0}, past_input{0}, refused{0};
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < connections; ++t) {
    threads.emplace_back([&, t] {
      memory_charge& charge = charges[t];
      std::uint64_t state = t + 1;
      const auto next = [&state] {  // xorshift: a different mix of sizes on every thread
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return state;
      };
      for (int i = 0; i < 50000; ++i) {
        const std::size_t most = 1 + next() % 4096;
        const std::size_t least = next() % 2 == 0 ? 1 : most / 2;
        const std::size_t taken = next() % 2 == 0 ? budget.take_input(charge, least, most)
                                                  : budget.take(charge, least, most);
        if (taken == 0) ++refused;
        if (budget.used() > limit + connections * allowance) ++past_total;
        if (budget.input_used() > limit - reserve + connections * allowance) ++past_input;
        if (next() % 8 == 0) budget.recharge(charge, charge.total / 3, charge.input / 3);
      }
    });
  }
  for (std::thread& each : threads) each.join();
  EXPECT_EQ(past_total.load(), 0u);
  EXPECT_EQ(past_input.load(), 0u);
  EXPECT_GT(refused.load(), 0u) << "the budget was never full: the test tests nothing";
  std::size_t total = 0, input = 0;
  for (const memory_charge& charge : charges) {
    total += charge.total;
    input += charge.input;
  }
  EXPECT_EQ(budget.used(), total);
  EXPECT_EQ(budget.input_used(), input);
  for (memory_charge& charge : charges) budget.recharge(charge, 0, 0);
  EXPECT_EQ(budget.used(), 0u);
  EXPECT_EQ(budget.input_used(), 0u);
}

// Without give-backs, concurrent takes of a byte or a few fill the budget
// to the byte: none takes past the limit, and none is refused while room is
// left (input up to the reply reserve, the replies the rest).
TEST(MemoryBudget, ConcurrentTakesFillTheBudgetExactly) {
  std::atomic<std::uint64_t> used{0}, stalls{0};
  constexpr std::size_t limit = 2000000;
  constexpr std::size_t reserve = 500000;
  memory_budget budget(limit, 0, reserve, used, stalls);
  constexpr std::size_t connections = 8;
  std::vector<memory_charge> charges(connections);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < connections; ++t) {
    threads.emplace_back([&, t] {
      memory_charge& charge = charges[t];
      bool input_refused = false;
      bool reply_refused = false;
      for (std::size_t i = 0; !input_refused || !reply_refused; ++i) {
        const std::size_t most = 1 + (i + t) % 7;
        // input first, mostly, so that it meets its ceiling before the total fills
        if (!input_refused && (i % 4 != 0 || reply_refused)) {
          input_refused = budget.take_input(charge, 1, most) == 0;
        } else if (input_refused || i % 4 == 0) {
          reply_refused = budget.take(charge, 1, most) == 0;
        }
      }
    });
  }
  for (std::thread& each : threads) each.join();
  std::size_t total = 0, input = 0;
  for (const memory_charge& charge : charges) {
    total += charge.total;
    input += charge.input;
  }
  EXPECT_EQ(total, limit);
  EXPECT_EQ(budget.used(), limit);
  EXPECT_EQ(budget.input_used(), input);
  EXPECT_LE(input, limit - reserve);
  memory_charge late;
  EXPECT_EQ(budget.take(late, 1, 1), 0u);
  EXPECT_EQ(budget.take_input(late, 1, 1), 0u);
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
