// Tests of the engine's index entries through its public API, with the index
// on the CPU, its statuses given at once or one batch late as the GPU's: keys that share a
// signature (found by a birthday search under a fixed seed) never see each other's values, also
// through the stale entry of a deleted key whose chunk another key reuses; stale entries are erased
// (replace churn, eviction), so the index holds exactly the linked items.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/engine_harness.hpp"
#include "gpuhash/signature_index.hpp"

namespace gpuhash::server::engine::testing {
namespace {

/// Every test runs twice: with the index's statuses of inserts and erases
/// given at once (the CPU index), and one batch late, as the GPU index gives
/// them (index_service::defers_mutations).
harness_config index_config(bool defers) {
  harness_config config = cpu_config();
  config.statuses_late = defers;
  return config;
}
class Collisions : public ::testing::TestWithParam<bool> {};
class Churn : public ::testing::TestWithParam<bool> {};
class Eviction : public ::testing::TestWithParam<bool> {};
std::string statuses_name(const ::testing::TestParamInfo<bool>& info) {
  return info.param ? "StatusesLate" : "StatusesAtOnce";
}
INSTANTIATE_TEST_SUITE_P(, Collisions, ::testing::Bool(), statuses_name);
INSTANTIATE_TEST_SUITE_P(, Churn, ::testing::Bool(), statuses_name);
INSTANTIATE_TEST_SUITE_P(, Eviction, ::testing::Bool(), statuses_name);

// ---- keys that share a signature --------------------------------------------------

/// Pairs of distinct keys with one signature under the test seed: a birthday
/// search over generated keys (about 18 pairs expected in 400,000 keys).
std::vector<std::pair<std::string, std::string>> colliding_pairs(std::size_t wanted) {
  const signature_index<> index(index_options{.seed = test_seed});
  std::unordered_map<std::uint32_t, std::uint32_t> first_key_of;
  std::vector<std::pair<std::string, std::string>> pairs;
  for (std::uint32_t n = 0; n < 400'000 && pairs.size() < wanted; ++n) {
    const auto [found, added] =
        first_key_of.try_emplace(index.signature("p" + std::to_string(n)), n);
    if (!added) pairs.emplace_back("p" + std::to_string(found->second), "p" + std::to_string(n));
  }
  return pairs;
}

TEST(CollidingKeys, BirthdaySearchFindsKeysSharingASignature) {
  const signature_index<> index(index_options{.seed = test_seed});
  const auto pairs = colliding_pairs(2);
  ASSERT_EQ(pairs.size(), 2u);
  for (const auto& [a, b] : pairs) {
    EXPECT_NE(a, b);
    EXPECT_EQ(index.signature(a), index.signature(b)) << a << " " << b;
  }
  EXPECT_NE(index.signature(pairs[0].first), index.signature(pairs[1].first));
}

TEST_P(Collisions, KeysSharingASignatureKeepTheirOwnValues) {
  const auto pairs = colliding_pairs(2);
  ASSERT_EQ(pairs.size(), 2u);
  const auto& [a, b] = pairs[0];
  const auto& [c, d] = pairs[1];
  engine_harness harness(index_config(GetParam()));
  // only a exists: b's searches find a's entry and must reject it, in the
  // batch that links a and in later ones (once a's insert ran)
  EXPECT_EQ(harness.run(store_text("set", a, "va") + "get " + b + "\r\nget " + a + "\r\n"),
            "STORED\r\nEND\r\n" + value_reply(a, "va"));
  EXPECT_EQ(harness.run("get " + b + "\r\n"), "END\r\n");
  EXPECT_EQ(harness.run("get " + b + "\r\n"), "END\r\n");
  EXPECT_EQ(harness.run("delete " + b + "\r\nincr " + b + " 1\r\n" + store_text("replace", b, "x") +
                        "cas " + b + " 0 0 1 1\r\nx\r\n"),
            "NOT_FOUND\r\nNOT_FOUND\r\nNOT_STORED\r\nNOT_FOUND\r\n");
  EXPECT_EQ(harness.run(store_text("add", b, "vb") + "get " + a + " " + b + "\r\n"),
            "STORED\r\nVALUE " + a + " 0 2\r\nva\r\nVALUE " + b + " 0 2\r\nvb\r\nEND\r\n");
  EXPECT_EQ(harness.run("get " + b + " " + a + "\r\n"),
            "VALUE " + b + " 0 2\r\nvb\r\nVALUE " + a + " 0 2\r\nva\r\nEND\r\n");
  // delete one: the other stays, in the same batch and the next ones
  EXPECT_EQ(harness.run("delete " + a + "\r\nget " + a + "\r\nget " + b + "\r\n"),
            "DELETED\r\nEND\r\n" + value_reply(b, "vb"));
  EXPECT_EQ(harness.run("get " + a + "\r\nget " + b + "\r\n"), "END\r\n" + value_reply(b, "vb"));
  EXPECT_EQ(harness.run(store_text("set", a, "va2") + "get " + a + "\r\n"),
            "STORED\r\n" + value_reply(a, "va2"));
  EXPECT_EQ(harness.run("get " + a + "\r\nget " + b + "\r\n"),
            value_reply(a, "va2") + value_reply(b, "vb"));
  // both pairs in one group, interleaved, then replaced and deleted
  EXPECT_EQ(
      harness.run(store_text("set", c, "vc") + store_text("set", d, "vd") + "get " + d +
                  "\r\nget " + c + "\r\n" + "incr " + c + " 1\r\n" + store_text("set", c, "7") +
                  "incr " + c + " 1\r\ndelete " + d + "\r\nget " + c + "\r\nget " + d + "\r\n"),
      "STORED\r\nSTORED\r\n" + value_reply(d, "vd") + value_reply(c, "vc") +
          "CLIENT_ERROR cannot increment or decrement non-numeric value\r\n"
          "STORED\r\n8\r\nDELETED\r\n" +
          value_reply(c, "8") + "END\r\n");
  EXPECT_EQ(harness.run("get " + a + " " + b + " " + c + " " + d + "\r\n"),
            "VALUE " + a + " 0 3\r\nva2\r\nVALUE " + b + " 0 2\r\nvb\r\nVALUE " + c +
                " 0 1\r\n8\r\nEND\r\n");
  harness.expect_index_matches_items();
}

TEST_P(Collisions, StaleEntryOfADeletedKeyIsHarmlessWhenItsChunkIsReused) {
  const auto pairs = colliding_pairs(1);
  ASSERT_EQ(pairs.size(), 1u);
  const auto& [a, b] = pairs[0];
  engine_harness harness(index_config(GetParam()));
  EXPECT_EQ(harness.run(store_text("set", a, "va")), "STORED\r\n");
  EXPECT_EQ(harness.run("get " + a + "\r\n"), value_reply(a, "va"));  // a's insert has run
  const std::uint64_t operations = harness.stat("index_batch_operations");
  // b takes a's chunk in the batch that drops a: the entry (signature,
  // chunk) stays and now names b; a must not read b's value through it
  EXPECT_EQ(harness.run("delete " + a + "\r\n" + store_text("set", b, "vb") + "get " + a +
                        "\r\nget " + b + "\r\n"),
            "DELETED\r\nSTORED\r\nEND\r\n" + value_reply(b, "vb"));
  // a's erase and b's insert cancelled: that batch's 4 searches are all the
  // index saw (6 if b had another chunk, and the case above is not tested)
  EXPECT_EQ(harness.stat("index_batch_operations"), operations + 4) << "b did not reuse a's chunk";
  EXPECT_EQ(harness.run("get " + a + "\r\nget " + b + "\r\n"), "END\r\n" + value_reply(b, "vb"));
  // and a key of another signature taking b's chunk
  EXPECT_EQ(
      harness.run("delete " + b + "\r\n" + store_text("set", "other", "vo") + "get " + b + "\r\n"),
      "DELETED\r\nSTORED\r\nEND\r\n");
  EXPECT_EQ(harness.run("get " + a + " " + b + " other\r\n"), value_reply("other", "vo"));
  harness.expect_index_matches_items();
}

/// Five keys with one signature under test_seed (SipHash-1-3), found
/// offline by sorting the signatures of "t0" ... "t199999999" (a quadruple
/// needs about 2^26 keys, too many for a unit test); the first test checks
/// they still collide.
const std::vector<std::string> five_colliding_keys = {"t9059170", "t50007953", "t91803382",
                                                      "t92606325", "t191721610"};

TEST_P(Collisions, FiveKeysSharingOneSignature) {
  const signature_index<> index(index_options{.seed = test_seed});
  for (const std::string& key : five_colliding_keys)
    ASSERT_EQ(index.signature(key), index.signature(five_colliding_keys[0]))
        << key << ": the key hash changed; find five new keys with one signature";

  engine_harness harness(index_config(GetParam()));
  const auto value = [](std::size_t k, int version) {
    return "v" + std::to_string(k) + "." + std::to_string(version);
  };
  const auto get_all = [&] {
    std::string text = "get";
    for (const std::string& key : five_colliding_keys) text += " " + key;
    return text + "\r\n";
  };
  const auto expected_all = [&](const std::vector<int>& versions) {
    std::string reply;
    for (std::size_t k = 0; k < five_colliding_keys.size(); ++k) {
      if (versions[k] < 0) continue;
      const std::string v = value(k, versions[k]);
      reply += "VALUE " + five_colliding_keys[k] + " 0 " + std::to_string(v.size()) + "\r\n" + v +
               "\r\n";
    }
    return reply + "END\r\n";
  };
  std::vector<int> versions(5, -1);
  std::string text;
  std::string expected;
  for (std::size_t k = 0; k < 5; ++k) {
    text += store_text("set", five_colliding_keys[k], value(k, 0)) + get_all();
    versions[k] = 0;
    expected += "STORED\r\n" + expected_all(versions);
  }
  EXPECT_EQ(harness.run(text), expected);
  EXPECT_EQ(harness.run(get_all()), expected_all(versions));
  EXPECT_EQ(harness.run(get_all()), expected_all(versions));

  // rounds of: delete some, re-set others, each round checked in its batch and the next
  for (int round = 1; round <= 6; ++round) {
    text.clear();
    expected.clear();
    for (std::size_t k = 0; k < 5; ++k) {
      if ((k + static_cast<std::size_t>(round)) % 3 == 0) {
        text += "delete " + five_colliding_keys[k] + "\r\n";
        expected += versions[k] < 0 ? "NOT_FOUND\r\n" : "DELETED\r\n";
        versions[k] = -1;
      } else {
        text += store_text("set", five_colliding_keys[k], value(k, round));
        expected += "STORED\r\n";
        versions[k] = round;
      }
    }
    text += get_all();
    expected += expected_all(versions);
    EXPECT_EQ(harness.run(text), expected) << "round " << round;
    EXPECT_EQ(harness.run(get_all()), expected_all(versions)) << "round " << round;
  }
  harness.expect_index_matches_items();
}

// ---- stale entries are erased -------------------------------------------------------

/// The value of the line "STAT <name> <value>" in a `stats` reply.
std::uint64_t stat_in(std::string_view reply, std::string_view name) {
  const std::string line = "STAT " + std::string(name) + " ";
  const std::size_t at = reply.find(line);
  if (at == std::string_view::npos) {
    ADD_FAILURE() << "no stats line " << name;
    return 0;
  }
  return std::stoull(std::string(reply.substr(at + line.size())));
}

TEST_P(Churn, OneKeyReplacedInConsecutiveBatches) {
  constexpr std::size_t rounds = 1000;
  engine_harness harness(index_config(GetParam()));
  std::vector<std::unique_ptr<parsed_group>> groups;
  for (std::size_t n = 0; n < rounds; ++n) {
    std::string text = store_text("set", "churn", value_of(n)) + "get churn\r\n";
    if (n % 100 == 99) text += "stats\r\n";
    groups.push_back(harness.parse(text));
    if (n != 0) groups[n - 1]->next = groups[n].get();
  }
  harness.submit(*groups.front());
  harness.wait(*groups.back());
  for (std::size_t n = 0; n < rounds; ++n) {
    const std::string expected = "STORED\r\n" + value_reply("churn", value_of(n));
    ASSERT_EQ(groups[n]->replies().substr(0, expected.size()), expected) << "round " << n;
    if (n % 100 != 99) continue;
    // at most the entries of this round's item and the last round's
    EXPECT_LE(stat_in(groups[n]->replies(), "index_entries"), 2u) << "round " << n;
    EXPECT_EQ(stat_in(groups[n]->replies(), "index_erase_misses"), 0u) << "round " << n;
  }
  const auto stats = harness.stats();
  EXPECT_EQ(stats.at("curr_items"), "1");
  EXPECT_EQ(stats.at("total_items"), std::to_string(rounds));
  EXPECT_EQ(harness.run("get churn\r\n"), value_reply("churn", value_of(rounds - 1)));
  harness.expect_index_matches_items();  // (a late index counts its entries a batch later)
}

TEST_P(Churn, OneKeyReplacedManyTimesInOneBatch) {
  engine_harness harness(index_config(GetParam()));
  std::string text;
  std::string expected;
  for (std::size_t n = 0; n < 500; ++n) {
    text += store_text("set", "churn", value_of(n)) + (n % 50 == 0 ? "get churn\r\n" : "");
    expected += "STORED\r\n" + (n % 50 == 0 ? value_reply("churn", value_of(n)) : "");
  }
  EXPECT_EQ(harness.run(text), expected);
  EXPECT_EQ(harness.run("get churn\r\n"), value_reply("churn", value_of(499)));
  const auto stats = harness.stats();
  EXPECT_EQ(stats.at("curr_items"), "1");
  harness.expect_index_matches_items();  // (a late index counts its entries a batch later)
}

// ---- eviction -----------------------------------------------------------------------

/// A 1000-byte value that names its key.
std::string big_value(std::size_t n) {
  std::string value = "<" + key_of(n) + ">";
  while (value.size() < 1000) value += static_cast<char>('a' + (n + value.size()) % 26);
  return value;
}

harness_config small_memory(bool defers) {
  harness_config config = index_config(defers);
  config.store.memory_limit = 2u << 20;  // two 1 MB pages
  return config;
}

/// Reads keys [0, count) in multi-key gets; every hit must carry its own
/// value. Returns which keys hit.
std::vector<bool> read_back(engine_harness& harness, std::size_t count) {
  std::vector<bool> hits(count, false);
  for (std::size_t first = 0; first < count; first += 200) {
    std::string text = "get";
    for (std::size_t n = first; n < std::min(count, first + 200); ++n) text += " " + key_of(n);
    const std::string replies = harness.run(text + "\r\n");
    std::string_view reply = replies;
    while (reply.starts_with("VALUE ")) {
      const std::size_t line_end = reply.find("\r\n");
      const std::string line(reply.substr(6, line_end - 6));
      const std::string key = line.substr(0, line.find(' '));
      const std::size_t n = std::stoul(key.substr(1));
      if (n >= count || line != key + " 0 1000" || reply.size() < line_end + 2 + 1000 + 2) {
        ADD_FAILURE() << "unexpected reply: " << reply.substr(0, 100);
        return hits;
      }
      EXPECT_EQ(reply.substr(line_end + 2, 1000), big_value(n)) << "wrong value for " << key;
      EXPECT_FALSE(hits[n]) << key << " returned twice";
      hits[n] = true;
      reply.remove_prefix(line_end + 2 + 1000 + 2);
    }
    EXPECT_EQ(reply, "END\r\n");
  }
  return hits;
}

TEST_P(Eviction, SmallMemoryEvictsButNeverReturnsAWrongValue) {
  constexpr std::size_t count = 4000;
  engine_harness harness(small_memory(GetParam()));
  for (std::size_t first = 0; first < count; first += 50) {
    std::string text;
    std::string expected;
    for (std::size_t n = first; n < first + 50; ++n) {
      text += store_text("set", key_of(n), big_value(n));
      expected += "STORED\r\n";
    }
    // the group's first key (linked by this batch) and the last group's last
    // (linked by the batch before: its insert runs in this one)
    text += "get " + key_of(first) + " " + key_of(first == 0 ? 0 : first - 1) + "\r\n";
    expected +=
        values_reply({{key_of(first), big_value(first)},
                      {key_of(first == 0 ? 0 : first - 1), big_value(first == 0 ? 0 : first - 1)}});
    ASSERT_EQ(harness.run(text), expected) << "keys from " << first;
  }
  const std::vector<bool> hits = read_back(harness, count);
  const auto hit_count = static_cast<std::size_t>(std::count(hits.begin(), hits.end(), true));
  for (std::size_t n = count - 100; n < count; ++n) EXPECT_TRUE(hits[n]) << key_of(n) << " lost";
  const auto stats = harness.stats();
  EXPECT_GT(std::stoull(stats.at("evictions")), 0u);
  EXPECT_LT(hit_count, count);
  EXPECT_EQ(stats.at("curr_items"), std::to_string(hit_count));
  harness.expect_index_matches_items();
}

TEST_P(Eviction, ItemsLinkedAndEvictedInOneBatch) {
  constexpr std::size_t count = 3000;
  engine_harness harness(small_memory(GetParam()));
  std::string text;
  std::string expected;
  for (std::size_t n = 0; n < count; ++n) {
    text += store_text("set", key_of(n), big_value(n));
    expected += "STORED\r\n";
  }
  // the first keys are evicted by the batch that linked them: a miss, at once
  text += "get " + key_of(0) + " " + key_of(count - 1) + "\r\n";
  expected += value_reply(key_of(count - 1), big_value(count - 1));
  EXPECT_EQ(harness.run(text), expected);
  const std::vector<bool> hits = read_back(harness, count);
  EXPECT_FALSE(hits.front());
  EXPECT_TRUE(hits.back());
  EXPECT_GT(harness.stat("evictions"), 0u);
  EXPECT_EQ(harness.stat("curr_items"),
            static_cast<std::uint64_t>(std::count(hits.begin(), hits.end(), true)));
  harness.expect_index_matches_items();
}

}  // namespace
}  // namespace gpuhash::server::engine::testing
