// Tests of the request parser against memcached 1.6.18. An expectation under
// a "memcached 1.6.18" comment was checked against Debian's memcached 1.6.18
// over a socket (memcached -p 22122 -U 0, replies read with Python); one
// under "gpuhash" is a deliberate departure, explained in request_parser.cpp.

#include "protocol/request.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace gpuhash::server::protocol {
namespace {

using namespace std::string_view_literals;

std::string_view name_of(command kind) {
  switch (kind) {
    case command::get: return "get";
    case command::gets: return "gets";
    case command::gat: return "gat";
    case command::gats: return "gats";
    case command::set: return "set";
    case command::add: return "add";
    case command::replace: return "replace";
    case command::append: return "append";
    case command::prepend: return "prepend";
    case command::cas: return "cas";
    case command::delete_: return "delete";
    case command::incr: return "incr";
    case command::decr: return "decr";
    case command::touch: return "touch";
    case command::flush_all: return "flush_all";
    case command::version: return "version";
    case command::verbosity: return "verbosity";
    case command::stats: return "stats";
    case command::cache_memlimit: return "cache_memlimit";
    case command::lru: return "lru";
    case command::quit: return "quit";
    case command::shutdown: return "shutdown";
    case command::lru_crawler_metadump: return "metadump";
    case command::meta_get: return "mg";
    case command::meta_set: return "ms";
    case command::meta_delete: return "md";
    case command::meta_arithmetic: return "ma";
    case command::meta_noop: return "mn";
    case command::meta_debug: return "me";
  }
  return "?";
}

/// An outcome written out with every field away from its default, so that
/// two outcomes are equal exactly when their descriptions are. A request's
/// `consumed` is left out (the tables check it apart), an error's is not.
std::string describe(const parse_result& result, const request& parsed) {
  std::string text;
  const auto field = [&](std::string_view name, const auto& value, const auto& unset) {
    if (value == unset) return;
    text.append(" ").append(name).append("=");
    if constexpr (std::is_integral_v<std::decay_t<decltype(value)>>) {
      text.append(std::to_string(value));
    } else {
      text.append(value);
    }
  };
  switch (result.outcome) {
    case parse_outcome::need_more:
      text = "need_more";
      field("consumed", result.consumed, std::size_t{0});
      return text;
    case parse_outcome::error: {
      std::string_view reply = result.error_reply;
      text = "error ";
      if (reply.ends_with("\r\n")) {
        reply.remove_suffix(2);
      } else {
        text.append("<no CRLF> ");
      }
      text.append(reply);
      text.append(" consumed=").append(std::to_string(result.consumed));
      if (result.silent) text.append(" silent");
      if (result.close_connection) text.append(" close");
      return text;
    }
    case parse_outcome::request: break;
  }
  text = name_of(parsed.kind);
  field("key", parsed.key, ""sv);
  std::string keys;
  for (std::string_view key : parsed.keys) keys.append(keys.empty() ? "" : ",").append(key);
  field("keys", keys, std::string{});
  field("flags", parsed.client_flags, std::uint32_t{0});
  field("exptime", parsed.exptime, std::int64_t{0});
  field("cas", parsed.cas_unique, std::uint64_t{0});
  field("delta", parsed.delta, std::uint64_t{0});
  field("delay", parsed.delay, std::int64_t{0});
  field("level", parsed.level, std::uint32_t{0});
  field("argument", parsed.argument, ""sv);
  field("subargument", parsed.subargument, ""sv);
  field("class", parsed.dump_class, std::uint32_t{0});
  field("limit", parsed.dump_limit, std::uint32_t{0});
  if (!parsed.dump_refusal.empty()) {
    std::string_view refusal = parsed.dump_refusal;
    refusal.remove_suffix(2);  // its "\r\n"
    text.append(" refusal=").append(refusal);
  }
  if (parsed.key_in_base64) {
    text.append(" item=").append(parsed.item_key().empty() ? "<undecodable>" : parsed.item_key());
  }
  if (parsed.kind == command::meta_set || !parsed.data.empty()) {
    text.append(" data=").append(parsed.data);
  }
  if (parsed.kind == command::lru) {
    const lru_change& lru = parsed.lru;
    using setting = lru_change::setting;
    char tune[96];
    std::snprintf(tune, sizeof tune, " tune=%u,%u,%g,%g", lru.hot_lru_pct, lru.warm_lru_pct,
                  lru.hot_max_factor, lru.warm_max_factor);
    if (lru.what == setting::tune) text.append(tune);
    if (lru.what == setting::mode) text.append(lru.segmented ? " mode=segmented" : " mode=flat");
    if (lru.what == setting::temp_ttl)
      text.append(" temp_ttl=").append(std::to_string(lru.temporary_ttl));
  }
  if (parsed.noreply) text.append(" noreply");
  std::string flags;
  for (const meta_flag& flag : parsed.meta_flags) {
    flags.append(flags.empty() ? "" : ",").append(1, flag.letter).append(flag.token);
  }
  field("meta", flags, std::string{});
  return text;
}

std::string parse_one(std::string_view input, const parser_limits& limits = {}) {
  request parsed;
  return describe(parse_request(input, limits, parsed), parsed);
}

/// A connection's loop: each chunk is appended to the input, every complete
/// request parsed, and the bytes an error asks for beyond the input dropped
/// as they come. Stops at an error that closes.
std::vector<std::string> feed(const std::vector<std::string_view>& chunks,
                              const parser_limits& limits = {}) {
  std::vector<std::string> events;
  std::string input;
  std::size_t swallow = 0;
  request parsed;
  for (std::string_view chunk : chunks) {
    input.append(chunk);
    while (true) {
      const std::size_t dropped = std::min(swallow, input.size());
      input.erase(0, dropped);
      swallow -= dropped;
      if (swallow != 0 || input.empty()) break;
      const parse_result result = parse_request(input, limits, parsed);
      if (result.outcome == parse_outcome::need_more) {
        if (result.consumed != 0) events.push_back("need_more consumed a byte");
        break;
      }
      std::string event = describe(result, parsed);
      if (result.outcome == parse_outcome::request) {
        event.append(" consumed=").append(std::to_string(result.consumed));
      }
      events.push_back(event);
      if (result.close_connection) return events;
      swallow = result.consumed;
    }
  }
  return events;
}

/// Every way of cutting `stream` in two, and byte by byte.
std::vector<std::vector<std::string>> every_split(std::string_view stream,
                                                  const parser_limits& limits) {
  std::vector<std::vector<std::string>> runs;
  for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
    runs.push_back(feed({stream.substr(0, cut), stream.substr(cut)}, limits));
  }
  std::vector<std::string_view> bytes;
  for (std::size_t i = 0; i < stream.size(); ++i) bytes.push_back(stream.substr(i, 1));
  runs.push_back(feed(bytes, limits));
  return runs;
}

TEST(RequestParserHelpers, DescribeTellsEveryFieldApart) {
  const parse_result accepted{parse_outcome::request, 1, {}, false, false};
  request base;
  base.kind = command::set;
  const std::string plain = describe(accepted, base);
  std::vector<request> variants(19, base);
  variants[0].kind = command::add;
  variants[1].key = "k";
  variants[2].keys = {"k"};
  variants[3].client_flags = 1;
  variants[4].exptime = -1;
  variants[5].cas_unique = 1;
  variants[6].delta = 1;
  variants[7].delay = 1;
  variants[8].level = 1;
  variants[9].argument = "a";
  variants[10].data = "d";
  variants[11].noreply = true;
  variants[12].meta_flags = {{'v', ""}};
  variants[13].key_in_base64 = true;  // and does not decode
  variants[14].key_in_base64 = true;
  variants[14].decoded_key = "k";
  variants[15].subargument = "s";
  variants[16].dump_class = 1;
  variants[17].dump_limit = 1;
  variants[18].dump_refusal = "CLIENT_ERROR x\r\n";
  std::vector<std::string> seen{plain};
  for (const request& variant : variants) {
    const std::string text = describe(accepted, variant);
    for (const std::string& other : seen) EXPECT_NE(text, other);
    seen.push_back(text);
  }
  const parse_result error{parse_outcome::error, 3, "ERROR\r\n", false, false};
  parse_result silent = error;
  silent.silent = true;
  parse_result closing = error;
  closing.close_connection = true;
  parse_result longer = error;
  longer.consumed = 4;
  EXPECT_EQ(describe(error, base), "error ERROR consumed=3");
  EXPECT_NE(describe(silent, base), describe(error, base));
  EXPECT_NE(describe(closing, base), describe(error, base));
  EXPECT_NE(describe(longer, base), describe(error, base));
}

TEST(RequestParserHelpers, FeedSwallowsAcrossChunks) {
  parser_limits limits;
  limits.item_size_max = 2;
  // The value is refused before its bytes arrive; they are dropped as they come.
  EXPECT_EQ(feed({"set a 0 0 5\r\nab", "c", "de\r", "\nmn\r\n"}, limits),
            (std::vector<std::string>{"error SERVER_ERROR object too large for cache consumed=20",
                                      "mn consumed=4"}));
}

// Requests that parse, each taking the whole input.
struct request_case {
  std::string_view input;
  std::string_view expected;
};

class ParsesRequest : public testing::TestWithParam<request_case> {};

TEST_P(ParsesRequest, AsMemcachedReadsIt) {
  const request_case& c = GetParam();
  request parsed;
  const parse_result result = parse_request(c.input, parser_limits{}, parsed);
  EXPECT_EQ(describe(result, parsed), c.expected) << c.input;
  EXPECT_EQ(result.consumed, c.input.size()) << c.input;
}

const std::string key_250(250, 'k');
const std::string get_250 = "get " + key_250 + "\r\n";
const std::string get_250_expected = "get keys=" + key_250;

INSTANTIATE_TEST_SUITE_P(
    Classic, ParsesRequest,
    testing::Values(
        request_case{"get a\r\n", "get keys=a"}, request_case{"get a b  c \r\n", "get keys=a,b,c"},
        // memcached 1.6.18: leading spaces, a bare "\n", and a NUL that ends the line.
        request_case{"  get a\r\n", "get keys=a"}, request_case{"get a\n", "get keys=a"},
        request_case{"get a\0b c\r\n"sv, "get keys=a"}, request_case{"gets a\r\n", "gets keys=a"},
        request_case{"bget a\r\n", "get keys=a"},
        request_case{"get / HTTP/1.1\r\n", "get keys=/,HTTP/1.1"},
        request_case{get_250, get_250_expected},
        request_case{"gat 10 a b\r\n", "gat keys=a,b exptime=10"},
        request_case{"gats -1 a\r\n", "gats keys=a exptime=-1"},
        // memcached 1.6.18: "gat 10" with no key answers END.
        request_case{"gat 10\r\n", "gat exptime=10"},
        request_case{"set a 5 0 2\r\nxy\r\n", "set key=a flags=5 data=xy"},
        request_case{"add a 0 0 1\r\nx\r\n", "add key=a data=x"},
        request_case{"replace a 0 0 1\r\nx\r\n", "replace key=a data=x"},
        request_case{"append a 0 0 1\r\nx\r\n", "append key=a data=x"},
        request_case{"prepend a 0 0 1 noreply\r\nx\r\n", "prepend key=a data=x noreply"},
        request_case{"set a 0 0 4\r\nx\r\ny\r\n", "set key=a data=x\r\ny"},
        request_case{"set a 4294967295 -1 0\r\n\r\n", "set key=a flags=4294967295 exptime=-1"},
        // memcached 1.6.18 keeps the low 32 bits of wider flags.
        request_case{"set a 4294967296 0 1\r\nx\r\n", "set key=a data=x"},
        request_case{"set a 4294967297 0 1\r\nx\r\n", "set key=a flags=1 data=x"},
        request_case{"set a 18446744073709551615 0 1\r\nx\r\n",
                     "set key=a flags=4294967295 data=x"},
        // memcached 1.6.18: numbers may be signed, indented with other
        // whitespace, or followed by whitespace and junk; "-0" is 0; an
        // unknown word in noreply's place is ignored.
        request_case{"set a +5 \t7 01\r\nx\r\n", "set key=a flags=5 exptime=7 data=x"},
        request_case{"set a 5\tz -0 1 foo\r\nx\r\n", "set key=a flags=5 data=x"},
        request_case{"set a 0 9223372036854775807 1\r\nx\r\n",
                     "set key=a exptime=9223372036854775807 data=x"},
        request_case{"set a 0 -9223372036854775808 1\r\nx\r\n",
                     "set key=a exptime=-9223372036854775808 data=x"},
        request_case{"cas a 1 2 1 18446744073709551615 noreply\r\nx\r\n",
                     "cas key=a flags=1 exptime=2 cas=18446744073709551615 data=x noreply"},
        // memcached 1.6.18: delete takes a hold time of 0 and noreply.
        request_case{"delete a\r\n", "delete key=a"},
        request_case{"delete a 0\r\n", "delete key=a"},
        request_case{"delete a noreply\r\n", "delete key=a noreply"},
        request_case{"delete a 0 noreply\r\n", "delete key=a noreply"},
        request_case{"incr a 18446744073709551615\r\n", "incr key=a delta=18446744073709551615"},
        request_case{"decr a 1 noreply\r\n", "decr key=a delta=1 noreply"},
        request_case{"incr a 1 foo\r\n", "incr key=a delta=1"},
        // memcached 1.6.18: strtoull wraps "-18446744073709551615" to 1 (5 became 6).
        request_case{"incr a -18446744073709551615\r\n", "incr key=a delta=1"},
        request_case{"touch a 10\r\n", "touch key=a exptime=10"},
        request_case{"touch a -1 noreply\r\n", "touch key=a exptime=-1 noreply"},
        request_case{"flush_all\r\n", "flush_all"},
        request_case{"flush_all -1\r\n", "flush_all delay=-1"},
        request_case{"flush_all noreply\r\n", "flush_all noreply"},
        request_case{"flush_all 10 noreply\r\n", "flush_all delay=10 noreply"},
        // memcached 1.6.18: "flush_all 1 2" answers OK, the 2 ignored.
        request_case{"flush_all 1 2\r\n", "flush_all delay=1"},
        request_case{"flush_all 9999999999\r\n", "flush_all delay=9999999999"},
        request_case{"verbosity 1\r\n", "verbosity level=1"},
        request_case{"verbosity 1 noreply\r\n", "verbosity level=1 noreply"},
        request_case{"verbosity 1 2\r\n", "verbosity level=1"},
        // memcached 1.6.18: "verbosity 4294967296" answers OK.
        request_case{"verbosity 4294967296\r\n", "verbosity level=4294967295"},
        request_case{"version\r\n", "version"}, request_case{"version x y z\r\n", "version"},
        request_case{"quit\r\n", "quit"}, request_case{"quit x\r\n", "quit"},
        request_case{"stats\r\n", "stats"},
        request_case{"stats settings\r\n", "stats argument=settings"},
        request_case{"stats items x y\r\n", "stats argument=items subargument=x"},
        request_case{"stats detail  dump\r\n", "stats argument=detail subargument=dump"},
        // memcached 1.6.18's process_stat: class and limit read as safe_strtoul
        // reads them (the low 32 bits), the class at most 63; the engine
        // sends the refusal unless -X refuses the dump first.
        request_case{"stats cachedump 3 10 x\r\n",
                     "stats argument=cachedump subargument=3 class=3 limit=10"},
        request_case{"stats cachedump 4294967297 +2\r\n",
                     "stats argument=cachedump subargument=4294967297 class=1 limit=2"},
        request_case{
            "stats cachedump 1\r\n",
            "stats argument=cachedump subargument=1 refusal=CLIENT_ERROR bad command line"},
        request_case{"stats cachedump 1 -1\r\n",
                     "stats argument=cachedump subargument=1 class=1 refusal=CLIENT_ERROR bad "
                     "command line format"},
        request_case{"stats cachedump 64 0\r\n",
                     "stats argument=cachedump subargument=64 class=64 refusal=CLIENT_ERROR "
                     "Illegal slab id"},
        request_case{"shutdown\r\n", "shutdown"},
        request_case{"shutdown graceful\r\n", "shutdown argument=graceful"},
        request_case{"shutdown  graceful  x \r\n", "shutdown argument=graceful  x"},
        request_case{"lru_crawler metadump all\r\n", "metadump argument=all"},
        // gpuhash: metadump also takes keys (memcached 1.6.18 takes one word).
        request_case{"lru_crawler metadump a  b \r\n", "metadump keys=a,b argument=a  b"},
        request_case{"lru_crawler metadump all b\r\n", "metadump keys=all,b argument=all b"}));

const std::string seventeen_flags = "mg a v k s t f c h l u O1 N1 T1 R1 P L I D1\r\n";

INSTANTIATE_TEST_SUITE_P(
    Meta, ParsesRequest,
    testing::Values(
        // memcached 1.6.18: mn answers MN whatever follows.
        request_case{"mn\r\n", "mn"}, request_case{"mn foo \x80\r\n", "mn"},
        request_case{"mg a\r\n", "mg key=a"}, request_case{"mg a v\n", "mg key=a meta=v"},
        request_case{seventeen_flags, "mg key=a meta=v,k,s,t,f,c,h,l,u,O1,N1,T1,R1,P,L,I,D1"},
        request_case{"mg a T-1 C-0 Mx\r\n", "mg key=a meta=T-1,C-0,Mx"},
        request_case{"mg a F4294967296\r\n", "mg key=a meta=F4294967296"},
        request_case{"mg a T99999999999 O1234567890123456789012345678901\r\n",
                     "mg key=a meta=T99999999999,O1234567890123456789012345678901"},
        // memcached 1.6.18's base64 skips bytes outside its alphabet.
        request_case{"mg YW== b\r\n", "mg key=YW== item=a meta=b"},
        request_case{"mg Y!WJj b k\r\n", "mg key=Y!WJj item=abc meta=b,k"},
        // memcached's checks let "A=AA" through; its decoding then fails.
        request_case{"mg A=AA b\r\n", "mg key=A=AA item=<undecodable> meta=b"},
        request_case{"ms a 1\r\nx\r\n", "ms key=a data=x"},
        request_case{"ms a 0\r\n\r\n", "ms key=a data="},
        request_case{"ms a 2 q T30 MA F4294967295 C5 I\r\nxy\r\n",
                     "ms key=a data=xy meta=q,T30,MA,F4294967295,C5,I"},
        request_case{"ms YWJj 1 b\r\nx\r\n", "ms key=YWJj item=abc data=x meta=b"},
        request_case{"ms a 1 v k s t f c h l u O1 N1 T1 R1 P L I\r\nx\r\n",
                     "ms key=a data=x meta=v,k,s,t,f,c,h,l,u,O1,N1,T1,R1,P,L,I"},
        request_case{"md a q\r\n", "md key=a meta=q"},
        request_case{"md a v k s t f c h l u O1 N1 T1 R1 P L I D1\r\n",
                     "md key=a meta=v,k,s,t,f,c,h,l,u,O1,N1,T1,R1,P,L,I,D1"},
        request_case{"ma a M+ N0 J5 D7\r\n", "ma key=a meta=M+,N0,J5,D7"},
        request_case{"ma a MD\r\n", "ma key=a meta=MD"}, request_case{"me a\r\n", "me key=a"},
        // memcached 1.6.18: me reads only a b right after the key.
        request_case{"me a x y z\r\n", "me key=a"},
        request_case{"me YWJj b\r\n", "me key=YWJj item=abc meta=b"},
        request_case{"me YWJj bx\r\n", "me key=YWJj"}));

// Errors. `block`: the data length memcached swallows after the line (-1 for none).
struct error_case {
  std::string_view input;
  std::string_view reply;  ///< without its "\r\n"
  std::int64_t block = -1;
  bool silent = false;
};

class AnswersError : public testing::TestWithParam<error_case> {};

TEST_P(AnswersError, AsMemcachedDoes) {
  const error_case& c = GetParam();
  parser_limits limits;
  limits.item_size_max = 100;
  const std::size_t line = c.input.find('\n') + 1;
  const std::size_t consumed = c.block < 0 ? line : line + static_cast<std::size_t>(c.block) + 2;
  std::string expected = "error " + std::string(c.reply) + " consumed=" + std::to_string(consumed);
  if (c.silent) expected.append(" silent");
  EXPECT_EQ(parse_one(c.input, limits), expected) << c.input;
}

const std::string key_251(251, 'k');
const std::string get_251 = "get a " + key_251 + " b\r\n";
const std::string set_251 = "set " + key_251 + " 0 0 1\r\nx\r\n";
const std::string set_251_noreply = "set " + key_251 + " 0 0 1 noreply\r\nx\r\n";
const std::string delete_251 = "delete " + key_251 + "\r\n";
const std::string delete_251_hold = "delete " + key_251 + " 1\r\n";
const std::string incr_251 = "incr " + key_251 + " 1\r\n";
const std::string touch_251 = "touch " + key_251 + " 1\r\n";
constexpr std::string_view bad_format = "CLIENT_ERROR bad command line format";
constexpr std::string_view usage =
    "CLIENT_ERROR bad command line format.  Usage: delete <key> [noreply]";

INSTANTIATE_TEST_SUITE_P(
    Classic, AnswersError,
    testing::Values(
        // memcached 1.6.18, every one unless marked gpuhash.
        error_case{"foo\r\n", "ERROR"}, error_case{"\r\n", "ERROR"}, error_case{"\n", "ERROR"},
        error_case{"   \r\n", "ERROR"}, error_case{"g\r\n", "ERROR"},
        error_case{"GET a\r\n", "ERROR"}, error_case{"foo HTTP/1.0 bar\r\n", "ERROR"},
        error_case{"get\r\n", "ERROR"}, error_case{"gets   \r\n", "ERROR"},
        error_case{"gat\r\n", "ERROR"},
        error_case{"gat x a\r\n", "CLIENT_ERROR invalid exptime argument"},
        error_case{"gat 99999999999999999999 a\r\n", "CLIENT_ERROR invalid exptime argument"},
        error_case{get_251, bad_format}, error_case{"set a 0 0\r\n", "ERROR"},
        error_case{"set a 0 0 1 noreply x\r\n", "ERROR"},
        error_case{"set a 0 0 1x\r\nx\r\n", bad_format},
        error_case{"set a -1 0 1\r\nx\r\n", bad_format},
        // Flags of more than 64 bits (a wider number than safe_strtoul reads).
        error_case{"set a 18446744073709551616 0 1\r\nx\r\n", bad_format},
        error_case{"set a 0 9223372036854775808 1\r\nx\r\n", bad_format},
        error_case{"set a 0x5 0 1\r\nx\r\n", bad_format},
        // A length that is negative or not a number: memcached cannot swallow the block.
        error_case{"set a 0 0 -1\r\nget a\r\n", bad_format},
        error_case{"set a 0 0 \t\r\n", bad_format},
        error_case{"set a 0 0 2147483646\r\n", bad_format},
        // gpuhash: memcached reads 4294967297 as 1.
        error_case{"set a 0 0 4294967297\r\nx\r\n", bad_format},
        // "noreply" silences the errors after the word count (memcached 1.6.18).
        error_case{"set a 0 0 1x noreply\r\nx\r\n", bad_format, -1, true},
        error_case{"set a 0 0 noreply\r\n", bad_format, -1, true},
        error_case{"cas a 0 0 1\r\nx\r\n", "ERROR"},
        error_case{"cas a 0 0 1 x\r\nx\r\n", bad_format},
        error_case{"cas a 0 0 1 -1\r\nx\r\n", bad_format},
        error_case{"cas a 0 0 1 18446744073709551616\r\nx\r\n", bad_format},
        // A key over 250 bytes: memcached does not swallow the block.
        error_case{set_251, bad_format}, error_case{set_251_noreply, bad_format, -1, true},
        // A bad chunk: memcached reads length + 2 bytes and checks the last two.
        error_case{"set a 0 0 1\r\nxy\r\nget a\r\n", "CLIENT_ERROR bad data chunk", 1},
        error_case{"set a 0 0 1\r\nx\nget a\r\n", "CLIENT_ERROR bad data chunk", 1},
        error_case{"set a 0 0 1\r\nx\r\r\n", "CLIENT_ERROR bad data chunk", 1},
        error_case{"set a 0 0 1 noreply\r\nxyz\r\n", "CLIENT_ERROR bad data chunk", 1, true},
        // memcached 1.6.18 compares the length with its limit before reading the block.
        error_case{"set a 0 0 101\r\n", "SERVER_ERROR object too large for cache", 101},
        error_case{"set a 0 0 2147483645 noreply\r\n", "SERVER_ERROR object too large for cache",
                   2147483645, true},
        error_case{"delete\r\n", "ERROR"}, error_case{"delete a b c d\r\n", "ERROR"},
        error_case{"delete a 1\r\n", usage}, error_case{"delete a 0 x\r\n", usage},
        error_case{"delete a x noreply\r\n", usage, -1, true}, error_case{delete_251, bad_format},
        error_case{delete_251_hold, usage}, error_case{"incr n\r\n", "ERROR"},
        error_case{"incr a x\r\n", "CLIENT_ERROR invalid numeric delta argument"},
        error_case{"incr a -1\r\n", "CLIENT_ERROR invalid numeric delta argument"},
        error_case{"decr a 18446744073709551616\r\n",
                   "CLIENT_ERROR invalid numeric delta argument"},
        error_case{"incr a x noreply\r\n", "CLIENT_ERROR invalid numeric delta argument", -1, true},
        error_case{incr_251, bad_format}, error_case{"touch a\r\n", "ERROR"},
        error_case{"touch a x\r\n", "CLIENT_ERROR invalid exptime argument"},
        error_case{"touch a x noreply\r\n", "CLIENT_ERROR invalid exptime argument", -1, true},
        error_case{"touch a 1 2 3\r\n", "ERROR"}, error_case{touch_251, bad_format},
        error_case{"flush_all x\r\n", "CLIENT_ERROR invalid exptime argument"},
        error_case{"flush_all x noreply\r\n", "CLIENT_ERROR invalid exptime argument", -1, true},
        error_case{"flush_all noreply noreply\r\n", "CLIENT_ERROR invalid exptime argument", -1,
                   true},
        error_case{"flush_all 1 2 3\r\n", "ERROR"}, error_case{"verbosity\r\n", "ERROR"},
        error_case{"verbosity x\r\n", bad_format}, error_case{"verbosity -1\r\n", bad_format},
        error_case{"verbosity noreply\r\n", bad_format, -1, true},
        error_case{"verbosity 1 2 3\r\n", "ERROR"}, error_case{"lru_crawler\r\n", "ERROR"},
        error_case{"lru_crawler metadump\r\n", "ERROR"}, error_case{"lru_crawler foo\r\n", "ERROR"},
        // The answers of a memcached 1.6.18 whose crawler cannot run.
        error_case{"lru_crawler crawl all\r\n", "CLIENT_ERROR lru crawler disabled"},
        error_case{"lru_crawler enable\r\n", "ERROR failed to start lru crawler thread"},
        // gpuhash: the crawler's settings are refused (memcached answers OK).
        error_case{"lru_crawler tocrawl 5\r\n", "ERROR"}));

const std::string mg_251 = "mg " + key_251 + " v\r\n";
const std::string ms_251 = "ms " + key_251 + " 1\r\nx\r\n";
const std::string me_251 = "me " + key_251 + "\r\n";
const std::string eighteen_flags = "mg a v k s t f c h l u O1 N1 T1 R1 P L I D1 q\r\n";
const std::string ms_seventeen_flags = "ms a 1 v k s t f c h l u O1 N1 T1 R1 P L I q\r\nx\r\n";
const std::string md_eighteen_flags = "md a v k s t f c h l u O1 N1 T1 R1 P L I D1 q\r\n";
constexpr std::string_view long_opaque = "O12345678901234567890123456789012";
const std::string mg_long_opaque = "mg a " + std::string(long_opaque) + "\r\n";
const std::string ms_long_opaque = "ms a 1 " + std::string(long_opaque) + "\r\nx\r\n";
const std::string ms_long_opaque_bad_mode = "ms a 1 " + std::string(long_opaque) + " MX\r\nx\r\n";
const std::string md_long_opaque = "md a " + std::string(long_opaque) + "\r\n";
const std::string ma_long_opaque = "ma a " + std::string(long_opaque) + "\r\n";
const std::string ma_long_opaque_bad_mode = "ma a " + std::string(long_opaque) + " MX\r\n";
constexpr std::string_view bad_token = "CLIENT_ERROR bad token in command line format";
constexpr std::string_view decoding = "CLIENT_ERROR error decoding key";
constexpr std::string_view duplicate = "CLIENT_ERROR duplicate flag";
constexpr std::string_view invalid_or_duplicate = "CLIENT_ERROR invalid or duplicate flag";
constexpr std::string_view opaque_too_long = "CLIENT_ERROR opaque token too long";

INSTANTIATE_TEST_SUITE_P(
    Meta, AnswersError,
    testing::Values(
        // memcached 1.6.18, every one unless marked gpuhash; q silences none.
        error_case{"mx\r\n", "ERROR"}, error_case{"mg\r\n", "ERROR"},
        error_case{mg_251, bad_format}, error_case{"mg a v v\r\n", duplicate},
        error_case{"mg a b b\r\n", duplicate}, error_case{"mg a \x80\r\n", duplicate},
        error_case{"mg a \x7f\r\n", duplicate},
        error_case{"mg a x\r\n", "CLIENT_ERROR invalid flag"},
        // E, the explicit CAS, came after 1.6.18.
        error_case{"mg a D5 J5 C5 F5 I E\r\n", "CLIENT_ERROR invalid flag"},
        error_case{"mg a T\r\n", bad_token}, error_case{"mg a Tx\r\n", bad_token},
        error_case{"mg a T5x q\r\n", bad_token}, error_case{"mg a N\r\n", bad_token},
        error_case{"mg a C-1\r\n", bad_token}, error_case{"mg a Fx\r\n", bad_format},
        error_case{"mg a F-1\r\n", bad_format}, error_case{"mg a Tx Fx\r\n", bad_token},
        error_case{"mg a Fx Tx\r\n", bad_token}, error_case{"mg a Tx Nx v v\r\n", duplicate},
        error_case{"mg a F18446744073709551616\r\n", bad_format},
        error_case{"mg a M\r\n", "CLIENT_ERROR incorrect length for M token"},
        error_case{"mg a MSS\r\n", "CLIENT_ERROR incorrect length for M token"},
        error_case{"mg YWJ b\r\n", decoding}, error_case{"mg !!!! b\r\n", decoding},
        error_case{"mg ==== b\r\n", decoding}, error_case{"mg Y=== b\r\n", decoding},
        error_case{"mg YWJj=== b\r\n", decoding}, error_case{"mg a b k\r\n", decoding},
        error_case{mg_long_opaque, opaque_too_long},
        error_case{eighteen_flags, "CLIENT_ERROR options flags are too long"},
        error_case{"ms\r\n", "ERROR"}, error_case{"ms a\r\n", bad_format},
        error_case{"ms a x\r\nx\r\n", bad_format}, error_case{"ms a -1\r\n", bad_format},
        error_case{ms_251, bad_format},
        error_case{ms_seventeen_flags, "CLIENT_ERROR options flags too long"},
        // After the length, memcached swallows the block with the error.
        error_case{"ms a 1 v v\r\nx\r\n", duplicate, 1},
        error_case{"ms a 1 Z\r\nx\r\n", "CLIENT_ERROR invalid flag", 1},
        error_case{"ms a 1 MX\r\nx\r\n", "CLIENT_ERROR invalid mode for ms M token", 1},
        error_case{"ms a 1 Tx\r\nx\r\n", bad_token, 1},
        error_case{"ms a 1 Fx\r\nx\r\n", bad_format, 1},
        error_case{"ms a 1 Cx\r\nx\r\n", bad_token, 1},
        error_case{"ms a 1 Dx\r\nx\r\n", "CLIENT_ERROR invalid numeric delta value", 1},
        error_case{"ms a 1 Jx\r\nx\r\n", "CLIENT_ERROR invalid numeric initial value", 1},
        error_case{"ms a 1 Tx Dx\r\nx\r\n", "CLIENT_ERROR invalid numeric delta value", 1},
        error_case{"ms a 1 Dx v v\r\nx\r\n", duplicate, 1},
        error_case{"ms a 1 b\r\nx\r\n", decoding, 1},
        error_case{ms_long_opaque, opaque_too_long, 1},
        error_case{ms_long_opaque_bad_mode, "CLIENT_ERROR invalid mode for ms M token", 1},
        error_case{"ms a 101 T1\r\n", "SERVER_ERROR object too large for cache", 101},
        error_case{"ms a 1 q\r\nxy\r\n", "CLIENT_ERROR bad data chunk", 1},
        error_case{"md\r\n", "ERROR"}, error_case{"md a v v q\r\n", invalid_or_duplicate},
        error_case{"md a Z\r\n", invalid_or_duplicate},
        error_case{"md a Tx\r\n", invalid_or_duplicate},
        error_case{md_long_opaque, opaque_too_long},
        error_case{md_eighteen_flags, "CLIENT_ERROR options flags too long"},
        error_case{"ma\r\n", "ERROR"}, error_case{"ma a Dx\r\n", invalid_or_duplicate},
        error_case{"ma a M\r\n", invalid_or_duplicate},
        error_case{"ma a MX\r\n", "CLIENT_ERROR invalid mode for ma M token"},
        error_case{ma_long_opaque, opaque_too_long},
        error_case{ma_long_opaque_bad_mode, "CLIENT_ERROR invalid mode for ma M token"},
        error_case{"me\r\n", bad_format}, error_case{"me a b\r\n", bad_format},
        error_case{"me a b c\r\n", bad_format}, error_case{"me !!!! b\r\n", bad_format},
        error_case{me_251, bad_format}));

TEST(RequestParser, NeedsMoreUntilTheRequestIsWhole) {
  for (std::string_view partial :
       {""sv, "g"sv, "get a"sv, "get a\r"sv, "set a 0 0 5\r\n"sv, "set a 0 0 5\r\nabcde\r"sv,
        "ms a 2 T1\r\nx"sv, "set a 0 0 1\r\nx"sv}) {
    EXPECT_EQ(parse_one(partial), "need_more") << partial;
  }
}

TEST(RequestParser, RefusesTheBinaryProtocolAndCloses) {
  // A binary get of "a": magic 0x80, opcode 0, key length 1, body length 1.
  std::string binary_get(24, '\0');
  binary_get[0] = '\x80';
  binary_get[3] = 1;
  binary_get[11] = 1;
  binary_get.push_back('a');
  const std::string expected =
      "error CLIENT_ERROR binary protocol is not supported consumed=0 close";
  EXPECT_EQ(parse_one(binary_get), expected);
  EXPECT_EQ(parse_one("\x80"), expected);
}

TEST(RequestParser, ClosesSilentlyOnAnHttpRequest) {
  // memcached 1.6.18 closes without a word.
  for (std::string_view input :
       {"GET / HTTP/1.1\r\n"sv, "HTTP/1.0\r\n"sv, "DELETE /x HTTP/1.0\n"sv}) {
    EXPECT_EQ(parse_one(input), "error ERROR consumed=0 silent close") << input;
  }
}

TEST(RequestParser, ClosesOnALineTooLongUnlessAMultiGet) {
  // memcached 1.6.18 closes a connection holding 2049 bytes of a line
  // without '\n' (2048 stay open), unless it is a get or gets after at most
  // 100 spaces. A longer line that came whole is read like any other
  // (checked: "x" x 3000 then "\r\n" in one write answers ERROR, and a set
  // with a 3000-byte key CLIENT_ERROR bad command line format), up to its
  // 16 KB read buffer.
  const std::string closed = "error CLIENT_ERROR line too long consumed=0 silent close";
  EXPECT_EQ(parse_one(std::string(2048, 'x')), "need_more");
  EXPECT_EQ(parse_one(std::string(2049, 'x')), closed);
  EXPECT_EQ(parse_one(std::string(2047, 'x') + "\r\n"), "error ERROR consumed=2049");
  EXPECT_EQ(parse_one(std::string(3000, 'x') + "\r\n"), "error ERROR consumed=3002");
  EXPECT_EQ(parse_one(std::string(16384, 'x') + "\n"), "error ERROR consumed=16385");
  EXPECT_EQ(parse_one(std::string(16385, 'x') + "\n"), closed);
  EXPECT_EQ(parse_one("set " + std::string(3000, 'k') + " 0 0 1\r\nx\r\n"),
            "error CLIENT_ERROR bad command line format consumed=3012");  // not the block
  EXPECT_EQ(parse_one("gat 0" + std::string(3000, ' ') + "a"), closed);
  EXPECT_EQ(parse_one(std::string(101, ' ') + "get" + std::string(3000, ' ') + "a"), closed);

  std::string keys;
  std::string expected = "get keys=";
  for (int i = 0; i < 1000; ++i) {
    const std::string key = "key" + std::to_string(i);
    keys.append(" ").append(key);
    expected.append(i == 0 ? "" : ",").append(key);
  }
  for (const std::string& command : {"get" + keys, std::string(100, ' ') + "get" + keys}) {
    EXPECT_EQ(parse_one(command), "need_more");
    EXPECT_EQ(parse_one(command + "\r\n"), expected);
  }
  EXPECT_EQ(parse_one("gets" + keys + "\r\n"), "gets" + expected.substr(3));
  EXPECT_EQ(parse_one("get" + keys + " " + key_251 + "\r\n").substr(0, 42),
            "error CLIENT_ERROR bad command line format");
}

TEST(RequestParser, SplitsAtMostTwentyThreeWordsLikeMemcached) {
  // memcached 1.6.18 reads 23 words; the HTTP/ check looks at the 23rd.
  std::string words;
  for (int i = 0; i < 21; ++i) words.append(" w");
  EXPECT_EQ(parse_one("foo" + words + " HTTP/1.1\r\n"), "error ERROR consumed=0 silent close");
  EXPECT_EQ(parse_one("foo" + words + " w HTTP/1.1\r\n"),
            "error ERROR consumed=" + std::to_string(3 + 42 + 2 + 11));
  // get reads on past them.
  std::string keys;
  for (int i = 0; i < 30; ++i) keys.append(" k").append(std::to_string(i));
  request parsed;
  ASSERT_EQ(parse_request("get" + keys + "\r\n", parser_limits{}, parsed).outcome,
            parse_outcome::request);
  EXPECT_EQ(parsed.keys.size(), 30u);
}

// A multi-get's keys are read from the words split (fewer than 23) or by
// reading on (23 and more): both ways alike, on either side of the limit,
// with gat's exptime word, and a bad key anywhere refusing the command.
TEST(RequestParser, MultiGetsReadEveryKeyAroundTheWordLimit) {
  const std::string long_key(251, 'k');
  for (const std::string_view verb : {"get"sv, "gat 10"sv}) {
    const std::string prefix = verb == "get" ? "get keys=" : "gat keys=";
    const std::string suffix = verb == "get" ? "" : " exptime=10";
    for (int n = 18; n <= 26; ++n) {
      std::string line(verb);
      std::string expected = prefix;
      for (int i = 0; i < n; ++i) {
        line.append(i % 3 == 0 ? "  " : " ").append("k" + std::to_string(i));
        expected.append(i == 0 ? "" : ",").append("k" + std::to_string(i));
      }
      EXPECT_EQ(parse_one(line + " \r\n"), expected + suffix) << line;
      for (const int bad : {0, n / 2, n - 1}) {
        std::string refused(verb);
        for (int i = 0; i < n; ++i) refused.append(" ").append(i == bad ? long_key : "k");
        EXPECT_EQ(parse_one(refused + "\r\n").substr(0, 42),
                  "error CLIENT_ERROR bad command line format")
            << verb << ", " << n << " keys, the bad one at " << bad;
      }
    }
  }
}

TEST(RequestParser, KeyLengthFollowsTheLimits) {
  parser_limits limits;
  limits.key_max = 3;
  EXPECT_EQ(parse_one("get abc\r\n", limits), "get keys=abc");
  EXPECT_EQ(parse_one("get abcd\r\n", limits),
            "error CLIENT_ERROR bad command line format consumed=10");
  EXPECT_EQ(parse_one(get_250), get_250_expected);
}

// A pipelined stream gives the same requests and errors however it is cut.
TEST(RequestParser, PipelinedStreamParsesAlikeAtEverySplit) {
  parser_limits limits;
  limits.item_size_max = 16;
  const std::string stream =
      std::string("set a 0 0 1\r\nx\r\n") + "get a b\r\n" + "set big 0 0 20 noreply\r\n" +
      std::string(20, 'v') + "\r\n" + "set c 0 0 1\r\nxy\r\n" + "ms k 2 T30 F5 q\r\nhi\r\n" +
      "ms k 40 v v\r\n" + std::string(40, 'w') + "\r\n" + "mg k v k\n" + "incr n 5 noreply\r\n" +
      "delete a 0\r\n" + "bogus\r\n" + "gat 10 a\r\n" + "mn\r\n" + "quit\r\n";
  const std::vector<std::string> expected{
      "set key=a data=x consumed=16", "get keys=a,b consumed=9",
      "error SERVER_ERROR object too large for cache consumed=46 silent",
      "error CLIENT_ERROR bad data chunk consumed=16",
      // memcached 1.6.18: the '\n' left by the bad chunk is an empty line.
      "error ERROR consumed=1", "ms key=k data=hi meta=T30,F5,q consumed=21",
      "error CLIENT_ERROR duplicate flag consumed=55", "mg key=k meta=v,k consumed=9",
      "incr key=n delta=5 noreply consumed=18", "delete key=a consumed=12",
      "error ERROR consumed=7", "gat keys=a exptime=10 consumed=10", "mn consumed=4",
      "quit consumed=6"};
  EXPECT_EQ(feed({stream}, limits), expected);
  const auto runs = every_split(stream, limits);
  for (std::size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(runs[i], expected) << "split " << i;
}

TEST(RequestParser, ClosingErrorsEndTheStreamAtEverySplit) {
  const std::string stream = "get a\r\n" + std::string(20000, 'y') + "\r\nget b\r\n";
  const std::vector<std::string> expected{
      "get keys=a consumed=7", "error CLIENT_ERROR line too long consumed=0 silent close"};
  for (const auto& run : every_split(stream, parser_limits{})) EXPECT_EQ(run, expected);
}

TEST(RequestParser, ALongLineClosesOnlyWhenCutBeforeItsNewline) {
  // As in memcached: 2100 bytes whole are a line (ERROR); cut after 2048
  // bytes without their '\n', the connection closes.
  const std::string line = std::string(2100, 'y') + "\r\n";
  EXPECT_EQ(feed({"get a\r\n" + line + "get b\r\n"}),
            (std::vector<std::string>{"get keys=a consumed=7", "error ERROR consumed=2102",
                                      "get keys=b consumed=7"}));
  EXPECT_EQ(feed({"get a\r\n" + line.substr(0, 2049), line.substr(2049) + "get b\r\n"}),
            (std::vector<std::string>{"get keys=a consumed=7",
                                      "error CLIENT_ERROR line too long consumed=0 silent close"}));
}

TEST(RequestParser, ReusesTheRequestItFills) {
  request parsed;
  parser_limits limits;
  ASSERT_EQ(parse_request("ms a 1 T5 q\r\nx\r\n", limits, parsed).outcome, parse_outcome::request);
  ASSERT_EQ(parse_request("get b c\r\n", limits, parsed).outcome, parse_outcome::request);
  EXPECT_EQ(describe(parse_request("get b c\r\n", limits, parsed), parsed), "get keys=b,c");
  parsed.clear();
  EXPECT_EQ(describe(parse_result{parse_outcome::request, 1, {}, false, false}, parsed), "get");
}

TEST(NumberParsing, FollowsMemcachedsSafeStrtoull) {
  std::uint64_t value = 7;
  EXPECT_TRUE(parse_unsigned_number("18446744073709551615", value));
  EXPECT_EQ(value, 18446744073709551615u);
  EXPECT_TRUE(parse_unsigned_number("+5", value));
  EXPECT_EQ(value, 5u);
  EXPECT_TRUE(parse_unsigned_number("\t 5\rjunk", value));
  EXPECT_EQ(value, 5u);
  EXPECT_TRUE(parse_unsigned_number("-0", value));
  EXPECT_EQ(value, 0u);
  EXPECT_TRUE(parse_unsigned_number("-18446744073709551615", value));
  EXPECT_EQ(value, 1u);
  for (std::string_view bad : {""sv, " "sv, "+"sv, "-"sv, "-1"sv, "5x"sv, "0x5"sv, "\v"sv,
                               "18446744073709551616"sv, "99999999999999999999999"sv}) {
    EXPECT_FALSE(parse_unsigned_number(bad, value)) << bad;
  }
}

TEST(NumberParsing, FollowsMemcachedsSafeStrtoll) {
  std::int64_t value = 7;
  EXPECT_TRUE(parse_signed_number("9223372036854775807", value));
  EXPECT_EQ(value, INT64_MAX);
  EXPECT_TRUE(parse_signed_number("-9223372036854775808", value));
  EXPECT_EQ(value, INT64_MIN);
  EXPECT_TRUE(parse_signed_number("-5\t", value));
  EXPECT_EQ(value, -5);
  for (std::string_view bad :
       {""sv, "x"sv, "1.5"sv, "9223372036854775808"sv, "-9223372036854775809"sv, "--1"sv}) {
    EXPECT_FALSE(parse_signed_number(bad, value)) << bad;
  }
}

TEST(ValidKey, RefusesEmptyAndLongKeysOnly) {
  // memcached 1.6.18 stores keys with control bytes (its tokenizer splits at
  // spaces only); a key parsed from a line holds no space, '\n' or NUL.
  const parser_limits limits;
  EXPECT_TRUE(valid_key("a", limits));
  EXPECT_TRUE(valid_key(key_250, limits));
  EXPECT_TRUE(valid_key("\xc3\xa9t\xc3\xa9", limits));  // UTF-8 is fine
  for (std::string_view control : {"a\tb"sv, "a\rb"sv, "\x7f"sv, "\x1f"sv, "\x01key"sv})
    EXPECT_TRUE(valid_key(control, limits)) << control;
  EXPECT_FALSE(valid_key("", limits));
  EXPECT_FALSE(valid_key(key_251, limits));
}

TEST(RequestParser, KeepsControlBytesInKeysLikeMemcached) {
  // memcached 1.6.18 (checked): "set c\x01d 0 0 1" is STORED, and a
  // multi-get naming it returns it among the other keys.
  EXPECT_EQ(parse_one("set c\x01"
                      "d 0 0 1\r\nx\r\n"),
            "set key=c\x01"
            "d data=x");
  EXPECT_EQ(parse_one("get zz c\x01"
                      "d yy\r\n"),
            "get keys=zz,c\x01"
            "d,yy");
  EXPECT_EQ(parse_one("get tab\tkey\r\n"), "get keys=tab\tkey");
  EXPECT_EQ(parse_one("get a\rb\r\n"), "get keys=a\rb");
  EXPECT_EQ(parse_one("mg m\x01k v\r\n"), "mg key=m\x01k meta=v");
  EXPECT_EQ(parse_one("delete d\x7fk\r\n"), "delete key=d\x7fk");
  // a NUL cuts the line, as memcached's strlen cuts it
  EXPECT_EQ(parse_one(std::string_view("get a\0b c\r\n", 12)), "get keys=a");
}

// ---- which keys a request names (protocol::scope_of, for_each_item_key) ------------

std::vector<std::string> item_keys_of(std::string_view input, std::size_t first = 0) {
  request parsed;
  parse_request(input, {}, parsed);
  std::vector<std::string> keys;
  for_each_item_key(parsed, first, [&](std::string_view key) { keys.emplace_back(key); });
  return keys;
}

TEST(ItemKeys, EachCommandNamesItsKeysOnce) {
  using keys = std::vector<std::string>;
  EXPECT_EQ(item_keys_of("get a b c\r\n"), (keys{"a", "b", "c"}));
  EXPECT_EQ(item_keys_of("get a b c\r\n", 2), (keys{"c"}));  // a multi-get going on
  EXPECT_EQ(item_keys_of("set a 0 0 1\r\nx\r\n"), (keys{"a"}));
  EXPECT_EQ(item_keys_of("delete a\r\n"), (keys{"a"}));
  EXPECT_EQ(item_keys_of("mg YWJj b v\r\n"), (keys{"abc"}));  // decoded once, by the parser
  EXPECT_EQ(item_keys_of("mg A=AA b\r\n"), keys{});           // does not decode: no key
  EXPECT_EQ(item_keys_of("lru_crawler metadump a b\r\n"), (keys{"a", "b"}));
  EXPECT_EQ(item_keys_of("lru_crawler metadump all\r\n"), keys{});
  EXPECT_EQ(item_keys_of("stats\r\n"), keys{});
  EXPECT_EQ(item_keys_of("mn\r\n"), keys{});
  EXPECT_EQ(scope_of(command::gats), key_scope::many);
  EXPECT_EQ(scope_of(command::meta_debug), key_scope::one);
  EXPECT_EQ(scope_of(command::cache_memlimit), key_scope::every);
  EXPECT_EQ(scope_of(command::lru), key_scope::every);
  EXPECT_EQ(scope_of(command::verbosity), key_scope::none);
}

// lru tune|mode|temp_ttl, read as memcached 1.6.18's process_lru_command
// reads them (checked against memcached 1.6.18: test_lru.py's
// LruCommandTest); noreply silences its errors too.
TEST(RequestParser, LruCommand) {
  EXPECT_EQ(parse_one("lru tune 10 30 0.1 1.5\r\n"), "lru tune=10,30,0.1,1.5");
  EXPECT_EQ(parse_one("lru tune 0 80 1e-3 2 more words\r\n"), "lru tune=0,80,0.001,2");
  EXPECT_EQ(parse_one("lru tune 41 40 0.1 1\r\n"),
            "error ERROR hot and warm pcts must not exceed 80 consumed=22");
  // the percentages are added as memcached adds them, in 32 bits
  EXPECT_EQ(parse_one("lru tune 4294967295 1 0.1 1\r\n"), "lru tune=4294967295,1,0.1,1");
  EXPECT_EQ(parse_one("lru tune 10 10 0 1\r\n"),
            "error ERROR hot/warm age factors must be greater than 0 consumed=20");
  EXPECT_EQ(parse_one("lru tune 10 10 0.1 -1 noreply\r\n"),
            "error ERROR hot/warm age factors must be greater than 0 consumed=31 silent");
  EXPECT_EQ(parse_one("lru tune 10 x 0.1 1\r\n"), "error ERROR consumed=21");
  EXPECT_EQ(parse_one("lru tune 10 10 0.1x 1\r\n"), "error ERROR consumed=23");
  EXPECT_EQ(parse_one("lru tune 10 10 0.1\r\n"), "error ERROR consumed=20");
  EXPECT_EQ(parse_one("lru mode flat\r\n"), "lru mode=flat");
  EXPECT_EQ(parse_one("lru mode segmented noreply\r\n"), "lru mode=segmented noreply");
  EXPECT_EQ(parse_one("lru mode noreply\r\n"), "error ERROR consumed=18 silent");
  EXPECT_EQ(parse_one("lru mode hot\r\n"), "error ERROR consumed=14");
  EXPECT_EQ(parse_one("lru temp_ttl 30\r\n"), "lru temp_ttl=30");
  EXPECT_EQ(parse_one("lru temp_ttl -1\r\n"), "lru temp_ttl=-1");
  EXPECT_EQ(parse_one("lru temp_ttl 4294967326\r\n"), "lru temp_ttl=30");  // safe_strtol's int32
  EXPECT_EQ(parse_one("lru temp_ttl ten\r\n"), "error ERROR consumed=18");
  EXPECT_EQ(parse_one("lru\r\n"), "error ERROR consumed=5");
  EXPECT_EQ(parse_one("lru warm 1\r\n"), "error ERROR consumed=12");
}

}  // namespace
}  // namespace gpuhash::server::protocol
