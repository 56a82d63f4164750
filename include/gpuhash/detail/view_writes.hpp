#pragma once
// What a design's per-key view (detail/batch.hpp lists its methods) is
// written against: the modes of its one write, the five writes built on it,
// and the outcome of one key's find. Batches (batch.hpp) and refs
// (gpuhash/map_ref.hpp) both call views; this header holds only the views'
// side, device code with no backend behind it, so that a ref's header
// compiles where kernels are compiled alone (NVRTC; docs/device_api.md,
// "Kernels compiled at run time").

#include "gpuhash/host_device.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash::detail {

/// What a view's write does when it meets the key, or learns it is absent.
/// insert_or_assign and insert_or_apply are refs' (map_ref.hpp).
/// insert_or_assign is an upsert whose value always lands: a batch's
/// upsert whose CAS loses to another write of the key's value counts as done
/// just before the winner (retrying would serialize the writers of a hot
/// key), which is a serial order only while every other write is a blind
/// one; a ref's may lose to an insert_or_apply, which read the value before
/// it, so it retries.
enum class write_mode {
  insert_if_absent,
  upsert,
  update_if_present,
  insert_or_assign,
  insert_or_apply
};

/// The op of a write whose mode applies none.
struct no_apply_op {};

/// The five writes of a per-key view, each one call of the view's
/// `write<Mode>(key, value[, op])`, written once here: a view derives from
/// view_writes<itself, ...> and befriends it. `AssignMode` is what
/// insert_or_assign runs as: write_mode::insert_or_assign where the value
/// changes by a CAS that must be retried when lost, write_mode::upsert
/// where the value's write always lands (a store, or a write under a lock).
template <class View, class Key, class Value, write_mode AssignMode = write_mode::insert_or_assign>
struct view_writes {
  GPUHASH_HD status insert(Key key, const Value& value) const {
    return self().template write<write_mode::insert_if_absent>(key, value);
  }
  GPUHASH_HD status upsert(Key key, const Value& value) const {
    return self().template write<write_mode::upsert>(key, value);
  }
  GPUHASH_HD status update(Key key, const Value& value) const {
    return self().template write<write_mode::update_if_present>(key, value);
  }
  GPUHASH_HD status insert_or_assign(Key key, const Value& value) const {
    return self().template write<AssignMode>(key, value);
  }
  template <class Op>
  GPUHASH_HD status insert_or_apply(Key key, const Value& value, Op op) const {
    return self().template write<write_mode::insert_or_apply>(key, value, op);
  }

 private:
  GPUHASH_HD const View& self() const { return static_cast<const View&>(*this); }
};

/// What one key's operation produced, before it is stored.
template <class Value>
struct key_outcome {
  status result = status::invalid_key;
  Value value{};  ///< the value a search found
};

}  // namespace gpuhash::detail
