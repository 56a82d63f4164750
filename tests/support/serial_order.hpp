#pragma once
// Checks the contract of a mixed batch (DESIGN.md): for each key, the observed
// statuses, search results and final state must equal those of SOME serial
// order of the batch's operations on that key. The check is a depth-first
// search over orders, pruned at the first operation whose observed outcome
// does not fit the state reached so far.

#include <cstddef>
#include <optional>
#include <vector>

#include "gpuhash/operation.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash::testing {

template <class Value>
struct observed_operation {
  operation op;
  Value input;    ///< value given to insert/update/upsert
  status result;  ///< status the table reported
  Value output;   ///< value a search reported (when result == found)
};

/// Everything a batch did to one key, as observed.
template <class Value>
struct key_history {
  std::optional<Value> before;  ///< the key's state before the batch
  std::vector<observed_operation<Value>> operations;
  std::optional<Value> after;  ///< the key's state after the batch
};

namespace detail {

/// Applies `op` to `state` if its observed outcome is what a serial execution
/// from `state` would report; returns false if it is not.
template <class Value>
bool step(const observed_operation<Value>& op, std::optional<Value>& state) {
  const bool present = state.has_value();
  switch (op.op) {
    case operation::search:
      if (present) return op.result == status::found && op.output == *state;
      return op.result == status::not_found;
    case operation::insert:
      if (present) return op.result == status::exists;
      if (op.result != status::inserted) return false;
      state = op.input;
      return true;
    case operation::update:
      if (!present) return op.result == status::not_found;
      if (op.result != status::updated) return false;
      state = op.input;
      return true;
    case operation::upsert:
      if (op.result != (present ? status::updated : status::inserted)) return false;
      state = op.input;
      return true;
    case operation::erase:
      if (!present) return op.result == status::not_found;
      if (op.result != status::erased) return false;
      state.reset();
      return true;
  }
  return false;
}

template <class Value>
bool search_orders(const key_history<Value>& history, std::vector<bool>& used, std::size_t placed,
                   const std::optional<Value>& state) {
  if (placed == history.operations.size()) return state == history.after;
  for (std::size_t i = 0; i < history.operations.size(); ++i) {
    if (used[i]) continue;
    std::optional<Value> next = state;
    if (!step(history.operations[i], next)) continue;
    used[i] = true;
    const bool found = search_orders(history, used, placed + 1, next);
    used[i] = false;
    if (found) return true;
  }
  return false;
}

}  // namespace detail

/// True when some serial order of the key's operations explains every
/// observed status, every search result and the final state.
template <class Value>
bool has_serial_order(const key_history<Value>& history) {
  std::vector<bool> used(history.operations.size(), false);
  return detail::search_orders(history, used, 0, history.before);
}

}  // namespace gpuhash::testing
