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

using ref_history = key_history<std::uint32_t, observed_ref_call<std::uint32_t>>;

TEST(serial_order_of_ref_calls, accepts_sums_in_any_order) {
  // Two applies and a find that saw the first one's sum.
  ref_history h{std::nullopt,
                {{ref_call::insert_or_apply_plus, 5, status::updated, 0},
                 {ref_call::find, 0, status::found, 3},
                 {ref_call::insert_or_apply_plus, 3, status::inserted, 0}},
                8u};
  EXPECT_TRUE(has_serial_order(h));
}

TEST(serial_order_of_ref_calls, rejects_a_lost_or_doubled_apply) {
  ref_history lost{1u,
                   {{ref_call::insert_or_apply_plus, 2, status::updated, 0},
                    {ref_call::insert_or_apply_plus, 4, status::updated, 0}},
                   5u};
  EXPECT_FALSE(has_serial_order(lost));
  lost.after = 7u;
  EXPECT_TRUE(has_serial_order(lost));
  ref_history two_inserts{std::nullopt,
                          {{ref_call::insert_or_apply_plus, 2, status::inserted, 0},
                           {ref_call::insert_or_apply_plus, 4, status::inserted, 0}},
                          6u};
  EXPECT_FALSE(has_serial_order(two_inserts));
}

TEST(serial_order_of_ref_calls, follows_erase_and_reinsert) {
  ref_history h{9u,
                {{ref_call::erase, 0, status::erased, 0},
                 {ref_call::insert_or_apply_plus, 4, status::inserted, 0},
                 {ref_call::insert, 1, status::exists, 0},
                 {ref_call::insert_or_assign, 6, status::updated, 0}},
                6u};
  EXPECT_TRUE(has_serial_order(h));
  h.operations[3].result = status::inserted;
  EXPECT_FALSE(has_serial_order(h));
}

TEST(serial_order_of_ref_calls, accepts_full_only_for_an_absent_key) {
  ref_history h{std::nullopt,
                {{ref_call::insert, 3, status::full, 0},
                 {ref_call::insert_or_apply_plus, 5, status::full, 0}},
                std::nullopt};
  EXPECT_TRUE(has_serial_order(h));
  h.before = 1u;
  h.after = 1u;
  EXPECT_FALSE(has_serial_order(h));
  ref_history after_erase{
      1u,
      {{ref_call::insert_or_assign, 4, status::full, 0}, {ref_call::erase, 0, status::erased, 0}},
      std::nullopt};
  EXPECT_TRUE(has_serial_order(after_erase));
  after_erase.operations[1].result = status::full;
  EXPECT_FALSE(has_serial_order(after_erase)) << "erase never answers full";
}

TEST(serial_order_of_ref_calls, wraps_sums_as_the_value_type_does) {
  ref_history h{0xffffffffu, {{ref_call::insert_or_apply_plus, 2, status::updated, 0}}, 1u};
  EXPECT_TRUE(has_serial_order(h));
}

}  // namespace
}  // namespace gpuhash::testing
