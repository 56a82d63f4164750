#pragma once
// Base64 (RFC 4648, with padding) for the meta commands' `b` flag: keys sent
// in base64 so they may hold any bytes. The parser decodes such a key once
// (request::item_key); a reply returns the key as it was sent.

#include <cstdint>
#include <string>
#include <string_view>

namespace gpuhash::server::protocol {

/// Decodes `text` into `out` as memcached does: bytes outside the alphabet
/// are skipped, symbols come in groups of four, and decoding stops after the
/// first group holding padding ('=', at most two). False when that fails.
inline bool base64_decode(std::string_view text, std::string& out) {
  const auto value_of = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    if (c == '=') return 64;  // padding
    return -1;
  };
  out.clear();
  int group[4];
  int in_group = 0;
  for (const char c : text) {
    const int value = value_of(c);
    if (value < 0) continue;
    group[in_group++] = value;
    if (in_group != 4) continue;
    in_group = 0;
    const int padding = (group[3] == 64) + (group[2] == 64);
    if (group[0] == 64 || group[1] == 64 || (group[2] == 64 && group[3] != 64)) return false;
    const std::uint32_t bits = static_cast<std::uint32_t>(group[0] << 18 | group[1] << 12 |
                                                          (group[2] & 63) << 6 | (group[3] & 63));
    out.push_back(static_cast<char>(bits >> 16));
    if (padding < 2) out.push_back(static_cast<char>(bits >> 8 & 0xFF));
    if (padding < 1) out.push_back(static_cast<char>(bits & 0xFF));
    if (padding != 0) return true;
  }
  return in_group == 0 && !out.empty();
}

}  // namespace gpuhash::server::protocol
