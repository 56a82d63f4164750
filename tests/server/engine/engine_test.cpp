// Tests of the engine's batches through its public API, with the index on the
// CPU: the harness; requests of one batch answer as the serial order, within
// a group and across groups (submitted from several threads); an item is
// visible from the resolve that links it, while its index insert is in
// flight; many threads at once, with a batch thread and with batches on the
// submitting threads. Index entries (signature collisions, stale
// entries) are in engine_index_test.cpp, the commands' own semantics in
// engine_commands_test.cpp.

#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "engine/engine_harness.hpp"
#include "tests/support/random.hpp"

namespace gpuhash::server::engine::testing {
namespace {

using gpuhash::testing::seeded_random;

std::string join(const std::vector<std::string>& parts) {
  std::string text;
  for (const std::string& part : parts) text += part;
  return text;
}

/// Each request alone in its own batch on a fresh engine: the serial order a
/// batch must match (CAS values included: the counter starts at 0).
std::vector<std::string> serial_replies(const std::vector<std::vector<std::string>>& groups) {
  engine_harness serial;
  std::vector<std::string> replies;
  for (const auto& group : groups) {
    std::string reply;
    for (const std::string& request : group) reply += serial.run(request);
    replies.push_back(reply);
  }
  return replies;
}

// ---- the harness itself --------------------------------------------------------

TEST(EngineHarness, HeldGroupsShareOneBatchAndWaitedGroupsDoNot) {
  engine_harness harness;
  const auto first = harness.parse("get a\r\n");
  const auto second = harness.parse("get b\r\n");
  harness.submit(*first);
  harness.wait(*first);
  harness.submit(*second);
  harness.wait(*second);
  EXPECT_EQ(second->batch, first->batch + 1);

  const auto replies = harness.run_together({"get a\r\n", "get b\r\n", "mn\r\n"});
  EXPECT_EQ(replies, (std::vector<std::string>{"END\r\n", "END\r\n", "MN\r\n"}));
  EXPECT_EQ(harness.batches_seen(), 4u);  // first, second, the gate, the three together
}

TEST(EngineHarness, ParsesErrorsInOrderAsTheNetworkLayerDoes) {
  engine_harness harness;
  EXPECT_EQ(harness.run("bogus\r\nmn\r\nget " + std::string(300, 'k') + "\r\nmn\r\n"),
            "ERROR\r\nMN\r\nCLIENT_ERROR bad command line format\r\nMN\r\n");
}

// ---- one batch answers as the serial order --------------------------------------

TEST(SameBatch, OneGroupAnswersAsTheSerialOrder) {
  // CAS values count from 1 on a fresh engine: set 1, add 2, append 3,
  // prepend 4, incr 5 (in place), cas 6, decr 7, replace 8.
  const std::vector<std::pair<std::string, std::string>> steps = {
      {store_text("set", "k", "a", 5), "STORED\r\n"},
      {"get k\r\n", value_reply("k", "a", 5)},
      {"delete k\r\n", "DELETED\r\n"},
      {"get k\r\n", "END\r\n"},
      {store_text("add", "k", "10"), "STORED\r\n"},
      {"get k\r\n", value_reply("k", "10")},
      {store_text("add", "k", "x"), "NOT_STORED\r\n"},
      {store_text("append", "k", "5"), "STORED\r\n"},
      {store_text("prepend", "k", "2"), "STORED\r\n"},
      {"incr k 3\r\n", "2108\r\n"},
      {"gets k\r\n", "VALUE k 0 4 5\r\n2108\r\nEND\r\n"},
      {"cas k 0 0 1 4\r\n7\r\n", "EXISTS\r\n"},
      {"cas k 0 0 1 5\r\n7\r\n", "STORED\r\n"},
      {"gets k\r\n", "VALUE k 0 1 6\r\n7\r\nEND\r\n"},
      {"decr k 10\r\n", "0\r\n"},
      {store_text("replace", "k", "z"), "STORED\r\n"},
      {"get k k\r\n", "VALUE k 0 1\r\nz\r\nVALUE k 0 1\r\nz\r\nEND\r\n"},
      {"delete k\r\n", "DELETED\r\n"},
      {store_text("replace", "k", "y"), "NOT_STORED\r\n"},
      {"cas k 0 0 1 8\r\n7\r\n", "NOT_FOUND\r\n"},
      {"incr k 1\r\n", "NOT_FOUND\r\n"},
      {"get k\r\n", "END\r\n"},
  };
  std::vector<std::string> requests;
  std::string expected;
  for (const auto& [request, reply] : steps) {
    requests.push_back(request);
    expected += reply;
  }
  engine_harness harness;
  EXPECT_EQ(harness.run(join(requests)), expected);
  EXPECT_EQ(serial_replies({requests}), std::vector<std::string>{expected});
  harness.expect_index_matches_items();
}

TEST(SameBatch, GroupsOfOneBatchSeeEachOtherInQueueOrder) {
  engine_harness harness;
  const auto replies = harness.run_together({
      store_text("set", "j", "1") + "incr j 4\r\n",
      "get j\r\ndelete j\r\n" + store_text("add", "j", "9") + "gets j\r\n",
      "get j\r\n" + store_text("set", "other", "o") + "delete j\r\nget j other\r\n",
  });
  ASSERT_EQ(replies.size(), 3u);
  EXPECT_EQ(replies[0], "STORED\r\n5\r\n");
  EXPECT_EQ(replies[1],
            "VALUE j 0 1\r\n5\r\nEND\r\nDELETED\r\nSTORED\r\nVALUE j 0 1 3\r\n9\r\nEND\r\n");
  EXPECT_EQ(replies[2],
            value_reply("j", "9") + "STORED\r\nDELETED\r\n" + value_reply("other", "o"));
  // and the next batch, whose searches meet the index that the first wrote
  EXPECT_EQ(harness.run("get j other\r\n"), value_reply("other", "o"));
  harness.expect_index_matches_items();
}

/// A random request on a handful of keys, so that requests of one batch meet.
std::string random_request(seeded_random& random) {
  const std::string key = "r" + std::to_string(random.below(5));
  const std::string other = "r" + std::to_string(random.below(5));
  const std::string value = random.below(3) == 0 ? "text" : std::to_string(random.below(1000));
  switch (random.below(13)) {
    case 0:
    case 1: return store_text("set", key, value, static_cast<std::uint32_t>(random.below(4)));
    case 2: return store_text("add", key, value);
    case 3: return store_text("replace", key, value);
    case 4: return store_text("append", key, std::to_string(random.below(10)));
    case 5: return store_text("prepend", key, std::to_string(random.below(10)));
    case 6: return "cas " + key + " 0 0 2 " + std::to_string(1 + random.below(30)) + "\r\n42\r\n";
    case 7: return "delete " + key + "\r\n";
    case 8: return "incr " + key + " " + std::to_string(random.below(100)) + "\r\n";
    case 9: return "decr " + key + " " + std::to_string(random.below(100)) + "\r\n";
    case 10: return "gets " + key + " " + other + "\r\n";
    case 11: return "touch " + key + " 0\r\n";
    default: return "get " + key + " " + other + "\r\n";
  }
}

TEST(SameBatch, RandomGroupsSubmittedFromThreadsAnswerAsTheSerialOrder) {
  seeded_random random;
  constexpr std::size_t threads = 4;
  constexpr std::size_t groups_per_thread = 25;
  std::vector<std::vector<std::string>> requests(threads * groups_per_thread);
  for (auto& group : requests) {
    group.resize(1 + random.below(4));
    for (std::string& request : group) request = random_request(random);
  }
  engine_harness harness;
  std::vector<std::unique_ptr<parsed_group>> groups;
  for (const auto& group : requests) groups.push_back(harness.parse(join(group)));

  harness.hold();
  std::vector<std::thread> submitters;
  for (std::size_t t = 0; t < threads; ++t) {
    submitters.emplace_back([&, t] {
      for (std::size_t g = t; g < groups.size(); g += threads) harness.submit(*groups[g]);
    });
  }
  for (std::thread& submitter : submitters) submitter.join();
  harness.release();
  for (auto& group : groups) harness.wait(*group);

  // the serial order is the order the threads happened to submit in
  std::vector<std::size_t> order(groups.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::ranges::sort(order, {}, [&](std::size_t g) { return groups[g]->submitted; });
  std::vector<std::vector<std::string>> ordered_requests;
  for (const std::size_t g : order) ordered_requests.push_back(requests[g]);
  const std::vector<std::string> expected = serial_replies(ordered_requests);
  for (std::size_t i = 0; i < order.size(); ++i) {
    const parsed_group& group = *groups[order[i]];
    EXPECT_EQ(group.batch, groups[order[0]]->batch) << "not one batch";
    EXPECT_EQ(group.replies(), expected[i]) << "group " << i << " of the batch:\n" << group.text();
  }
  harness.expect_index_matches_items();
}

// ---- an item is visible while its index insert is in flight -----------------------

TEST(Visibility, SetIsReadByTheSameTheNextAndLaterBatches) {
  // Group n sets k<n> and reads k<n>, k<n-1> (linked by the last batch: its
  // insert runs in this batch, beside the search) and k<n-2>. Each group is
  // submitted by the completion of the one before, so the batches follow
  // each other with no batch between them.
  constexpr std::size_t rounds = 200;
  engine_harness harness;
  std::vector<std::unique_ptr<parsed_group>> groups;
  std::vector<std::string> expected;
  for (std::size_t n = 0; n < rounds; ++n) {
    std::string text = store_text("set", key_of(n), value_of(n));
    std::string reply = "STORED\r\n";
    for (std::size_t back = 0; back <= 2; ++back) {
      text += "get " + key_of(n - std::min(n, back)) + "\r\n";
      reply += value_reply(key_of(n - std::min(n, back)), value_of(n - std::min(n, back)));
    }
    groups.push_back(harness.parse(text));
    expected.push_back(reply);
    if (n != 0) groups[n - 1]->next = groups[n].get();
  }
  harness.submit(*groups.front());
  harness.wait(*groups.back());
  for (std::size_t n = 0; n < rounds; ++n) {
    EXPECT_EQ(groups[n]->replies(), expected[n]) << "round " << n;
    EXPECT_EQ(groups[n]->batch, groups[0]->batch + n) << "round " << n;
  }
  // 200 batches and the one that ran the last insert: none in between
  EXPECT_EQ(harness.stat("index_batches"), rounds + 1);

  std::string all = "get";
  std::vector<std::pair<std::string, std::string>> all_values;
  for (std::size_t n = 0; n < rounds; ++n) {
    all += " " + key_of(n);
    all_values.emplace_back(key_of(n), value_of(n));
  }
  EXPECT_EQ(harness.run(all + "\r\n"), values_reply(all_values));
  harness.expect_index_matches_items();
}

// ---- many threads -----------------------------------------------------------------

/// One client of the threads test: mixed requests on its own keys, whose
/// replies it knows, and increments of a counter all clients share, whose
/// replies only have to grow. Returns the first mismatch ("" when none).
std::string run_client(engine_harness& harness, std::size_t id, std::uint64_t seed,
                       std::size_t groups, std::size_t& shared_increments) {
  std::mt19937_64 draw(seed);
  const std::string prefix = "t" + std::to_string(id) + ":";
  const std::string counter_key = prefix + "n";
  if (harness.run(store_text("set", counter_key, "0")) != "STORED\r\n") return "counter not set";
  std::map<std::string, std::string> model;
  std::uint64_t counter = 0;
  std::uint64_t last_shared = 0;
  for (std::size_t g = 0; g < groups; ++g) {
    std::string text;
    std::vector<std::string> expected;  // "" where the shared counter answers
    for (std::size_t r = 0, n = 1 + draw() % 5; r < n; ++r) {
      const std::string key = prefix + std::to_string(draw() % 6);
      switch (draw() % 5) {
        case 0: {
          const std::string value = std::to_string(draw() % 100000);
          text += store_text("set", key, value);
          expected.push_back("STORED\r\n");
          model[key] = value;
          break;
        }
        case 1: {
          text += "get " + key + "\r\n";
          const auto found = model.find(key);
          expected.push_back(found == model.end() ? "END\r\n" : value_reply(key, found->second));
          break;
        }
        case 2:
          text += "delete " + key + "\r\n";
          expected.push_back(model.erase(key) != 0 ? "DELETED\r\n" : "NOT_FOUND\r\n");
          break;
        case 3: {
          const std::uint64_t delta = draw() % 1000;
          text += "incr " + counter_key + " " + std::to_string(delta) + "\r\n";
          counter += delta;
          expected.push_back(std::to_string(counter) + "\r\n");
          break;
        }
        default:
          text += "incr shared 1\r\n";
          expected.emplace_back();
          ++shared_increments;
          break;
      }
    }
    const auto parsed = harness.parse(text);
    harness.submit(*parsed);
    harness.wait(*parsed);
    std::string_view reply = parsed->replies();
    for (const std::string& want : expected) {
      if (want.empty()) {
        std::uint64_t shared = 0;
        const auto [end, error] =
            std::from_chars(reply.data(), reply.data() + reply.size(), shared);
        const auto digits = static_cast<std::size_t>(end - reply.data());
        if (error != std::errc{} || !reply.substr(digits).starts_with("\r\n") ||
            shared <= last_shared)
          return "shared counter after " + std::to_string(last_shared) + ": " + std::string(reply);
        last_shared = shared;
        reply.remove_prefix(digits + 2);
      } else {
        if (!reply.starts_with(want))
          return "group " + std::to_string(g) + ":\n" + text + "expected " + want + "got " +
                 std::string(reply);
        reply.remove_prefix(want.size());
      }
    }
    if (!reply.empty()) return "extra replies: " + std::string(reply);
  }
  std::string check = "get " + counter_key + "\r\n";
  std::string want = value_reply(counter_key, std::to_string(counter));
  for (const auto& [key, value] : model) {
    check += "get " + key + "\r\n";
    want += value_reply(key, value);
  }
  const std::string got = harness.run(check);
  return got == want ? "" : "final values: expected " + want + "got " + got;
}

void eight_threads_on_their_own_keys_and_a_shared_counter(harness_config config) {
  constexpr std::size_t threads = 8;
  constexpr std::size_t groups_per_thread = 200;
  engine_harness harness(std::move(config));
  ASSERT_EQ(harness.run(store_text("set", "shared", "0")), "STORED\r\n");
  seeded_random random;
  std::vector<std::uint64_t> seeds(threads);
  for (auto& seed : seeds) seed = random.next();

  std::vector<std::size_t> increments(threads, 0);
  std::vector<std::string> failures(threads);
  std::vector<std::thread> clients;
  for (std::size_t t = 0; t < threads; ++t) {
    clients.emplace_back([&, t] {
      failures[t] = run_client(harness, t, seeds[t], groups_per_thread, increments[t]);
    });
  }
  for (std::thread& client : clients) client.join();
  std::size_t total = 0;
  for (std::size_t t = 0; t < threads; ++t) {
    EXPECT_EQ(failures[t], "") << "thread " << t;
    total += increments[t];
  }
  EXPECT_EQ(harness.run("get shared\r\n"), value_reply("shared", std::to_string(total)));
  harness.expect_index_matches_items();
}

TEST(Threads, EightThreadsOnTheirOwnKeysAndASharedCounter) {
  eight_threads_on_their_own_keys_and_a_shared_counter(cpu_config());
}

// ---- batches on the submitting threads (the server's mode with the CPU index) --

harness_config inline_config() {
  harness_config config = cpu_config();
  config.runner = batch_runner::submitting_thread;
  return config;
}

TEST(InlineBatches, TheCpuIndexRunsBatchesOnTheSubmittingThread) {
  harness_config automatic = cpu_config();
  automatic.runner = batch_runner::automatic;
  engine_harness harness(automatic);
  ASSERT_TRUE(harness.runs_inline());
  // The group is answered before submit returns: no other thread ran it.
  const auto parsed = harness.parse(store_text("set", "k", "v") + "get k\r\n");
  harness.submit(*parsed);
  EXPECT_TRUE(parsed->done);
  EXPECT_EQ(parsed->replies(), "STORED\r\n" + value_reply("k", "v"));
}

TEST(InlineBatches, EightThreadsOnTheirOwnKeysAndASharedCounter) {
  // Every thread submits while others run batches: a group queued while
  // another thread runs one must be run by that thread (no group is left in
  // the queue with no thread running), and no write is lost.
  eight_threads_on_their_own_keys_and_a_shared_counter(inline_config());
}

// ---- a batch thread, and the submitter on an idle shard (the GPU index's) -----

harness_config unless_idle_config() {
  harness_config config = cpu_config();
  config.runner = batch_runner::batch_thread_unless_idle;
  config.statuses_late = true;  // as the GPU index
  return config;
}

TEST(IdleSubmitter, ASubmitterToAnIdleShardRunsItsOwnBatch) {
  engine_harness harness(unless_idle_config());
  ASSERT_FALSE(harness.runs_inline());
  const auto parsed = harness.parse(store_text("set", "k", "v") + "get k\r\n");
  harness.submit(*parsed);
  EXPECT_TRUE(parsed->done) << "not answered on the submitting thread";
  EXPECT_EQ(parsed->replies(), "STORED\r\n" + value_reply("k", "v"));
  // The insert left for the next batch goes with it: nothing woke the batch
  // thread for it alone, so the next batch is `stats`', run here too, and
  // the index ran it there (the index counts its entry at the batch after).
  EXPECT_EQ(harness.stat("index_batches"), 2u);
  harness.expect_index_matches_items();
}

TEST(IdleSubmitter, EightThreadsOnTheirOwnKeysAndASharedCounter) {
  eight_threads_on_their_own_keys_and_a_shared_counter(unless_idle_config());
}

// ---- who may spend time on a finished group ---------------------------------

/// Groups A and B ("mn") run as one batch, and A's completion (on the batch
/// thread) submits C (`c_text`): B comes back while a group is queued.
struct a_b_then_c {
  a_b_then_c(engine_harness& harness, std::string c_text)
      : a(harness.parse("mn\r\n")),
        b(harness.parse("mn\r\n")),
        c(harness.parse(std::move(c_text))) {
    a->next = c.get();
    harness.hold();
    harness.submit(*a);
    harness.submit(*b);
    harness.release();
    for (parsed_group* parsed : {a.get(), b.get(), c.get()}) harness.wait(*parsed);
  }
  std::unique_ptr<parsed_group> a, b, c;
};

TEST(CompleterIdle, OnlyABatchThreadWithNothingQueuedIsIdle) {
  harness_config config = cpu_config();
  config.runner = batch_runner::batch_thread;
  engine_harness harness(config);
  const a_b_then_c groups(harness, "mn\r\n");
  const auto& [a, b, c] = groups;
  ASSERT_EQ(a->batch, b->batch);
  EXPECT_TRUE(a->completer_idle);
  // (this index computes on the calling thread: nothing is kept for the
  // next batch's wait, which it does not have)
  EXPECT_FALSE(b->completer_idle) << "C was queued when B came back";
  EXPECT_TRUE(c->completer_idle);

  // Batches on the submitting threads: the submitter is a worker, never idle.
  engine_harness inline_harness(inline_config());
  const auto d = inline_harness.parse("mn\r\n");
  inline_harness.submit(*d);
  inline_harness.wait(*d);
  EXPECT_FALSE(d->completer_idle);
}

TEST(CompleterIdle, ABusyBatchThreadSendsItsLastGroupsDuringTheNextRoundTrip) {
  // An index that waits as the GPU's does (one step of the caller's work
  // per batch, harness_config::statuses_late): B, kept from the batch of A and
  // B because C was queued, comes back during C's batch, before C's
  // requests are answered, on a thread with nothing else to do.
  harness_config config = cpu_config();
  config.statuses_late = true;
  engine_harness harness(config);
  const a_b_then_c groups(harness, "get missing\r\n");  // (a batch with no search has no wait)
  const auto& [a, b, c] = groups;
  ASSERT_EQ(a->batch, b->batch);
  EXPECT_NE(c->batch, b->batch);
  EXPECT_TRUE(a->completer_idle);
  EXPECT_TRUE(b->completer_idle) << "B was sent while C's batch waited for its index";
  EXPECT_TRUE(c->completer_idle);
  EXPECT_LT(a->completion, b->completion);
  EXPECT_LT(b->completion, c->completion);
  EXPECT_EQ(b->replies(), "MN\r\n");
  EXPECT_EQ(c->replies(), "END\r\n");
  EXPECT_EQ(harness.stat("index_wait_groups_held"), 1u);
  EXPECT_EQ(harness.stat("index_wait_groups_sent"), 1u);
}

TEST(CompleterIdle, GroupsKeptPastTheRoundTripGoBackWhenTheIndexAnswers) {
  // Six groups answered together while more are queued: the batch thread
  // keeps the last ones for the next round trip, which (one step) sends
  // one; the rest go back, not idle, once the index answers. Every group
  // comes back once, with its replies, whatever was kept.
  harness_config config = cpu_config();
  config.statuses_late = true;
  engine_harness harness(config);
  std::vector<std::unique_ptr<parsed_group>> first;
  for (int i = 0; i < 6; ++i) first.push_back(harness.parse(store_text("set", key_of(i), "v")));
  const auto next = harness.parse("get " + key_of(5) + "\r\n");
  first.front()->next = next.get();
  harness.hold();
  for (auto& parsed : first) harness.submit(*parsed);
  harness.release();
  for (auto& parsed : first) harness.wait(*parsed);
  harness.wait(*next);
  std::size_t idle = 0;
  for (auto& parsed : first) {
    EXPECT_EQ(parsed->replies(), "STORED\r\n");
    EXPECT_EQ(parsed->batch, first.front()->batch);
    idle += parsed->completer_idle ? 1 : 0;
  }
  // the first (nothing queued yet), and the one kept group sent in the step
  EXPECT_EQ(idle, 2u);
  EXPECT_EQ(next->replies(), value_reply(key_of(5), "v"));
  for (auto& parsed : first) EXPECT_LT(parsed->completion, next->completion);
  EXPECT_EQ(harness.stat("index_wait_groups_held"), 2u);
  EXPECT_EQ(harness.stat("index_wait_groups_sent"), 1u);
}

// ---- several shards (engine_shards_test.cpp has their own tests) ---------------

TEST(Shards, EightThreadsOnTheirOwnKeysAndASharedCounterWithBatchThreads) {
  harness_config config = cpu_config();
  config.shards = 4;
  eight_threads_on_their_own_keys_and_a_shared_counter(config);
}

TEST(Shards, EightThreadsOnTheirOwnKeysAndASharedCounterAsWithTheGpuIndex) {
  harness_config config = unless_idle_config();
  config.shards = 4;
  eight_threads_on_their_own_keys_and_a_shared_counter(config);
}

TEST(Shards, EightThreadsOnTheirOwnKeysAndASharedCounterOnTheSubmittingThreads) {
  harness_config config = inline_config();
  config.shards = 4;
  eight_threads_on_their_own_keys_and_a_shared_counter(config);
}

TEST(Shards, EightThreadsOnTheirOwnKeysAndASharedCounterWhileTheIndexesMoveEachWay) {
  // The server's runner while each shard's index moves between the CPU and
  // a pretend device every few batches (engine_moves_test.cpp): the batch
  // thread and the submitters hand the shard over each time.
  harness_config config;
  config.shards = 4;
  config.index = index::test_doubles::moving_index_factory(test_seed, index::index_site::gpu, 5);
  eight_threads_on_their_own_keys_and_a_shared_counter(std::move(config));
}

}  // namespace
}  // namespace gpuhash::server::engine::testing
