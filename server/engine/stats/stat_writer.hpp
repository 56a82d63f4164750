#pragma once
// One `STAT <name> <value>` line, the value a number or text: what the
// renderers of `stats` (render.cpp, render_classes.cpp) write with.

#include <string>
#include <string_view>
#include <type_traits>

#include "engine/commands/reply.hpp"

namespace gpuhash::server::engine {

struct stat_writer {
  std::string& out;
  template <class Value>
  void operator()(std::string_view name, Value value) {
    out.append("STAT ").append(name).push_back(' ');
    if constexpr (std::is_convertible_v<Value, std::string_view>) {
      out.append(std::string_view(value));
    } else {
      append_number(out, value);
    }
    out.append("\r\n");
  }
};

}  // namespace gpuhash::server::engine
