// Tests of the engine's commands through its public API, with the index on
// the CPU: expiry and flush_all, storage errors, the meta commands, `lru_crawler metadump`
// and `stats`. Batching itself is in engine_test.cpp.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <set>
#include <string>
#include <string_view>
#include <thread>

#include "engine/engine_harness.hpp"

namespace gpuhash::server::engine::testing {
namespace {

// ---- expiry and flush_all -------------------------------------------------------------

TEST(Expiry, NegativeOrPastExptimeIsGoneAtOnce) {
  engine_harness harness;
  EXPECT_EQ(harness.run(store_text("set", "neg", "x", 0, -1) + "get neg\r\n" +
                        store_text("set", "past", "x", 0, 1'000'000'000) + "get past\r\n"),
            "STORED\r\nEND\r\nSTORED\r\nEND\r\n");
  EXPECT_EQ(harness.run("get neg past\r\n" + store_text("add", "neg", "again") + "get neg\r\n"),
            "END\r\nSTORED\r\n" + value_reply("neg", "again"));
  // touch and gat with a negative exptime expire an item that was live
  EXPECT_EQ(harness.run(store_text("set", "t", "x") + store_text("set", "g", "y") +
                        "touch t -1\r\ngat -1 g\r\nget t g\r\n"),
            "STORED\r\nSTORED\r\nTOUCHED\r\n" + value_reply("g", "y") + "END\r\n");
  EXPECT_EQ(harness.run("get t g\r\ntouch t 0\r\nincr g 1\r\n"),
            "END\r\nNOT_FOUND\r\nNOT_FOUND\r\n");
  // expired items are unlinked when looked up: the index follows
  const auto stats = harness.stats();
  EXPECT_EQ(stats.at("curr_items"), "1");
  EXPECT_EQ(stats.at("index_entries"), "1");
  EXPECT_EQ(stats.at("index_erase_misses"), "0");
}

TEST(Flush, FlushAllHidesEverythingStoredBefore) {
  engine_harness harness;
  EXPECT_EQ(harness.run(store_text("set", "a", "1")), "STORED\r\n");
  EXPECT_EQ(harness.run(store_text("set", "b", "2") + "flush_all\r\nget a\r\nget b\r\n" +
                        store_text("set", "c", "3") + "get c\r\n"),
            "STORED\r\nOK\r\nEND\r\nEND\r\nSTORED\r\n" + value_reply("c", "3"));
  EXPECT_EQ(harness.run("get a b c\r\n" + store_text("add", "a", "4") + "incr b 1\r\n"),
            value_reply("c", "3") + "STORED\r\nNOT_FOUND\r\n");
  // a flush in one group hides what an earlier group of its batch stored, not what a later one does
  const auto replies =
      harness.run_together({store_text("set", "d", "5"), "flush_all noreply\r\nmn\r\n",
                            "get d a c\r\n" + store_text("set", "e", "6") + "get e\r\n"});
  EXPECT_EQ(replies, (std::vector<std::string>{"STORED\r\n", "MN\r\n",
                                               "END\r\nSTORED\r\n" + value_reply("e", "6")}));
  EXPECT_EQ(harness.run("get a b c d e\r\n"), value_reply("e", "6"));
  EXPECT_EQ(harness.run("lru_crawler metadump all\r\n").find("key=a "), std::string::npos);
}

/// The test's one wait: until the clock has passed `second`.
void sleep_past(std::time_t second) {
  while (std::time(nullptr) <= second) std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

TEST(Flush, DelayedFlushAndShortExptime) {
  engine_harness harness;
  // within the batch's second the items are there; from the next on, gone
  EXPECT_EQ(harness.run(store_text("set", "a", "x") + store_text("set", "short", "y", 0, 1) +
                        "flush_all 2\r\nget a short\r\n"),
            "STORED\r\nSTORED\r\nOK\r\nVALUE a 0 1\r\nx\r\nVALUE short 0 1\r\ny\r\nEND\r\n");
  sleep_past(std::time(nullptr));
  EXPECT_EQ(harness.run("get a short\r\nincr a 1\r\n"), "END\r\nNOT_FOUND\r\n");
  EXPECT_EQ(harness.stat("curr_items"), 0u);
}

TEST(Flush, FlushWithoutDelayReplacesAPendingDelayedOne) {
  // memcached 1.6 keeps one flush time (settings.oldest_live): flush_all N
  // sets it to now + N - 1, and flush_all without a delay to now - 1 (and
  // oldest_cas to the next CAS), replacing any delayed flush still to come.
  // So after "flush_all 2" then "flush_all", an item stored next stays, now
  // and two seconds later. "flush_all 1" is due at once (now + 1 - 1), which
  // shows the same without waiting.
  engine_harness harness;
  EXPECT_EQ(harness.run("flush_all 1\r\nflush_all\r\n" + store_text("set", "k", "z") + "get k\r\n"),
            "OK\r\nOK\r\nSTORED\r\n" + value_reply("k", "z"))
      << "flush_all (no delay) left the earlier delayed flush_all in force";
}

// ---- storage errors ----------------------------------------------------------------------

TEST(Storage, SetRefusedAsTooLargeDropsTheOldValue) {
  harness_config config = cpu_config();
  config.store.item_size_max = 2048;
  engine_harness harness(config);
  EXPECT_EQ(harness.run(store_text("set", "big", "old") + store_text("set", "kept", "k")),
            "STORED\r\nSTORED\r\n");
  // the parser refuses the set; the engine still drops big's value (as
  // memcached), and the requests after it find their own keys
  EXPECT_EQ(harness.run(store_text("set", "big", std::string(4000, 'x')) + "get kept\r\n" +
                        "get big\r\n" + store_text("append", "kept", std::string(4000, 'y')) +
                        "get kept\r\n"),
            "SERVER_ERROR object too large for cache\r\n" + value_reply("kept", "k") +
                "END\r\nSERVER_ERROR object too large for cache\r\n" + value_reply("kept", "k"));
  EXPECT_EQ(harness.run("get big kept\r\n"), value_reply("kept", "k"));
  EXPECT_EQ(harness.stat("store_too_large"), 2u);
  harness.expect_index_matches_items();
}

// The VALUE line's numbers at every width: flags of one digit, several
// and the largest; sizes of one digit and several; gets' CAS, and its 0
// without CAS (-C).
TEST(Retrieval, ValueLinesWriteEveryNumberWhole) {
  engine_harness harness;
  const std::string ten(10, 'v');
  EXPECT_EQ(harness.run(store_text("set", "a", "x", 0) + store_text("set", "b", ten, 9) +
                        store_text("set", "c", "xy", 10) + store_text("set", "d", ten, 4294967295) +
                        "get a b c d\r\n"),
            "STORED\r\nSTORED\r\nSTORED\r\nSTORED\r\n"
            "VALUE a 0 1\r\nx\r\nVALUE b 9 10\r\n" +
                ten +
                "\r\nVALUE c 10 2\r\nxy\r\n"
                "VALUE d 4294967295 10\r\n" +
                ten + "\r\nEND\r\n");
  const std::string gets = harness.run("gets a d\r\n");
  const std::string cas_a = gets.substr(gets.find("VALUE a 0 1 ") + 12);
  EXPECT_EQ(gets, "VALUE a 0 1 " + cas_a.substr(0, cas_a.find('\r')) + "\r\nx\r\n" +
                      gets.substr(gets.find("VALUE d")));
  EXPECT_NE(cas_a.substr(0, cas_a.find('\r')), "0");
  harness_config without_cas = cpu_config();
  without_cas.store.cas_enabled = false;
  engine_harness no_cas(without_cas);
  EXPECT_EQ(no_cas.run(store_text("set", "e", "z", 12) + "gets e\r\n"),
            "STORED\r\nVALUE e 12 1 0\r\nz\r\nEND\r\n");
}

TEST(Storage, NoreplySilencesTheEnginesErrorsToo) {
  // memcached answers nothing at all to a noreply request, errors included
  // (out_string skips the reply): a client that sent noreply reads no line,
  // so an error line would be taken for the reply to its next request
  harness_config config = cpu_config();
  config.store.item_size_max = 2048;
  config.flush_enabled = false;
  engine_harness harness(config);
  EXPECT_EQ(harness.run(store_text("set", "kept", std::string(1500, 'k')) +
                        store_text("set", "word", "abc")),
            "STORED\r\nSTORED\r\n");
  // each refused twice, with and without noreply; mn shows nothing was left unsaid. An add
  // of an item too large for -I (memcached's size of it) fails before the key is looked at.
  const std::string large = std::string(2000, 'y');
  EXPECT_EQ(harness.run(store_text("add", "kept", large) + "mn\r\n" + "add kept 0 0 2000 " +
                        "noreply\r\n" + large + "\r\nmn\r\n"),
            "SERVER_ERROR object too large for cache\r\nMN\r\nMN\r\n");
  // an append whose joined item would be too large is not stored, as in memcached
  EXPECT_EQ(harness.run(store_text("append", "kept", std::string(1500, 'y'))), "NOT_STORED\r\n");
  EXPECT_EQ(harness.run("incr word 1\r\nincr word 1 noreply\r\ndecr word 1 noreply\r\nmn\r\n"),
            "CLIENT_ERROR cannot increment or decrement non-numeric value\r\nMN\r\n");
  EXPECT_EQ(harness.run("flush_all\r\nflush_all noreply\r\nflush_all 10 noreply\r\nmn\r\n"),
            "CLIENT_ERROR flush_all not allowed\r\nMN\r\n");
  // nothing changed, and the refused flushes are counted, as memcached counts them
  EXPECT_EQ(harness.run("get kept word\r\n"),
            "VALUE kept 0 1500\r\n" + std::string(1500, 'k') + "\r\n" + value_reply("word", "abc"));
  EXPECT_EQ(harness.stat("cmd_flush"), 3u);
  EXPECT_EQ(harness.stat("store_too_large"), 2u);
}

TEST(Arithmetic, ReadsTheValueAsMemcachedDoes) {
  // memcached 1.6.18 reads the value with safe_strtoull: blanks and '+'
  // before the digits, a blank after them, a NUL ending it
  engine_harness harness;
  EXPECT_EQ(harness.run(store_text("set", "lead", " 12") + "incr lead 1\r\nget lead\r\n"),
            "STORED\r\n13\r\n" + value_reply("lead", "13 "));
  EXPECT_EQ(harness.run(store_text("set", "plus", "+12") + "decr plus 1\r\n" +
                        store_text("set", "pair", "12 34") + "incr pair 1\r\nget pair\r\n" +
                        store_text("set", "nul", std::string("12\0a", 4)) + "incr nul 1\r\n"),
            "STORED\r\n11\r\nSTORED\r\n13\r\n" + value_reply("pair", "13   ") + "STORED\r\n13\r\n");
  const std::string refused = "CLIENT_ERROR cannot increment or decrement non-numeric value\r\n";
  EXPECT_EQ(harness.run(store_text("set", "minus", "-12") + "incr minus 1\r\n" +
                        store_text("set", "blank", "  ") + "incr blank 1\r\n" +
                        store_text("set", "tail", "12x") + "incr tail 1\r\n"),
            "STORED\r\n" + refused + "STORED\r\n" + refused + "STORED\r\n" + refused);
}

// ---- meta commands ------------------------------------------------------------------------

TEST(Meta, SetAndGetWithReturnFlags) {
  engine_harness harness;
  // CAS values count from 1 on a fresh engine
  EXPECT_EQ(harness.run("ms mk 2 F5 T0\r\nhi\r\nmg mk v f s k O42 c t\r\n"),
            "HD\r\nVA 2 f5 s2 kmk O42 c1 t-1\r\nhi\r\n");
  EXPECT_EQ(harness.run("mg mk\r\nmg mk k q\r\nmg missing v\r\nmg missing v q k O1\r\nmn\r\n"),
            "HD\r\nHD kmk\r\nEN\r\nMN\r\n");
  // ms returns the new item's flags; T sets the TTL that t reports
  EXPECT_EQ(harness.run("ms mk 3 c k O7 T100\r\nbye\r\nmg mk t v f\r\n"),
            "HD c2 kmk O7\r\nVA 3 t100 f0\r\nbye\r\n");
  EXPECT_EQ(harness.run("ms mk 1 q\r\nx\r\nmg mk v\r\nmn\r\n"), "VA 1\r\nx\r\nMN\r\n");
  // modes: E add, A append, P prepend, R replace, S set; C compares the CAS
  EXPECT_EQ(harness.run("ms mk 1 ME\r\ny\r\nms new 1 MR\r\ny\r\nms mk 1 MA\r\nz\r\n"
                        "ms mk 1 MP\r\na\r\nmg mk v c\r\n"),
            "NS\r\nNS\r\nHD\r\nHD\r\nVA 3 c5\r\naxz\r\n");
  EXPECT_EQ(harness.run("ms mk 1 C4\r\nq\r\nms mk 1 C5\r\nr\r\nms new 1 C1\r\ns\r\nmg mk v c\r\n"),
            "EX\r\nHD\r\nNF\r\nVA 1 c6\r\nr\r\n");
  // classic commands see what meta commands stored, and the other way round
  EXPECT_EQ(
      harness.run("get mk\r\n" + store_text("set", "classic", "cv", 9) + "mg classic v f\r\n"),
      value_reply("mk", "r") + "STORED\r\nVA 2 f9\r\ncv\r\n");
}

TEST(Meta, Delete) {
  engine_harness harness;
  EXPECT_EQ(harness.run(store_text("set", "d1", "x") + store_text("set", "d2", "x") +
                        "md d1\r\nmg d1 v\r\nmd d1\r\nmd d2 q\r\nmd d1 k O3\r\nmn\r\n"),
            "STORED\r\nSTORED\r\nHD\r\nEN\r\nNF\r\nNF kd1 O3\r\nMN\r\n");
  EXPECT_EQ(
      harness.run("get d1 d2\r\n" + store_text("set", "d3", "x") + "md d3 C999\r\nmg d3 s\r\n"),
      "END\r\nSTORED\r\nEX\r\nHD s1\r\n");
}

TEST(Meta, Arithmetic) {
  engine_harness harness;
  EXPECT_EQ(harness.run("ma cnt\r\nma cnt N0 J10\r\nma cnt v\r\nma cnt D5 v\r\nget cnt\r\n"),
            "NF\r\nHD\r\nVA 2\r\n11\r\nVA 2\r\n16\r\n" + value_reply("cnt", "16"));
  // decrements stop at 0; the value keeps its length, padded with spaces (as memcached)
  EXPECT_EQ(harness.run("ma cnt MD D20 v\r\nget cnt\r\nma cnt N0 J10 v\r\nma cnt M- v\r\n"),
            "VA 1\r\n0\r\n" + value_reply("cnt", "0 ") + "VA 1\r\n1\r\nVA 1\r\n0\r\n");
  EXPECT_EQ(harness.run("ma cnt q\r\nma cnt v k O8\r\nmn\r\n"), "VA 1 kcnt O8\r\n2\r\nMN\r\n");
  EXPECT_EQ(harness.run(store_text("set", "word", "abc") + "ma word\r\n"),
            "STORED\r\nCLIENT_ERROR cannot increment or decrement non-numeric value\r\n");
  // a result longer than the value makes a new item
  EXPECT_EQ(
      harness.run(store_text("set", "nine", "9") + "ma nine v\r\nma nine D1000 v\r\nget nine\r\n"),
      "STORED\r\nVA 2\r\n10\r\nVA 4\r\n1010\r\n" + value_reply("nine", "1010"));
}

TEST(Meta, FlagsACommandHasNoUseForAreIgnored) {
  // memcached 1.6.18 refuses the letters it does not know (the parser's
  // tests) and lets every meta command take the others, ignoring those it
  // has no use for; ms and ma return only their own return flags
  engine_harness harness;
  EXPECT_EQ(harness.run(store_text("set", "n", "12") + "md n v f s t h l u P L N5 R5 F5 J5 D5\r\n"),
            "STORED\r\nHD\r\n");
  EXPECT_EQ(harness.run(store_text("set", "n", "12") + "ma n I f s h l u P L R5 F5 v t\r\n"),
            "STORED\r\nVA 2 t-1\r\n13\r\n");
  EXPECT_EQ(harness.run("ms n 2 v f h l u t s N5 R5 J5 D5 P L\r\n12\r\nmg n D5 J5 I P L M+ v\r\n"),
            "HD\r\nVA 2\r\n12\r\n");
}

TEST(Meta, Base64KeysRoundTrip) {
  engine_harness harness;
  // "foo" is Zm9v; "a b" (a key the classic protocol cannot name) is YSBi
  EXPECT_EQ(harness.run("ms Zm9v 3 b\r\nbar\r\nget foo\r\nmg Zm9v b v k\r\n"),
            "HD\r\n" + value_reply("foo", "bar") + "VA 3 kZm9v b\r\nbar\r\n");
  EXPECT_EQ(harness.run("ms YSBi 2 b\r\nsp\r\nmg YSBi b v\r\nma YSBi b N0 J5 v\r\n"),
            "HD\r\nVA 2\r\nsp\r\nCLIENT_ERROR cannot increment or decrement non-numeric value\r\n");
  EXPECT_NE(harness.run("lru_crawler metadump all\r\n").find("key=a%20b "), std::string::npos);
  EXPECT_EQ(harness.run("md Zm9v b\r\nget foo\r\nmg YSBi b s\r\nmd YSBi b q\r\nmg YSBi b v\r\n"),
            "HD\r\nEND\r\nHD s2\r\nEN\r\n");
  EXPECT_EQ(harness.run("mg YSBi b v\r\nmg Zm9v b v\r\n"), "EN\r\nEN\r\n");
}

// ---- lru_crawler metadump --------------------------------------------------------------

bool is_number(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// The key of a metadump line "key=K exp=E la=L cas=C fetch=yes|no cls=N
/// size=S" (E may be -1), or "" when the line is not one.
std::string metadump_key(std::string_view line) {
  static constexpr std::string_view fields[] = {
      "key=", "exp=", "la=", "cas=", "fetch=", "cls=", "size="};
  std::string key;
  for (const std::string_view field : fields) {
    if (!line.starts_with(field)) return "";
    line.remove_prefix(field.size());
    const std::size_t space = line.find(' ');
    std::string_view value = line.substr(0, space);
    line.remove_prefix(space == std::string_view::npos ? line.size() : space + 1);
    if (field == "key=") {
      key = value;
    } else if (field == "fetch=") {
      if (value != "yes" && value != "no") return "";
    } else if (!is_number(field == "exp=" && value == "-1" ? "1" : value)) {
      return "";
    }
  }
  return line.empty() ? key : "";
}

/// The keys of a metadump reply; every line must be well-formed.
std::set<std::string> dumped_keys(std::string_view reply) {
  std::set<std::string> keys;
  while (!reply.empty() && !reply.starts_with("END\r\n")) {
    const std::size_t end = reply.find('\n');
    const std::string_view line = reply.substr(0, end);
    const std::string key = metadump_key(line);
    EXPECT_NE(key, "") << "bad metadump line: " << line;
    EXPECT_TRUE(keys.insert(key).second) << "listed twice: " << line;
    reply.remove_prefix(end == std::string_view::npos ? reply.size() : end + 1);
  }
  EXPECT_EQ(reply, "END\r\n");
  return keys;
}

TEST(Metadump, ListsExactlyTheLiveKeys) {
  engine_harness harness;
  EXPECT_EQ(dumped_keys(harness.run("lru_crawler metadump all\r\n")), std::set<std::string>{});
  std::string text;
  for (int n = 0; n < 20; ++n) text += store_text("set", "m" + std::to_string(n), "v", 0, 0);
  text += store_text("set", "big", std::string(5000, 'b'));  // another slab class
  text += store_text("set", "expired", "v", 0, -1);          // linked, but not live
  text += "delete m3\r\ndelete m4\r\n" + store_text("set", "m5", "again");
  std::string stored;
  for (int n = 0; n < 22; ++n) stored += "STORED\r\n";
  EXPECT_EQ(harness.run(text), stored + "DELETED\r\nDELETED\r\nSTORED\r\n");
  std::set<std::string> live = {"big"};
  for (int n = 0; n < 20; ++n)
    if (n != 3 && n != 4) live.insert("m" + std::to_string(n));
  // in the batch that stores, and in a later one
  const auto same_batch =
      harness.run(store_text("set", "m20", "v") + "lru_crawler metadump all\r\n");
  live.insert("m20");
  EXPECT_EQ(dumped_keys(same_batch.substr(8)), live);
  EXPECT_EQ(dumped_keys(harness.run("lru_crawler metadump all\r\n")), live);
  // the list form dumps the named live keys
  EXPECT_EQ(dumped_keys(harness.run("lru_crawler metadump m1 m3 nokey big expired\r\n")),
            (std::set<std::string>{"m1", "big"}));
  harness.run("flush_all\r\n" + store_text("set", "after", "v"));
  EXPECT_EQ(dumped_keys(harness.run("lru_crawler metadump all\r\n")),
            std::set<std::string>{"after"});
}

// ---- stats ----------------------------------------------------------------------------------

/// "STAT <name> <value>": a name of [a-z0-9_:], a value without spaces.
bool is_stat_line(std::string_view line) {
  if (!line.starts_with("STAT ")) return false;
  line.remove_prefix(5);
  const std::size_t space = line.find(' ');
  if (space == 0 || space == std::string_view::npos || space + 1 == line.size()) return false;
  const auto name_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == ':';
  };
  const std::string_view name = line.substr(0, space);
  const std::string_view value = line.substr(space + 1);
  return std::all_of(name.begin(), name.end(), name_char) &&
         value.find_first_of(" \r\n") == std::string_view::npos;
}

TEST(Stats, LinesAreWellFormedAndIncludeTheIndex) {
  engine_harness harness;
  harness.run(store_text("set", "s1", "v") + "get s1 s2\r\n");
  const std::string reply = harness.run("stats\r\n");
  std::string_view rest = reply;
  std::size_t lines = 0;
  while (rest.starts_with("STAT ")) {
    const std::size_t end = rest.find("\r\n");
    EXPECT_TRUE(is_stat_line(rest.substr(0, end))) << rest.substr(0, end);
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 2);
    ++lines;
  }
  EXPECT_EQ(rest, "END\r\n");
  EXPECT_GT(lines, 40u);

  const auto stats = harness.stats();
  for (const char* name :
       {"index_entries", "index_capacity", "index_memory_bytes", "index_rebuilds", "index_overflow",
        "index_failovers", "index_erase_misses", "index_batches", "index_batch_operations",
        "index_batch_max_operations", "index_batch_mean_ns", "index_wait_groups_held",
        "index_wait_groups_sent", "index_batches_overlapped", "index_kernel_renewals"}) {
    ASSERT_TRUE(stats.contains(name)) << name;
    EXPECT_TRUE(is_number(stats.at(name))) << name << " " << stats.at(name);
  }
  EXPECT_EQ(stats.at("index"), "cpu");
  EXPECT_EQ(stats.at("index_entries"), "1");
  EXPECT_EQ(stats.at("curr_items"), "1");
  EXPECT_EQ(stats.at("get_hits"), "1");
  EXPECT_EQ(stats.at("get_misses"), "1");
  EXPECT_EQ(stats.at("cmd_set"), "1");
  EXPECT_GE(std::stoull(stats.at("index_capacity")), std::stoull(stats.at("index_entries")));
  // two batches so far with index work: the set's (search) and the one that inserted it
  EXPECT_GE(std::stoull(stats.at("index_batches")), 2u);

  for (const char* sub : {"stats settings\r\n", "stats items\r\n", "stats slabs\r\n"}) {
    const std::string reply_text = harness.run(sub);
    std::string_view text = reply_text;
    while (text.starts_with("STAT ")) {
      const std::size_t end = text.find("\r\n");
      EXPECT_TRUE(is_stat_line(text.substr(0, end))) << sub << text.substr(0, end);
      text.remove_prefix(end == std::string_view::npos ? text.size() : end + 2);
    }
    EXPECT_EQ(text, "END\r\n") << sub;
  }
  EXPECT_EQ(harness.run("stats reset\r\n"), "RESET\r\n");
  EXPECT_EQ(harness.stats().at("get_hits"), "0");
}

}  // namespace
}  // namespace gpuhash::server::engine::testing
