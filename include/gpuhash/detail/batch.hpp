#pragma once
// A batch as the frontend (map.hpp) hands it to a design's engine, and the
// generic way to run it for designs whose per-key work is done by one thread:
// such a design writes a *view* (a small copyable handle with host+device
// per-key methods) and gets every batch kind from run_batch.
//
// View requirements:
//   static bool is_reserved(key_type)
//   status find(key_type, mapped_type* value_out) const   // found / not_found
//   status insert(key_type, mapped_type) const            // inserted / exists / full
//   status upsert(key_type, mapped_type) const            // inserted / updated / full
//   status update(key_type, mapped_type) const            // updated / not_found
//   status erase(key_type) const                          // erased / not_found

#include <cstddef>
#include <cstdint>

#include "gpuhash/detail/counters.hpp"
#include "gpuhash/detail/exec.hpp"
#include "gpuhash/detail/host_device.hpp"
#include "gpuhash/operation.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash::detail {

enum class batch_kind : std::uint8_t { apply, insert, upsert, find, contains, erase };

/// The arguments of one batch; pointers are in the backend's memory. Which
/// fields are used depends on `kind`:
///   apply:   ops, keys, values (in for writes, out for search), statuses
///   insert, upsert: keys, values (in), statuses
///   find:    keys, values (out, written where found), statuses
///   contains: keys, flags
///   erase:   keys, statuses
template <class Key, class Value>
struct batch {
  batch_kind kind = batch_kind::find;
  std::size_t n = 0;
  const Key* keys = nullptr;
  Value* values = nullptr;
  const operation* ops = nullptr;
  status* statuses = nullptr;
  bool* flags = nullptr;

  /// Whether the batch can add keys (and so may need room, or come back full).
  bool may_insert() const {
    return kind == batch_kind::apply || kind == batch_kind::insert || kind == batch_kind::upsert;
  }
};

template <class View, class Key, class Value>
GPUHASH_HD GPUHASH_FORCEINLINE status run_operation(const View& view, operation op, Key key,
                                                    Value& value) {
  switch (op) {
    case operation::search: return view.find(key, &value);
    case operation::insert: return view.insert(key, value);
    case operation::update: return view.update(key, value);
    case operation::upsert: return view.upsert(key, value);
    case operation::erase: return view.erase(key);
  }
  return status::invalid_operation;
}

/// Per-key functor of a batch of one kind (the kind is a template argument so
/// each kernel holds only the code it runs).
template <batch_kind Kind, class View, class Key, class Value>
struct batch_functor {
  View view;
  batch<Key, Value> args;

  GPUHASH_HD GPUHASH_FORCEINLINE status operator()(std::uint64_t i) const {
    const Key key = args.keys[i];
    if constexpr (Kind == batch_kind::contains) {
      args.flags[i] = !View::is_reserved(key) && view.find(key, nullptr) == status::found;
      return status::not_found;
    } else {
      status result = status::invalid_key;
      if (!View::is_reserved(key)) {
        if constexpr (Kind == batch_kind::apply) {
          result = run_operation(view, args.ops[i], key, args.values[i]);
        } else if constexpr (Kind == batch_kind::insert) {
          result = view.insert(key, args.values[i]);
        } else if constexpr (Kind == batch_kind::upsert) {
          result = view.upsert(key, args.values[i]);
        } else if constexpr (Kind == batch_kind::find) {
          result = view.find(key, args.values + i);
        } else {
          result = view.erase(key);
        }
      }
      args.statuses[i] = result;
      return result;
    }
  }
};

/// Runs a batch on a one-thread-per-key design. Kinds that change the table
/// add their inserted/erased/full counts to *counters.
template <class Backend, class View, class Key, class Value>
void run_batch(const View& view, const batch<Key, Value>& args, table_counters* counters,
               typename Backend::stream_type stream) {
  using exec_type = exec<Backend>;
  switch (args.kind) {
    case batch_kind::apply:
      exec_type::for_each_tally(
          args.n, batch_functor<batch_kind::apply, View, Key, Value>{view, args}, counters, stream);
      return;
    case batch_kind::insert:
      exec_type::for_each_tally(args.n,
                                batch_functor<batch_kind::insert, View, Key, Value>{view, args},
                                counters, stream);
      return;
    case batch_kind::upsert:
      exec_type::for_each_tally(args.n,
                                batch_functor<batch_kind::upsert, View, Key, Value>{view, args},
                                counters, stream);
      return;
    case batch_kind::erase:
      exec_type::for_each_tally(
          args.n, batch_functor<batch_kind::erase, View, Key, Value>{view, args}, counters, stream);
      return;
    case batch_kind::find:
      exec_type::for_each(args.n, batch_functor<batch_kind::find, View, Key, Value>{view, args},
                          stream);
      return;
    case batch_kind::contains:
      exec_type::for_each(args.n, batch_functor<batch_kind::contains, View, Key, Value>{view, args},
                          stream);
      return;
  }
}

}  // namespace gpuhash::detail
