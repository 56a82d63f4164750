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
//   status insert_or_assign(key_type, mapped_type) const  // inserted / updated / full
//   template <class Op>                                   // inserted / updated / full
//   status insert_or_apply(key_type, mapped_type, Op) const
// find() may write *value_out only when it returns found. insert_or_assign
// and insert_or_apply are for refs (gpuhash/map_ref.hpp): an upsert whose
// value always lands (write_mode says why), and an insert of an absent key
// with the value or a call of op(stored value, value), atomically, on a
// present key's value.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "gpuhash/detail/counters.hpp"
#include "gpuhash/detail/exec.hpp"
#include "gpuhash/detail/launch_share.hpp"
#include "gpuhash/detail/view_writes.hpp"
#include "gpuhash/errors.hpp"
#include "gpuhash/host_device.hpp"
#include "gpuhash/operation.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash::detail {

enum class batch_kind : std::uint8_t { apply, insert, upsert, find, contains, erase };

/// The arguments of one batch; pointers are in the backend's memory. Which
/// fields are used depends on `kind`:
///   apply:   ops, keys, values (in for writes, out for search), statuses
///   insert, upsert: keys, values (in), statuses
///   find:    keys, values (out, written where found), statuses, or flags
///            (whether found) where statuses is null
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
/// each kernel holds only the code it runs). Two phases, so that the GPU can
/// reconverge a warp between them (see exec's for_each_batch): run() does the
/// work on the table, finish() stores the caller's results.
template <batch_kind Kind, class View, class Key, class Value>
struct batch_functor {
  using outcome_type = key_outcome<Value>;

  View view;
  batch<Key, Value> args;

  GPUHASH_HD GPUHASH_FORCEINLINE outcome_type run(std::uint64_t i) const {
    const Key key = args.keys[i];
    outcome_type out;
    if (View::is_reserved(key)) return out;
    if constexpr (Kind == batch_kind::apply) {
      out.value = args.values[i];
      out.result = run_operation(view, args.ops[i], key, out.value);
    } else if constexpr (Kind == batch_kind::insert) {
      out.result = view.insert(key, args.values[i]);
    } else if constexpr (Kind == batch_kind::upsert) {
      out.result = view.upsert(key, args.values[i]);
    } else if constexpr (Kind == batch_kind::find || Kind == batch_kind::contains) {
      out.result = view.find(key, &out.value);
    } else {
      out.result = view.erase(key);
    }
    return out;
  }

  GPUHASH_HD GPUHASH_FORCEINLINE void finish(std::uint64_t i, const outcome_type& out) const {
    if constexpr (Kind == batch_kind::contains) {
      args.flags[i] = out.result == status::found;
    } else if constexpr (Kind == batch_kind::find) {
      if (args.statuses != nullptr) {
        args.statuses[i] = out.result;
      } else {
        args.flags[i] = out.result == status::found;
      }
      if (out.result == status::found) args.values[i] = out.value;
    } else {
      args.statuses[i] = out.result;
      if constexpr (Kind == batch_kind::apply) {
        if (out.result == status::found) args.values[i] = out.value;
      }
    }
  }
};

/// The positions in a batch of its `pending` inserts, those whose status is
/// `full` after an engine's first pass, found by one scan; throws if the scan
/// finds another count (the pass counted wrong). `design` names the table
/// in that error.
template <class Backend>
typename Backend::template buffer<std::size_t> pending_positions(
    const status* statuses, std::size_t n, std::uint64_t pending, std::string_view design,
    typename Backend::stream_type stream) {
  auto positions = Backend::template allocate<std::size_t>(pending, stream);
  const std::size_t found =
      Backend::select_positions(statuses, n, status::full, positions.data(), stream);
  if (found != pending)
    throw error("gpuhash: " + std::string(design) + " counted " + std::to_string(pending) +
                " pending inserts but found " + std::to_string(found));
  return positions;
}

/// Some keys of a batch as a batch of their own: copies of their keys,
/// values and (apply) ops, and statuses of their own, which the caller
/// scatters back (basic_map's retries of the keys that came back full, an
/// engine's second pass over its pending inserts).
template <class Backend, class Key, class Value>
struct gathered_batch {
  typename Backend::template buffer<Key> keys;
  typename Backend::template buffer<Value> values;
  typename Backend::template buffer<status> statuses;
  typename Backend::template buffer<operation> ops;
  batch<Key, Value> args;
};

/// The keys of `args` at positions[0, count) as a gathered_batch.
template <class Backend, class Key, class Value>
gathered_batch<Backend, Key, Value> gather_batch(const batch<Key, Value>& args,
                                                 const std::size_t* positions, std::size_t count,
                                                 typename Backend::stream_type stream) {
  gathered_batch<Backend, Key, Value> part{Backend::template allocate<Key>(count, stream),
                                           Backend::template allocate<Value>(count, stream),
                                           Backend::template allocate<status>(count, stream),
                                           {},
                                           {}};
  Backend::gather(args.keys, positions, count, part.keys.data(), stream);
  Backend::gather(static_cast<const Value*>(args.values), positions, count, part.values.data(),
                  stream);
  part.args = {
      args.kind, count, part.keys.data(), part.values.data(), nullptr, part.statuses.data(),
      nullptr};
  if (args.kind == batch_kind::apply) {
    part.ops = Backend::template allocate<operation>(count, stream);
    Backend::gather(args.ops, positions, count, part.ops.data(), stream);
    part.args.ops = part.ops.data();
  }
  return part;
}

/// Runs a batch on a one-thread-per-key design, with `share` of the threads
/// the GPU holds in flight (launch_share.hpp). Kinds that change the table
/// add their inserted/erased/full counts to *counters.
template <class Backend, class View, class Key, class Value>
void run_batch(const View& view, const batch<Key, Value>& args, table_counters* counters,
               typename Backend::stream_type stream, launch_share share = {}) {
  using exec_type = exec<Backend>;
  const auto launch = [&]<batch_kind Kind>(table_counters* tally) {
    exec_type::for_each_batch(args.n, batch_functor<Kind, View, Key, Value>{view, args}, tally,
                              stream, share);
  };
  switch (args.kind) {
    case batch_kind::apply: return launch.template operator()<batch_kind::apply>(counters);
    case batch_kind::insert: return launch.template operator()<batch_kind::insert>(counters);
    case batch_kind::upsert: return launch.template operator()<batch_kind::upsert>(counters);
    case batch_kind::erase: return launch.template operator()<batch_kind::erase>(counters);
    case batch_kind::find: return launch.template operator()<batch_kind::find>(nullptr);
    case batch_kind::contains: return launch.template operator()<batch_kind::contains>(nullptr);
  }
}

}  // namespace gpuhash::detail
