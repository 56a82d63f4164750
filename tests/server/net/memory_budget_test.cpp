// The connections' memory budget (net/memory_budget.hpp).

#include "net/memory_budget.hpp"

#include <gtest/gtest.h>

namespace gpuhash::server::net {
namespace {

TEST(MemoryBudget, EachConnectionHasItsAllowanceThenTheSharedLimit) {
  std::atomic<std::uint64_t> used{0}, stalls{0};
  memory_budget budget(1000, 100, used, stalls);
  std::size_t a = 0, b = 0;
  EXPECT_TRUE(budget.may_grow(a, 100));
  EXPECT_EQ(budget.room(a, 5000), 1000u);
  budget.recharge(a, 950);
  EXPECT_EQ(budget.used(), 950u);
  EXPECT_FALSE(budget.may_grow(a, 100));  // past its allowance, and the limit is near
  EXPECT_TRUE(budget.may_grow(a, 50));
  EXPECT_EQ(budget.room(a, 5000), 50u);
  // another connection still has its allowance
  EXPECT_TRUE(budget.may_grow(b, 100));
  EXPECT_EQ(budget.room(b, 5000), 100u);
  budget.recharge(b, 100);
  EXPECT_EQ(budget.room(a, 5000), 0u);
  EXPECT_TRUE(budget.pressed());
  // what a connection gives back is anyone's again
  budget.recharge(a, 0);
  EXPECT_EQ(a, 0u);
  EXPECT_EQ(budget.used(), 100u);
  EXPECT_EQ(budget.room(b, 5000), 900u);
  EXPECT_FALSE(budget.pressed());
  budget.count_stall();
  EXPECT_EQ(stalls.load(), 1u);
}

TEST(MemoryBudget, ZeroIsNoLimit) {
  std::atomic<std::uint64_t> used{0}, stalls{0};
  memory_budget budget(0, 100, used, stalls);
  std::size_t a = 0;
  budget.recharge(a, std::size_t{1} << 40);
  EXPECT_TRUE(budget.may_grow(a, std::size_t{1} << 40));
  EXPECT_EQ(budget.room(a, 12345), 12345u);
  EXPECT_FALSE(budget.pressed());
}

}  // namespace
}  // namespace gpuhash::server::net
