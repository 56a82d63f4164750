#pragma once
// Checks the contract of a mixed batch (operation.hpp): for each key, the
// observed statuses, search results and final state must equal those of SOME
// serial order of the batch's operations on that key. The check is a
// depth-first search over orders, pruned at the first operation whose
// observed outcome does not fit the state reached so far. The calls are a
// batch's operations (observed_operation) or, for refs, calls of a ref's
// methods (observed_ref_call): each has its step().

#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>
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

/// A ref's methods (gpuhash/map_ref.hpp), insert_or_apply with gpuhash::plus.
enum class ref_call : std::uint8_t { find, insert, insert_or_assign, erase, insert_or_apply_plus };
inline constexpr int ref_call_count = 5;

template <class Value>
struct observed_ref_call {
  ref_call call;
  Value input;    ///< value given to insert, insert_or_assign, insert_or_apply
  status result;  ///< status the ref returned
  Value output;   ///< value find reported (when result == found)
};

/// Everything a batch (or a kernel's ref calls) did to one key, as observed.
template <class Value, class Call = observed_operation<Value>>
struct key_history {
  std::optional<Value> before;  ///< the key's state before the batch
  std::vector<Call> operations;
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

/// The same for a ref's call. A write that found no room (`full`) did
/// nothing, which fits only an absent key: a ref answers `full` only where
/// the key is not stored (bucketed cuckoo's, when all its buckets are taken).
template <class Value>
bool step(const observed_ref_call<Value>& call, std::optional<Value>& state) {
  const bool present = state.has_value();
  if (call.result == status::full)
    return call.call != ref_call::find && call.call != ref_call::erase && !present;
  switch (call.call) {
    case ref_call::find:
      if (present) return call.result == status::found && call.output == *state;
      return call.result == status::not_found;
    case ref_call::insert:
      if (present) return call.result == status::exists;
      if (call.result != status::inserted) return false;
      state = call.input;
      return true;
    case ref_call::insert_or_assign:
      if (call.result != (present ? status::updated : status::inserted)) return false;
      state = call.input;
      return true;
    case ref_call::erase:
      if (!present) return call.result == status::not_found;
      if (call.result != status::erased) return false;
      state.reset();
      return true;
    case ref_call::insert_or_apply_plus:
      if (call.result != (present ? status::updated : status::inserted)) return false;
      state = present ? static_cast<Value>(*state + call.input) : call.input;
      return true;
  }
  return false;
}

template <class Value, class Call>
bool search_orders(const key_history<Value, Call>& history, std::vector<bool>& used,
                   std::size_t placed, const std::optional<Value>& state) {
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
template <class Value, class Call>
bool has_serial_order(const key_history<Value, Call>& history) {
  std::vector<bool> used(history.operations.size(), false);
  return detail::search_orders(history, used, 0, history.before);
}

/// The histories of the keys of a mixed batch: its operations on each key,
/// with what they reported (`outputs`: the values array after the call),
/// and each key's state in `before` and `after` (the table's contents
/// around the batch; absent where a map lacks the key).
template <class Key, class Value>
std::unordered_map<Key, key_history<Value>> batch_histories(
    const std::vector<Key>& keys, const std::vector<operation>& ops,
    const std::vector<Value>& inputs, const std::vector<status>& statuses,
    const std::vector<Value>& outputs, const std::unordered_map<Key, Value>& before,
    const std::unordered_map<Key, Value>& after) {
  std::unordered_map<Key, key_history<Value>> histories;
  for (std::size_t i = 0; i < keys.size(); ++i)
    histories[keys[i]].operations.push_back({ops[i], inputs[i], statuses[i], outputs[i]});
  for (auto& [key, history] : histories) {
    if (const auto it = before.find(key); it != before.end()) history.before = it->second;
    if (const auto it = after.find(key); it != after.end()) history.after = it->second;
  }
  return histories;
}

}  // namespace gpuhash::testing
