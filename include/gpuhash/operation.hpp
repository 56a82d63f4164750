#pragma once
// The verbs of a mixed `apply` batch (basic_map::apply, map.hpp). A batch runs
// its operations concurrently in one pass; for one key the outcome equals
// some serial order of the batch's operations on it.

#include <cstdint>
#include <ostream>
#include <string_view>

namespace gpuhash {

enum class operation : std::uint8_t {
  search,  ///< found + value, or not_found
  insert,  ///< only if absent: inserted, or exists (value unchanged)
  update,  ///< only if present: updated, or not_found
  upsert,  ///< inserted or updated (the seeds' "insert that updates an existing key")
  erase,   ///< erased, or not_found
};

constexpr std::string_view to_string(operation op) noexcept {
  switch (op) {
    case operation::search: return "search";
    case operation::insert: return "insert";
    case operation::update: return "update";
    case operation::upsert: return "upsert";
    case operation::erase: return "erase";
  }
  return "unknown_operation";
}

inline std::ostream& operator<<(std::ostream& out, operation op) {
  return out << to_string(op);
}

}  // namespace gpuhash
