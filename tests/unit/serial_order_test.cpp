// The mixed-batch checker must accept what a serial execution can produce and
// reject what none can: a checker that accepts everything would hide bugs.

#include <gtest/gtest.h>

#include <cstdint>

#include "support/serial_order.hpp"

namespace gpuhash::testing {
namespace {

using history = key_history<std::uint32_t>;

TEST(serial_order, accepts_an_order_that_differs_from_batch_order) {
  // Batch order: search, insert. Observed: search found the inserted value,
  // which is explained by running the insert first.
  history h{std::nullopt,
            {{operation::search, 0, status::found, 7}, {operation::insert, 7, status::inserted, 0}},
            7};
  EXPECT_TRUE(has_serial_order(h));
}

TEST(serial_order, rejects_two_inserts_of_one_key) {
  history h{
      std::nullopt,
      {{operation::insert, 1, status::inserted, 0}, {operation::insert, 2, status::inserted, 0}},
      2};
  EXPECT_FALSE(has_serial_order(h));
}

TEST(serial_order, accepts_insert_erase_insert) {
  history h{std::nullopt,
            {{operation::insert, 1, status::inserted, 0},
             {operation::insert, 2, status::inserted, 0},
             {operation::erase, 0, status::erased, 0}},
            2};
  EXPECT_TRUE(has_serial_order(h));
}

TEST(serial_order, rejects_a_value_nobody_wrote) {
  history h{5u, {{operation::search, 0, status::found, 6}}, 5u};
  EXPECT_FALSE(has_serial_order(h));
}

TEST(serial_order, rejects_a_wrong_final_state) {
  history h{std::nullopt, {{operation::upsert, 3, status::inserted, 0}}, std::nullopt};
  EXPECT_FALSE(has_serial_order(h));
  h.after = 4u;
  EXPECT_FALSE(has_serial_order(h));
  h.after = 3u;
  EXPECT_TRUE(has_serial_order(h));
}

TEST(serial_order, rejects_not_found_for_a_key_always_present) {
  history h{1u, {{operation::update, 2, status::not_found, 0}}, 1u};
  EXPECT_FALSE(has_serial_order(h));
}

TEST(serial_order, rejects_invalid_statuses) {
  history h{1u, {{operation::search, 0, status::full, 0}}, 1u};
  EXPECT_FALSE(has_serial_order(h));
}

}  // namespace
}  // namespace gpuhash::testing
