// The connections' memory budget (net/memory_budget.hpp).

#include "net/memory_budget.hpp"

#include <gtest/gtest.h>

#include <memory>
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

constexpr std::size_t chunk = budget_share::chunk;

TEST(BudgetShare, TakesFromTheBudgetAChunkAtATime) {
  std::atomic<std::uint64_t> used{0}, stalls{0};
  memory_budget budget(16 * chunk, 100, 0, used, stalls);
  budget_share share(budget);
  memory_charge a, b;
  EXPECT_EQ(share.take(a, 1, 1000), 1000u);
  EXPECT_EQ(a.total, 1000u);
  EXPECT_EQ(budget.used(), 1000 + chunk);  // a chunk more than the take needed
  EXPECT_EQ(share.take_input(b, 1, 3000), 3000u);
  EXPECT_EQ(b.input, 3000u);
  EXPECT_EQ(budget.input_used(), 3000 + chunk);
  EXPECT_EQ(share.take(b, 1, 2000), 2000u);  // from what the share holds
  EXPECT_EQ(budget.used(), 1000 + chunk + 3000 + chunk);
  EXPECT_EQ(share.used().total, 6000u);
  // given back to the share, which keeps up to two chunks unused
  share.recharge(a, 0, 0);
  EXPECT_EQ(budget.used(), 4000 + 2 * chunk);
  share.recharge(b, 0, 0);
  EXPECT_EQ(budget.used(), chunk);
  EXPECT_EQ(budget.input_used(), std::min<std::size_t>(3000 + chunk, chunk));
  share.flush();
  EXPECT_EQ(budget.used(), 0u);
  EXPECT_EQ(budget.input_used(), 0u);
}

TEST(BudgetShare, KeepsTheBudgetsRulesThroughShares) {
  // MemoryBudget.EachConnectionHasItsAllowanceThenTheSharedLimit, each
  // connection on a worker of its own
  std::atomic<std::uint64_t> used{0}, stalls{0};
  memory_budget budget(1000, 100, 0, used, stalls);
  budget_share first(budget), second(budget);
  memory_charge a, b;
  EXPECT_EQ(first.take(a, 1, 950), 950u);
  EXPECT_LE(budget.used(), 1000u);          // never a chunk past the limit
  EXPECT_EQ(first.take(a, 100, 5000), 0u);  // past its allowance, and the limit is near
  EXPECT_EQ(a.total, 950u);
  EXPECT_EQ(first.take(a, 1, 5000), 50u);
  EXPECT_EQ(second.take(b, 1, 5000), 100u);  // another connection still has its allowance
  EXPECT_EQ(budget.used(), 1100u);
  EXPECT_EQ(first.take(a, 0, 5000), 0u);
  EXPECT_EQ(budget.used(), 1100u);  // a refused take takes nothing from the budget
  EXPECT_TRUE(first.pressed());
  const std::uint64_t given_back = budget.given_back();
  first.recharge(a, 0, 0);
  first.flush();
  EXPECT_NE(budget.given_back(), given_back);
  EXPECT_EQ(budget.used(), 100u);
  EXPECT_EQ(second.take(b, 1, 5000), 900u);
}

TEST(BudgetShare, InputLeavesTheReplyReserve) {
  std::atomic<std::uint64_t> used{0}, stalls{0};
  memory_budget budget(1000, 100, 300, used, stalls);
  budget_share share(budget), other(budget);
  memory_charge a, b;
  EXPECT_EQ(share.take_input(a, 1, 5000), 700u);
  EXPECT_EQ(share.take_input(a, 1, 5000), 0u);
  EXPECT_EQ(other.take_input(b, 1, 5000), 100u);  // the allowance stays
  EXPECT_EQ(share.take(a, 1, 5000), 200u);
  EXPECT_EQ(budget.used(), 1000u);
  EXPECT_EQ(budget.input_used(), 800u);
}

// Workers of several connections each, racing through their shares: at no
// moment may the budget's counters pass the limits by more than the
// connections' allowances and two chunks a share, and nothing is lost.
TEST(BudgetShare, ConcurrentSharesStayWithinTheLimitsAtEveryMoment) {
  std::atomic<std::uint64_t> used{0}, stalls{0};
  constexpr std::size_t limit = 1 << 20;
  constexpr std::size_t reserve = 64 << 10;
  constexpr std::size_t allowance = 1 << 10;
  constexpr std::size_t workers = 4;
  constexpr std::size_t per_worker = 4;
  constexpr std::size_t slack = workers * per_worker * allowance + workers * 2 * chunk;
  memory_budget budget(limit, allowance, reserve, used, stalls);
  std::vector<std::unique_ptr<budget_share>> shares;
  for (std::size_t w = 0; w < workers; ++w)
    shares.push_back(std::make_unique<budget_share>(budget));
  std::vector<memory_charge> charges(workers * per_worker);
  std::atomic<std::size_t> past_total{0}, past_input{0}, refused{0};
  std::vector<std::thread> threads;
  for (std::size_t w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      budget_share& share = *shares[w];
      std::uint64_t state = w + 1;
      const auto next = [&state] {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return state;
      };
      for (int i = 0; i < 50000; ++i) {
        memory_charge& charge = charges[w * per_worker + next() % per_worker];
        const std::size_t most = 1 + next() % (16 << 10);
        const std::size_t least = next() % 2 == 0 ? 1 : most / 2;
        const std::size_t taken = next() % 2 == 0 ? share.take_input(charge, least, most)
                                                  : share.take(charge, least, most);
        if (taken == 0) ++refused;
        if (budget.used() > limit + slack) ++past_total;
        if (budget.input_used() > limit - reserve + slack) ++past_input;
        if (next() % 8 == 0) share.recharge(charge, charge.total / 3, charge.input / 3);
        if (next() % 1024 == 0) share.flush();  // as a worker that sleeps
      }
      share.flush();
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
  for (std::size_t w = 0; w < workers; ++w)
    for (std::size_t c = 0; c < per_worker; ++c)
      shares[w]->recharge(charges[w * per_worker + c], 0, 0);
  for (auto& share : shares) share->flush();
  EXPECT_EQ(budget.used(), 0u);
  EXPECT_EQ(budget.input_used(), 0u);
}

}  // namespace
}  // namespace gpuhash::server::net
