#pragma once
// One JSON object per line (JSON Lines), written field by field. Small on
// purpose: the GPU machines have no JSON library and install nothing.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iomanip>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace gpuhash::bench {

class json_line {
 public:
  json_line& add(std::string_view name, std::string_view value) {
    key(name);
    quoted(value);
    return *this;
  }
  json_line& add(std::string_view name, const char* value) {
    return add(name, std::string_view(value));
  }
  json_line& add(std::string_view name, double value) {
    key(name);
    if (std::isfinite(value))
      out_ << std::setprecision(6) << value;
    else
      out_ << "null";
    return *this;
  }
  json_line& add(std::string_view name, std::uint64_t value) {
    key(name);
    out_ << value;
    return *this;
  }
  json_line& add(std::string_view name, int value) {
    key(name);
    out_ << value;
    return *this;
  }
  json_line& add(std::string_view name, const std::vector<std::uint64_t>& values) {
    key(name);
    out_ << "[";
    for (std::size_t i = 0; i < values.size(); ++i) out_ << (i == 0 ? "" : ",") << values[i];
    out_ << "]";
    return *this;
  }
  json_line& add(std::string_view name, bool value) {
    key(name);
    out_ << (value ? "true" : "false");
    return *this;
  }
  std::string str() const { return "{" + out_.str() + "}"; }

 private:
  void key(std::string_view name) {
    if (!first_) out_ << ",";
    first_ = false;
    quoted(name);
    out_ << ":";
  }
  void quoted(std::string_view text) {
    out_ << '"';
    for (const char c : text) {
      switch (c) {
        case '"': out_ << "\\\""; break;
        case '\\': out_ << "\\\\"; break;
        case '\n': out_ << "\\n"; break;
        default:
          if (static_cast<unsigned char>(c) < 0x20)
            out_ << "\\u" << std::hex << std::setw(4) << std::setfill('0') << int(c) << std::dec;
          else
            out_ << c;
      }
    }
    out_ << '"';
  }

  std::ostringstream out_;
  bool first_ = true;
};

}  // namespace gpuhash::bench
