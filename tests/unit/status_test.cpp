#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

#include "gpuhash/operation.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash {
namespace {

TEST(status, every_status_has_a_distinct_name) {
  std::set<std::string> names;
  for (int i = 0; i < status_count; ++i) {
    const auto name = std::string(to_string(static_cast<status>(i)));
    EXPECT_NE(name, "unknown_status");
    names.insert(name);
  }
  EXPECT_EQ(names.size(), static_cast<std::size_t>(status_count));
  EXPECT_EQ(to_string(static_cast<status>(200)), "unknown_status");
  std::ostringstream out;
  out << status::invalid_key;
  EXPECT_EQ(out.str(), "invalid_key");
}

TEST(operation, names) {
  EXPECT_EQ(to_string(operation::upsert), "upsert");
  EXPECT_EQ(to_string(static_cast<operation>(99)), "unknown_operation");
}

}  // namespace
}  // namespace gpuhash
