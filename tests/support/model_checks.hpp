#pragma once
// A batch of distinct keys checked against the model a table must agree
// with, a std::unordered_map: the differential tests (the conformance suite,
// the sharded map's batches spread over GPUs) run a batch on the table in
// whatever form they test, then hand its outcome here. Each check returns
// first_failures' message ("" when every key's outcome is the model's) and
// applies the batch to the model, so that the next batch is checked against
// the state this one left. The keys must be distinct: with copies of a key,
// the outcome depends on the order the copies ran in (serial_order.hpp
// checks such batches).

#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpuhash/operation.hpp"
#include "gpuhash/status.hpp"
#include "serial_order.hpp"
#include "table_helpers.hpp"

namespace gpuhash::testing {

template <class Key, class Value>
using model_map = std::unordered_map<Key, Value>;

namespace detail {

/// first_failures over the batch's keys, each failure named by its key.
template <class Key, class Predicate>
std::string key_failures(const std::vector<Key>& keys, Predicate ok) {
  return first_failures(keys.size(), ok,
                        [&keys](std::size_t i) { return "key " + std::to_string(keys[i]); });
}

}  // namespace detail

/// insert: inserted where the model lacks the key (which it then holds with
/// its value), exists where it has it.
template <class Key, class Value>
std::string insert_mismatches(model_map<Key, Value>& model, const std::vector<Key>& keys,
                              const std::vector<Value>& values,
                              const std::vector<status>& statuses) {
  return detail::key_failures(keys, [&](std::size_t i) {
    const bool present = model.contains(keys[i]);
    if (!present) model.emplace(keys[i], values[i]);
    return statuses[i] == (present ? status::exists : status::inserted);
  });
}

/// insert_or_assign: updated where the model has the key, inserted where
/// not; the model then holds every key with its value.
template <class Key, class Value>
std::string insert_or_assign_mismatches(model_map<Key, Value>& model, const std::vector<Key>& keys,
                                        const std::vector<Value>& values,
                                        const std::vector<status>& statuses) {
  return detail::key_failures(keys, [&](std::size_t i) {
    const bool present = model.contains(keys[i]);
    model[keys[i]] = values[i];
    return statuses[i] == (present ? status::updated : status::inserted);
  });
}

/// find: found with the model's value, or not_found. Where `unwritten` is
/// given (the values array as it was before the call), a miss must have
/// left its element as it was.
template <class Key, class Value>
std::string find_mismatches(const model_map<Key, Value>& model, const std::vector<Key>& keys,
                            const std::vector<Value>& found, const std::vector<status>& statuses,
                            const std::vector<Value>* unwritten = nullptr) {
  return detail::key_failures(keys, [&](std::size_t i) {
    const auto it = model.find(keys[i]);
    if (it == model.end())
      return statuses[i] == status::not_found &&
             (unwritten == nullptr || found[i] == (*unwritten)[i]);
    return statuses[i] == status::found && found[i] == it->second;
  });
}

/// contains: true exactly where the model has the key.
template <class Key, class Value>
std::string contains_mismatches(const model_map<Key, Value>& model, const std::vector<Key>& keys,
                                const std::vector<bool>& flags) {
  return detail::key_failures(keys,
                              [&](std::size_t i) { return flags[i] == model.contains(keys[i]); });
}

/// erase: erased where the model had the key (which it then lacks),
/// not_found where not.
template <class Key, class Value>
std::string erase_mismatches(model_map<Key, Value>& model, const std::vector<Key>& keys,
                             const std::vector<status>& statuses) {
  return detail::key_failures(keys, [&](std::size_t i) {
    const bool present = model.erase(keys[i]) == 1;
    return statuses[i] == (present ? status::erased : status::not_found);
  });
}

/// apply: each key's one operation, given `inputs` and observed as
/// `statuses` and `outputs` (the values array after the call), is what it
/// reports when run on the model's state of the key (serial_order.hpp's
/// step), which it then changes.
template <class Key, class Value>
std::string apply_mismatches(model_map<Key, Value>& model, const std::vector<operation>& ops,
                             const std::vector<Key>& keys, const std::vector<Value>& inputs,
                             const std::vector<status>& statuses,
                             const std::vector<Value>& outputs) {
  return detail::key_failures(keys, [&](std::size_t i) {
    const observed_operation<Value> seen{ops[i], inputs[i], statuses[i], outputs[i]};
    std::optional<Value> state;
    if (const auto it = model.find(keys[i]); it != model.end()) state = it->second;
    const bool ok = detail::step(seen, state);
    if (state)
      model[keys[i]] = *state;
    else
      model.erase(keys[i]);
    return ok;
  });
}

}  // namespace gpuhash::testing
