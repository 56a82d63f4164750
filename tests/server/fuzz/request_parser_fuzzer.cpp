// libFuzzer target for the request parser (scripts/fuzz-parser builds and
// runs it). It parses the input as a connection would, request after
// request, and stops the run (abort) on a broken invariant:
// - need_more consumes nothing;
// - a request, or an error that does not close, consumes at least one byte,
//   and no more than the input holds unless the error swallows a data block;
// - an error has a reply ending in "\r\n", and one that closes consumes 0;
// - a request's views (key, keys, argument, data, meta tokens) lie in the input,
//   and its item key is its key unless that is in base64;
// - a prefix of the input parses to need_more or to exactly what the whole
//   input parses to, and the prefix ending where the request ends to the
//   latter, so the outcome never depends on how bytes arrive; but for the
//   one case where memcached's does: a prefix holding more than 2048 bytes
//   of a line without its '\n' may close the connection (memcached closes
//   there, and reads the same line normally when its '\n' comes with it).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "protocol/request.hpp"

namespace {

using namespace gpuhash::server::protocol;

constexpr std::size_t max_block = 0x7FFFFFFF;

void check(bool holds, const char* invariant) {
  if (holds) return;
  std::fprintf(stderr, "request_parser_fuzzer: broken invariant: %s\n", invariant);
  std::abort();
}

bool within(std::string_view part, std::string_view whole) {
  if (part.empty()) return true;
  return part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size();
}

bool same_views(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

bool same_request(const request& a, const request& b) {
  if (a.meta_flags.size() != b.meta_flags.size()) return false;
  for (std::size_t i = 0; i < a.meta_flags.size(); ++i) {
    if (a.meta_flags[i].letter != b.meta_flags[i].letter ||
        a.meta_flags[i].token != b.meta_flags[i].token)
      return false;
  }
  return a.kind == b.kind && a.key == b.key && same_views(a.keys, b.keys) &&
         a.client_flags == b.client_flags && a.exptime == b.exptime &&
         a.cas_unique == b.cas_unique && a.delta == b.delta && a.delay == b.delay &&
         a.level == b.level && a.argument == b.argument && a.data == b.data &&
         a.noreply == b.noreply && a.key_in_base64 == b.key_in_base64 &&
         a.item_key() == b.item_key();
}

bool same_result(const parse_result& a, const parse_result& b) {
  return a.outcome == b.outcome && a.consumed == b.consumed && a.error_reply == b.error_reply &&
         a.close_connection == b.close_connection && a.silent == b.silent;
}

void check_views(const request& parsed, std::string_view input) {
  bool inside =
      within(parsed.key, input) && within(parsed.argument, input) && within(parsed.data, input);
  for (std::string_view key : parsed.keys) inside = inside && within(key, input);
  for (const meta_flag& flag : parsed.meta_flags) inside = inside && within(flag.token, input);
  check(inside, "a request's views lie in the input");
  check(parsed.key_in_base64 || parsed.item_key() == parsed.key,
        "the item key is the key as sent unless it is in base64");
}

void check_one(std::string_view input, const parse_result& result, const request& parsed) {
  switch (result.outcome) {
    case parse_outcome::need_more: check(result.consumed == 0, "need_more consumes 0"); return;
    case parse_outcome::request:
      check(result.consumed > 0 && result.consumed <= input.size(),
            "a request consumes 1 to input.size() bytes");
      check(!result.close_connection && result.error_reply.empty(), "a request is no error");
      check_views(parsed, input);
      return;
    case parse_outcome::error:
      check(result.error_reply.size() >= 2 && result.error_reply.ends_with("\r\n"),
            "an error reply ends in \\r\\n");
      if (result.close_connection) {
        check(result.consumed == 0, "an error that closes consumes 0");
      } else {
        check(result.consumed > 0, "an error consumes its line");
        // Past the input only by a data block: its line is whole, and a
        // block is at most 2^31 - 3 bytes and its "\r\n".
        check(result.consumed <= input.size() || (input.find('\n') != std::string_view::npos &&
                                                  result.consumed - input.size() <= max_block),
              "an error swallows at most a data block past the input");
      }
      return;
  }
  check(false, "a known outcome");
}

/// Parses prefixes of `input`: each must give need_more or `whole` again,
/// and the prefix that ends where `whole` ends must give `whole`.
void check_prefixes(std::string_view input, const parser_limits& limits, const parse_result& whole,
                    const request& whole_request) {
  const bool within_input = whole.consumed != 0 && whole.consumed <= input.size();
  const std::size_t end = within_input ? whole.consumed : input.size();
  const std::size_t stride = end <= 64 ? 1 : end / 32;
  request parsed;
  const auto try_prefix = [&](std::size_t length) {
    const parse_result result = parse_request(input.substr(0, length), limits, parsed);
    check_one(input.substr(0, length), result, parsed);
    if (result.outcome == parse_outcome::need_more && length < end) return;
    const std::string_view prefix = input.substr(0, length);
    if (result.close_connection && prefix.find('\n') == std::string_view::npos &&
        prefix.size() > 2048)
      return;  // a long line cut before its '\n', closed as memcached closes it
    check(same_result(result, whole), "a prefix parses as the whole input does");
    if (result.outcome == parse_outcome::request)
      check(same_request(parsed, whole_request), "a prefix yields the same request");
  };
  for (std::size_t length = 0; length < end; length += stride) try_prefix(length);
  if (end > 0) try_prefix(end - 1);
  try_prefix(end);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  parser_limits limits;
  limits.item_size_max = 100;  // so that values over the limit are easy to find
  request parsed;
  std::size_t position = 0;
  while (position < input.size()) {
    const std::string_view rest = input.substr(position);
    const parse_result result = parse_request(rest, limits, parsed);
    check_one(rest, result, parsed);
    check_prefixes(rest, limits, result, parsed);
    if (result.outcome == parse_outcome::need_more || result.close_connection ||
        result.consumed >= rest.size())
      break;
    position += result.consumed;
  }
  return 0;
}
