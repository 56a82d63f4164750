#pragma once
// Small helpers to write replies, and the version the server answers with.

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

namespace gpuhash::server::engine {

/// memcached's version this server speaks, as `version` and `stats` say it.
inline constexpr std::string_view server_version = "1.6.18-gpuhash";

template <class Integer>
void append_number(std::string& out, Integer value) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  out.append(digits, end);
}

/// memcached's key escaping in metadump lines: URL encoding of bytes outside
/// [A-Za-z0-9-_.~].
inline void append_url_encoded(std::string& out, std::string_view bytes) {
  static constexpr char hex[] = "0123456789ABCDEF";
  for (const char c : bytes) {
    const auto u = static_cast<unsigned char>(c);
    if ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || c == '-' ||
        c == '_' || c == '.' || c == '~') {
      out.push_back(c);
    } else {
      out.push_back('%');
      out.push_back(hex[u >> 4]);
      out.push_back(hex[u & 15]);
    }
  }
}

}  // namespace gpuhash::server::engine
