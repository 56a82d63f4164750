// Tests of an engine of several shards (harness_config::shards): a group whose
// keys fall in several shards runs in parts, and its replies must be those
// one shard gives, in request order (random pipelines, multi-gets, flush_all);
// `stats` adds the shards up; metadump lists every shard; CAS uniques stay
// unique over the shards; a multi-get larger than the reply budget comes back
// in rounds, in order, as the network layer resubmits it; a value larger than
// the budget waits for the room it asks for; a metadump comes in pieces.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/engine_harness.hpp"
#include "tests/support/random.hpp"

namespace gpuhash::server::engine::testing {
namespace {

using gpuhash::testing::seeded_random;

constexpr std::size_t shards = 4;

harness_config sharded(batch_runner runner) {
  harness_config config = cpu_config();
  config.shards = shards;
  config.runner = runner;
  return config;
}

/// A random request of the kinds whose replies do not show CAS values, on
/// keys enough to spread over every shard; multi-gets of up to 12 keys.
std::string random_request(seeded_random& random) {
  const auto key = [&] { return "s" + std::to_string(random.below(40)); };
  const std::string value = random.below(3) == 0 ? "text" : std::to_string(random.below(1000));
  switch (random.below(16)) {
    case 0:
    case 1: return store_text("set", key(), value, static_cast<std::uint32_t>(random.below(4)));
    case 2: return store_text("add", key(), value);
    case 3: return store_text("replace", key(), value);
    case 4: return store_text("append", key(), std::to_string(random.below(10)));
    case 5: return "delete " + key() + (random.below(4) == 0 ? " noreply" : "") + "\r\n";
    case 6: return "incr " + key() + " " + std::to_string(random.below(100)) + "\r\n";
    case 7: return "touch " + key() + " 0\r\n";
    case 8: return "mg " + key() + " v k f s\r\n";
    case 9: return "ms " + key() + " " + std::to_string(value.size()) + " T0\r\n" + value + "\r\n";
    case 10: return "md " + key() + " q\r\n";
    case 11: return random.below(8) == 0 ? "flush_all\r\n" : "mn\r\n";
    case 12: return random.below(2) == 0 ? "version\r\n" : "bogus\r\n";
    default: {
      std::string text = random.below(2) == 0 ? "get" : "gat 0";
      const std::size_t keys = 1 + random.below(12);
      for (std::size_t k = 0; k < keys; ++k) text += " " + key();
      return text + "\r\n";
    }
  }
}

void answers_as_one_shard(batch_runner runner, bool statuses_late = false) {
  seeded_random random;
  engine_harness one;
  harness_config config = sharded(runner);
  config.statuses_late = statuses_late;
  engine_harness several(std::move(config));
  for (std::size_t g = 0; g < 300; ++g) {
    std::string text;
    const std::size_t requests = 1 + random.below(6);
    for (std::size_t r = 0; r < requests; ++r) text += random_request(random);
    ASSERT_EQ(several.run(text), one.run(text)) << "group " << g << ":\n" << text;
  }
  several.expect_index_matches_items();
}

TEST(Shards, RandomPipelinesAnswerAsOneShardDoesWithABatchThread) {
  answers_as_one_shard(batch_runner::batch_thread);
}

TEST(Shards, RandomPipelinesAnswerAsOneShardDoesOnTheSubmittingThread) {
  answers_as_one_shard(batch_runner::submitting_thread);
}

TEST(Shards, RandomPipelinesAnswerAsOneShardDoesAsWithTheGpuIndex) {
  // statuses one batch late (index_service::defers_mutations), and a
  // submitter to an idle shard running its own batch
  answers_as_one_shard(batch_runner::batch_thread_unless_idle, true);
}

TEST(Shards, AMultiGetAnswersInTheKeysOrder) {
  engine_harness harness(sharded(batch_runner::batch_thread));
  std::string sets;
  std::string get = "get";
  std::vector<std::pair<std::string, std::string>> expected;
  for (std::size_t n = 0; n < 64; ++n) {
    sets += store_text("set", key_of(n), value_of(n));
    if (n % 3 != 0) continue;
    get += " " + key_of(n) + " missing" + std::to_string(n);
    expected.emplace_back(key_of(n), value_of(n));
  }
  ASSERT_EQ(harness.run(sets).size(), 64 * std::string_view("STORED\r\n").size());
  EXPECT_EQ(harness.run(get + "\r\n"), values_reply(expected));
  // the same key twice, and a flush between two reads of one group
  EXPECT_EQ(harness.run("get k1 k1\r\nflush_all\r\nget k1 k2 k4\r\n"),
            "VALUE k1 0 " + std::to_string(value_of(1).size()) + "\r\n" + value_of(1) +
                "\r\nVALUE k1 0 " + std::to_string(value_of(1).size()) + "\r\n" + value_of(1) +
                "\r\nEND\r\nOK\r\nEND\r\n");
}

/// The GPU index's runner (a submitter that finds a shard idle runs its
/// batch), with the CPU index giving its statuses late as the GPU's does.
harness_config as_with_the_gpu_index() {
  harness_config config = sharded(batch_runner::batch_thread_unless_idle);
  config.statuses_late = true;
  return config;
}

struct multi_get_case {
  std::string sets;  ///< keys 0 to n - 1
  std::string get;   ///< one multi-get of them, "\r\n" not included
  std::vector<std::pair<std::string, std::string>> expected;  ///< its values, in order
};

/// `n` sets, and a multi-get of their keys: in order, or backwards with a
/// missing key after every fifth.
multi_get_case sets_and_a_multi_get(std::size_t n, bool backwards_with_misses) {
  multi_get_case made;
  made.get = "get";
  for (std::size_t i = 0; i < n; ++i) {
    made.sets += store_text("set", key_of(i), value_of(i));
    const std::size_t k = backwards_with_misses ? n - 1 - i : i;
    made.get += " " + key_of(k);
    if (backwards_with_misses && i % 5 == 0) made.get += " missing" + std::to_string(i);
    made.expected.emplace_back(key_of(k), value_of(k));
  }
  return made;
}

TEST(Shards, AThreadThatFindsTheShardsIdleAnswersAMultiGetItself) {
  // With the GPU index's runner, a submitter that finds the shards idle
  // runs every part itself (the CPU index gives its statuses late here, as
  // the GPU's does), and has the whole reply, in the keys' order, when
  // submit returns.
  engine_harness harness(as_with_the_gpu_index());
  const auto [sets, get, expected] = sets_and_a_multi_get(48, true);
  const std::string stored = "STORED\r\n";
  const std::vector<std::pair<std::string, std::string>> runs = {
      {sets,
       [&] {
         std::string all;
         for (std::size_t n = 0; n < 48; ++n) all += stored;
         return all;
       }()},
      {get + "\r\n", values_reply(expected)}};
  for (const auto& [text, replies] : runs) {
    const auto parsed = harness.parse(text);
    harness.submit(*parsed);
    ASSERT_TRUE(parsed->done) << "not answered on the submitting thread: " << text;
    EXPECT_EQ(parsed->replies(), replies);
  }
  harness.expect_index_matches_items();
}

TEST(Shards, AThreadRunsTheIdleShardsBatchesEachInsideTheRoundTripOfTheOneBefore) {
  // A multi-get over idle shards, on the submitting thread: each shard's
  // part is submitted while the part before waits for its index (the CPU
  // index that gives its statuses late pretends to wait, as the GPU's does),
  // so the round trips overlap. 200 keys reach all four shards (but with
  // odds of 4 x 0.75^200), and three of their batches run inside another's.
  engine_harness harness(as_with_the_gpu_index());
  const auto [sets, get, expected] = sets_and_a_multi_get(200, false);
  harness.run(sets);
  // (A `stats` request runs on every shard, and its own parts are counted
  // after they have answered: in the next `stats`. They overlap as well: each
  // carries its shard's inserts of the sets, which wait for the shard's next
  // batch, even when its batch thread wakes before it: shard.cpp.)
  const std::size_t before = harness.stat("index_batches_overlapped");
  EXPECT_EQ(before, shards - 1);  // the sets' parts
  const auto parsed = harness.parse(get + "\r\n");
  harness.submit(*parsed);
  ASSERT_TRUE(parsed->done) << "not answered on the submitting thread";
  EXPECT_EQ(parsed->replies(), values_reply(expected));
  EXPECT_EQ(harness.stat("index_batches_overlapped"), before + 2 * (shards - 1));
  harness.expect_index_matches_items();

  // A batch thread never runs one shard's batch inside another's.
  engine_harness threaded(sharded(batch_runner::batch_thread));
  threaded.run(sets);
  EXPECT_EQ(threaded.run(get + "\r\n"), values_reply(expected));
  EXPECT_EQ(threaded.stat("index_batches_overlapped"), 0u);
}

TEST(Shards, StatsAddUpOverTheShards) {
  harness_config config = sharded(batch_runner::batch_thread);
  const std::size_t memory_limit = config.store.memory_limit;
  engine_harness harness(std::move(config));
  std::string sets;
  for (std::size_t n = 0; n < 100; ++n) sets += store_text("set", key_of(n), value_of(n));
  harness.run(sets);
  std::string get = "get";
  for (std::size_t n = 0; n < 150; ++n) get += " " + key_of(n);
  harness.run(get + "\r\n");

  const auto values = harness.stats();
  EXPECT_EQ(values.at("curr_items"), "100");
  EXPECT_EQ(values.at("total_items"), "100");
  EXPECT_EQ(values.at("cmd_set"), "100");
  EXPECT_EQ(values.at("get_hits"), "100");
  EXPECT_EQ(values.at("get_misses"), "50");
  EXPECT_EQ(values.at("limit_maxbytes"), std::to_string(memory_limit));
  EXPECT_EQ(values.at("index"), "cpu");
  EXPECT_EQ(values.at("index_entries"), "100");
  EXPECT_EQ(values.at("pid"), std::to_string(getpid()));

  // classes in order, each once, and active_slabs counts classes, not shards
  const std::string slabs = harness.run("stats slabs\r\n");
  ASSERT_TRUE(slabs.ends_with("END\r\n")) << slabs;
  std::size_t classes = 0;
  std::size_t last_class = 0;
  for (std::size_t at = slabs.find(":chunk_size "); at != std::string::npos;
       at = slabs.find(":chunk_size ", at + 1)) {
    const std::size_t start = slabs.rfind("STAT ", at) + 5;
    const std::size_t number = std::stoul(slabs.substr(start, at - start));
    EXPECT_GT(number, last_class) << slabs;
    last_class = number;
    ++classes;
  }
  EXPECT_GE(classes, 1u);
  EXPECT_NE(slabs.find("STAT active_slabs " + std::to_string(classes) + "\r\n"), std::string::npos)
      << slabs;

  EXPECT_EQ(harness.run("stats reset\r\n"), "RESET\r\n");
  EXPECT_EQ(harness.stat("get_hits"), 0u);
  EXPECT_EQ(harness.stat("curr_items"), 100u);
  EXPECT_EQ(harness.run("stats bogus\r\n"), "ERROR\r\n");
}

TEST(Shards, MetadumpListsEveryShard) {
  engine_harness harness(sharded(batch_runner::batch_thread));
  std::string sets;
  for (std::size_t n = 0; n < 50; ++n) sets += store_text("set", key_of(n), value_of(n));
  harness.run(sets);
  const std::string all = harness.run("lru_crawler metadump all\r\n");
  ASSERT_TRUE(all.ends_with("END\r\n")) << all;
  std::set<std::string> listed;
  for (std::size_t at = all.find("key="); at != std::string::npos; at = all.find("key=", at + 1))
    listed.insert(all.substr(at + 4, all.find(' ', at) - at - 4));
  EXPECT_EQ(listed.size(), 50u);
  EXPECT_EQ(all.find("END"), all.size() - 5) << "one END, at the end";

  const std::string some = harness.run("lru_crawler metadump k7 nothing k3\r\n");
  const std::size_t seven = some.find("key=k7 ");
  const std::size_t three = some.find("key=k3 ");
  ASSERT_NE(seven, std::string::npos) << some;
  ASSERT_NE(three, std::string::npos) << some;
  EXPECT_LT(seven, three) << "in the keys' order";
  EXPECT_EQ(some.find("END"), some.size() - 5) << some;
}

TEST(Shards, CasUniquesAreUniqueOverTheShards) {
  engine_harness harness(sharded(batch_runner::batch_thread));
  std::string sets;
  std::string gets = "gets";
  for (std::size_t n = 0; n < 200; ++n) {
    sets += store_text("set", key_of(n), "v");
    gets += " " + key_of(n);
  }
  harness.run(sets);
  const std::string reply = harness.run(gets + "\r\n");
  std::set<std::string> uniques;
  std::size_t values = 0;
  for (std::size_t at = reply.find("VALUE "); at != std::string::npos;
       at = reply.find("VALUE ", at + 1)) {
    const std::size_t end = reply.find("\r\n", at);
    const std::size_t space = reply.rfind(' ', end);
    uniques.insert(reply.substr(space + 1, end - space - 1));
    ++values;
  }
  EXPECT_EQ(values, 200u);
  EXPECT_EQ(uniques.size(), 200u);
}

TEST(Shards, AMultiGetPastTheReplyBudgetComesBackInRoundsInOrder) {
  harness_config config = sharded(batch_runner::submitting_thread);
  config.store.memory_limit = 256u << 20;
  engine_harness harness(std::move(config));
  const std::string value(700u << 10, 'x');
  std::string get = "get";
  std::string expected;
  for (std::size_t n = 0; n < 24; ++n) {
    const std::string key = key_of(n);
    const std::string marked = key + value.substr(key.size());
    ASSERT_EQ(harness.run(store_text("set", key, marked)), "STORED\r\n");
    // each key twice, and a missing one between: 48 values, 33 MB
    get += " " + key + " absent " + key;
    const std::string one =
        "VALUE " + key + " 0 " + std::to_string(marked.size()) + "\r\n" + marked + "\r\n";
    expected += one + one;
  }
  expected += "END\r\n";

  const auto parsed = harness.parse(get + "\r\nmn\r\n");
  std::string replies;
  std::size_t rounds = 0;
  do {
    harness.submit(*parsed);
    harness.wait(*parsed);
    EXPECT_LE(parsed->replies().size(), 2 * request_group::reply_budget);
    replies += parsed->replies();
    ++rounds;
  } while (!parsed->group.finished() && rounds < 100);
  EXPECT_GT(rounds, 4u);
  EXPECT_EQ(replies.size(), expected.size() + 4);
  EXPECT_TRUE(replies == expected + "MN\r\n") << "the replies differ from the serial order";
}

// The submitter gives a group the memory it can (request_group::budget): a
// value that does not fit is not copied in, and the group asks for its room.
TEST(Shards, AValueLargerThanTheBudgetWaitsForItsRoom) {
  for (const std::size_t shard_count : {std::size_t{1}, shards}) {
    SCOPED_TRACE(shard_count);
    harness_config config = sharded(batch_runner::submitting_thread);
    config.shards = shard_count;
    engine_harness harness(std::move(config));
    const std::string value(100u << 10, 'v');
    ASSERT_EQ(harness.run(store_text("set", "large", value) + store_text("set", "small", "s")),
              "STORED\r\nSTORED\r\n");
    const auto parsed = harness.parse("get small large small\r\nmn\r\n");
    parsed->group.budget = 10u << 10;
    harness.submit(*parsed);
    harness.wait(*parsed);
    EXPECT_FALSE(parsed->group.finished());
    EXPECT_GE(parsed->group.room_wanted, value.size());
    std::string replies = parsed->replies();
    EXPECT_LE(replies.size(), 10u << 10);
    std::size_t rounds = 1;
    while (!parsed->group.finished() && rounds < 10) {
      parsed->group.budget =
          std::max(parsed->group.budget, parsed->group.room_wanted * shard_count);
      parsed->group.room_wanted = 0;
      harness.submit(*parsed);
      harness.wait(*parsed);
      replies += parsed->replies();
      ++rounds;
    }
    const std::string small = "VALUE small 0 1\r\ns\r\n";
    const std::string large =
        "VALUE large 0 " + std::to_string(value.size()) + "\r\n" + value + "\r\n";
    EXPECT_TRUE(replies == small + large + small + "END\r\nMN\r\n") << replies.substr(0, 200);
    // each key counted once, though the large one was looked up twice
    EXPECT_NE(harness.run("stats\r\n").find("STAT get_hits 3\r\n"), std::string::npos);
  }
}

TEST(Shards, AMetadumpComesInPiecesWithinTheBudget) {
  for (const std::size_t shard_count : {std::size_t{1}, shards}) {
    SCOPED_TRACE(shard_count);
    harness_config config = sharded(batch_runner::submitting_thread);
    config.shards = shard_count;
    engine_harness harness(std::move(config));
    std::string text;
    std::set<std::string> keys;
    for (int n = 0; n < 2000; ++n) {
      keys.insert("dump" + std::to_string(n));
      text += store_text("set", "dump" + std::to_string(n), "v");
    }
    harness.run(text);
    const auto parsed = harness.parse("lru_crawler metadump all\r\nmn\r\n");
    std::string replies;
    std::size_t rounds = 0;
    do {
      parsed->group.budget = 8u << 10;
      harness.submit(*parsed);
      harness.wait(*parsed);
      EXPECT_LE(parsed->replies().size(), (8u << 10) + 512);
      replies += parsed->replies();
      ++rounds;
    } while (!parsed->group.finished() && rounds < 1000);
    EXPECT_GT(rounds, 10u);
    ASSERT_TRUE(replies.ends_with("END\r\nMN\r\n"))
        << rounds << " rounds, " << replies.size() << " bytes, ending "
        << replies.substr(replies.size() - std::min<std::size_t>(replies.size(), 120));
    EXPECT_EQ(replies.find("END\r\n"), replies.size() - 9) << "one END";
    std::set<std::string> dumped;
    std::string_view rest(replies);
    while (rest.starts_with("key=")) {
      const std::size_t space = rest.find(' ');
      EXPECT_TRUE(dumped.insert(std::string(rest.substr(4, space - 4))).second);
      rest.remove_prefix(rest.find('\n') + 1);
    }
    EXPECT_EQ(dumped, keys);
  }
}

}  // namespace
}  // namespace gpuhash::server::engine::testing
