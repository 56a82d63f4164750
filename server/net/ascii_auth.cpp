// memcached's text-protocol authentication (ascii_auth.hpp), read as
// memcached 1.6.18's authfile.c and try_read_command_asciiauth read it.

#include "net/ascii_auth.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "protocol/request.hpp"

namespace gpuhash::server::net {

namespace {

/// memcached closes an unauthenticated connection that sends this much without a '\n'.
constexpr std::size_t max_line = 2048;
/// The longest "user password" payload taken (memcached 1.6.18 takes any
/// length and buffers it; later versions refuse past 16 KB, as here).
constexpr std::size_t max_token = 16384;

constexpr std::string_view unauthenticated = "CLIENT_ERROR unauthenticated\r\n";
constexpr std::string_view token_too_long = "CLIENT_ERROR auth token too long\r\n";
constexpr std::string_view bad_termination = "CLIENT_ERROR bad command line termination\r\n";
constexpr std::string_view bad_format = "CLIENT_ERROR bad authentication token format\r\n";
constexpr std::string_view failure = "CLIENT_ERROR authentication failure\r\n";
constexpr std::string_view stored = "STORED\r\n";

/// Compares without stopping at the first difference (memcached's safe_memcmp).
bool same_bytes(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  unsigned char differences = 0;
  for (std::size_t i = 0; i < a.size(); ++i) differences |= static_cast<unsigned char>(a[i] ^ b[i]);
  return differences == 0;
}

/// The words of `text` split at spaces, as memcached's tokenize_command splits it (at most `n`).
std::size_t words_of(std::string_view text, std::string_view* words, std::size_t n) {
  std::size_t count = 0;
  std::size_t position = 0;
  while (count < n) {
    const std::size_t start = text.find_first_not_of(' ', position);
    if (start == std::string_view::npos) break;
    const std::size_t end = std::min(text.find(' ', start), text.size());
    words[count++] = text.substr(start, end - start);
    position = end;
  }
  return count;
}

auth_step reply_with(std::string_view text, std::size_t consumed) {
  auth_step step;
  step.what = auth_step::action::reply;
  step.reply = text;
  step.consumed = consumed;
  return step;
}

}  // namespace

auth_file auth_file::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    throw std::runtime_error("Could not open authfile [" + path + "] for reading, error " +
                             std::strerror(errno));
  }
  auth_file file;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) {
      throw std::runtime_error("Authfile [" + path +
                               "] has a malformed entry. Should be 'user:password'");
    }
    file.entries_.push_back({line.substr(0, colon), line.substr(colon + 1)});
  }
  if (in.bad()) {
    throw std::runtime_error("Could not read authfile [" + path + "], error " +
                             std::strerror(errno));
  }
  return file;
}

bool auth_file::check(std::string_view user, std::string_view password) const noexcept {
  bool match = false;
  for (const entry& each : entries_) {
    // every entry is compared, so the time does not tell which user exists
    const bool both = same_bytes(user, each.user) & same_bytes(password, each.password);
    match = match || both;
  }
  return match;
}

auth_step authenticate(std::string_view input, const auth_file& users) {
  if (input.size() < 2) return {};
  const std::size_t newline = input.find('\n');
  if (newline == std::string_view::npos) {
    auth_step step;
    if (input.size() > max_line) step.what = auth_step::action::close;
    return step;
  }
  // "set <key> <flags> <exptime> <bytes>": memcached's strlen cuts the line
  // at a NUL, and its number parsing stops at the '\r' left at the end.
  std::string_view line = input.substr(0, newline);
  line = line.substr(0, line.find('\0'));
  std::string_view words[5];
  const std::size_t count = words_of(line, words, 5);
  std::uint64_t size = 0;
  const std::size_t line_bytes = newline + 1;
  if (count < 5 || words[0] != "set" || !protocol::parse_unsigned_number(words[4], size) ||
      size > UINT32_MAX) {
    return reply_with(unauthenticated, line_bytes);
  }
  if (size > max_token) return reply_with(token_too_long, line_bytes);
  const std::size_t total = line_bytes + static_cast<std::size_t>(size) + 2;
  if (input.size() < total) return {};

  std::string_view data = input.substr(line_bytes, static_cast<std::size_t>(size) + 2);
  if (!data.ends_with("\r\n")) return reply_with(bad_termination, total);
  data.remove_suffix(2);
  data = data.substr(0, data.find('\0'));
  std::string_view token[2];
  if (words_of(data, token, 2) < 2) return reply_with(bad_format, total);
  auth_step step;
  step.what = auth_step::action::reply;
  step.consumed = total;
  step.counted = true;
  step.authenticated = users.check(token[0], token[1]);
  step.failed = !step.authenticated;
  step.reply = step.authenticated ? stored : failure;
  return step;
}

}  // namespace gpuhash::server::net
