// A connection's input parsed into a group (net/group_parser.hpp): the share
// of a round (-R), and what is left for the next one.

#include "net/group_parser.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace gpuhash::server::net {
namespace {

std::string repeated(std::string_view request, std::size_t times) {
  std::string out;
  for (std::size_t i = 0; i < times; ++i) out += request;
  return out;
}

class GroupParser : public ::testing::Test {
 protected:
  parsed_input parse(std::string_view input, std::size_t share) {
    group_.reset();
    group_bounds bounds;
    bounds.share = share;
    bounds.key_records = key_records_;
    return parse_group(input, limits_, bounds, swallow_, group_);
  }

  protocol::parser_limits limits_;
  std::size_t key_records_ = std::numeric_limits<std::size_t>::max();
  std::size_t swallow_ = 0;
  engine::request_group group_;
};

TEST_F(GroupParser, TakesItsShareAndLeavesTheRestForTheNextRound) {
  const std::string input = repeated("get k\r\n", 12);
  const parsed_input first = parse(input, 5);
  EXPECT_EQ(group_.used, 5u);
  EXPECT_EQ(first.consumed, 5 * 7u);
  EXPECT_TRUE(first.share_full);
  const parsed_input second = parse(std::string_view(input).substr(first.consumed), 5);
  EXPECT_EQ(group_.used, 5u);
  EXPECT_TRUE(second.share_full);
  const parsed_input last = parse(std::string_view(input).substr(35 + second.consumed), 5);
  EXPECT_EQ(group_.used, 2u);
  EXPECT_FALSE(last.share_full);
  EXPECT_EQ(last.consumed, 2 * 7u);
}

TEST_F(GroupParser, AShareThatTakesEveryCompleteRequestDoesNotYield) {
  // exactly the share, then nothing or only part of a request: nothing waits
  for (const std::string tail : {"", "get", "set k 0 0 5\r\nab"}) {
    SCOPED_TRACE(tail);
    const std::string input = repeated("get k\r\n", 5) + tail;
    const parsed_input parsed = parse(input, 5);
    EXPECT_EQ(group_.used, 5u);
    EXPECT_EQ(parsed.consumed, 35u);
    EXPECT_FALSE(parsed.share_full);
  }
}

TEST_F(GroupParser, ARefusalPastTheShareWaitsLikeAnyRequest) {
  const std::string input = "get a\r\nbogus\r\nget b\r\n";
  const parsed_input parsed = parse(input, 1);
  EXPECT_EQ(group_.used, 1u);
  EXPECT_EQ(parsed.consumed, 7u);
  EXPECT_TRUE(parsed.share_full);
  EXPECT_FALSE(group_.items[0].is_error());
  const parsed_input rest = parse(std::string_view(input).substr(7), 5);
  EXPECT_EQ(group_.used, 2u);
  EXPECT_EQ(group_.items[0].error_reply, "ERROR\r\n");
  EXPECT_FALSE(rest.share_full);
}

TEST_F(GroupParser, NothingRunsAfterAQuit) {
  const parsed_input parsed = parse("get a\r\nquit\r\nget b\r\nget c\r\n", 2);
  EXPECT_EQ(group_.used, 2u);
  EXPECT_EQ(group_.items[1].request.kind, protocol::command::quit);
  EXPECT_FALSE(parsed.share_full);
}

TEST_F(GroupParser, ARefusedValueIsDroppedAcrossReads) {
  limits_.item_size_max = 4;
  // the value (10 bytes and "\r\n") is refused before it has all come
  const parsed_input parsed = parse("set k 0 0 10\r\n01234", 5);
  EXPECT_EQ(group_.used, 1u);
  EXPECT_EQ(group_.items[0].error_reply, "SERVER_ERROR object too large for cache\r\n");
  EXPECT_TRUE(group_.items[0].drops_key);
  EXPECT_EQ(parsed.consumed, 19u);
  EXPECT_EQ(swallow_, 7u);
  // the rest of it comes with the next request
  const parsed_input next = parse("56789\r\nget k\r\n", 5);
  EXPECT_EQ(swallow_, 0u);
  EXPECT_EQ(group_.used, 1u);
  EXPECT_EQ(group_.items[0].request.kind, protocol::command::get);
  EXPECT_EQ(next.consumed, 14u);
}

TEST_F(GroupParser, AMultiGetWhoseKeysDoNotFitIsAnsweredOutOfMemory) {
  // room for 5 keys' records in the whole group (a view and a signature each)
  key_records_ = 5 * (sizeof(std::string_view) + sizeof(std::uint32_t));
  const parsed_input parsed =
      parse("get a b c\r\ngets d e f\r\nget g h\r\nmg x v\r\nget i j k l m n\r\n", 10);
  ASSERT_EQ(group_.used, 5u);
  EXPECT_EQ(parsed.multigets_refused, 2u);
  EXPECT_FALSE(group_.items[0].is_error());
  EXPECT_EQ(group_.items[0].request.keys.size(), 3u);
  EXPECT_EQ(group_.items[1].error_reply, out_of_memory_for_get);  // 3 more than the 2 left
  EXPECT_TRUE(group_.items[1].request.keys.empty());
  EXPECT_FALSE(group_.items[2].is_error());  // those 2
  EXPECT_FALSE(group_.items[3].is_error());  // one key, not a multi-get's
  EXPECT_EQ(group_.items[4].error_reply, out_of_memory_for_get);
  EXPECT_FALSE(parsed.share_full);
}

TEST_F(GroupParser, WithoutALimitAnyMultiGetIsTaken) {
  std::string line = "get";
  for (int i = 0; i < 10000; ++i) line += " k" + std::to_string(i);
  line += "\r\n";
  const parsed_input parsed = parse(line, 5);
  ASSERT_EQ(group_.used, 1u);
  EXPECT_EQ(parsed.multigets_refused, 0u);
  EXPECT_EQ(group_.items[0].request.keys.size(), 10000u);
}

}  // namespace
}  // namespace gpuhash::server::net
