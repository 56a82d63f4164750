// A connection's memory against the budget (net/connection_memory.hpp): what
// could never fit under the limit.

#include "net/connection_memory.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <limits>

namespace gpuhash::server::net {
namespace {

constexpr std::size_t limit = 1u << 20;
constexpr std::size_t reply_reserve = 256u << 10;

class ConnectionMemory : public ::testing::Test {
 protected:
  std::atomic<std::uint64_t> used_{0}, stalls_{0};
  memory_budget budget_{limit, connection_allowance, reply_reserve, used_, stalls_};
  connection conn_;

  void hold_input(std::size_t bytes) {
    conn_.input.reserve(bytes);
    recharge(conn_, budget_);
  }
};

TEST_F(ConnectionMemory, KeyRecordsMayTakeWhatTheLimitHoldsBesideTheInput) {
  EXPECT_EQ(key_records_room(conn_, budget_), limit - conn_.charged.input);
  hold_input(300u << 10);
  ASSERT_GE(conn_.charged.input, 300u << 10);
  EXPECT_EQ(key_records_room(conn_, budget_), limit - conn_.charged.input);
  // other connections' memory is not counted: it may be given back
  connection other;
  other.output.reserve(900u << 10);
  recharge(other, budget_);
  EXPECT_EQ(key_records_room(conn_, budget_), limit - conn_.charged.input);
  hold_input(2 * limit);
  EXPECT_EQ(key_records_room(conn_, budget_), 0u);
  release_all(other, budget_);
  release_all(conn_, budget_);
}

TEST_F(ConnectionMemory, InputReachesTheCeilingOnlyAlone) {
  EXPECT_EQ(budget_.input_ceiling(), limit - reply_reserve);
  hold_input((limit - reply_reserve) / 2);
  EXPECT_FALSE(input_at_ceiling(conn_, budget_));
  hold_input(limit - reply_reserve);
  EXPECT_TRUE(input_at_ceiling(conn_, budget_));
  release_all(conn_, budget_);
}

TEST(ConnectionMemoryWithoutLimit, NothingIsEverOutOfRoom) {
  std::atomic<std::uint64_t> used{0}, stalls{0};
  memory_budget budget(0, connection_allowance, reply_reserve, used, stalls);
  connection conn;
  conn.input.reserve(64u << 20);
  recharge(conn, budget);
  EXPECT_EQ(key_records_room(conn, budget), std::numeric_limits<std::size_t>::max());
  EXPECT_FALSE(input_at_ceiling(conn, budget));
  release_all(conn, budget);
}

}  // namespace
}  // namespace gpuhash::server::net
