#pragma once
// Member definitions of gpuhash::string_map. Included only by the files that
// instantiate it: a .cpp for the CPU backend, a .cu for CUDA
// (gpuhash/string_map_impl.hpp for types the library does not precompile).

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "gpuhash/detail/exec.hpp"
#include "gpuhash/detail/staged.hpp"
#include "gpuhash/errors.hpp"
#include "gpuhash/string_map.hpp"

namespace gpuhash {
namespace detail::string_map {

/// Key i of a column, checked: its bytes and length, or false where its
/// offsets are out of order, outside [first, last] (the column's first and
/// last offsets), or more than 4 GiB apart.
struct column_key {
  string_column keys;
  std::int64_t first;
  std::int64_t last;

  /// The column's keys, their bounds read where the kernel runs (a batch
  /// that reads them on the host passes them in: an insert's).
  GPUHASH_HD static column_key of(const string_column& keys) {
    return {keys, keys.offset(0), keys.offset(keys.count)};
  }

  GPUHASH_HD bool read(std::uint64_t i, std::int64_t& begin, std::uint32_t& length) const {
    begin = keys.offset(i);
    const std::int64_t end = keys.offset(i + 1);
    if (begin < first || end > last || end < begin ||
        end - begin > std::int64_t{std::numeric_limits<std::uint32_t>::max()})
      return false;
    length = static_cast<std::uint32_t>(end - begin);
    return true;
  }
};

/// Row i of an insert or upsert batch: the key's bytes were copied to the
/// arena at `region` + (its offset - first) before the kernel.
template <class View>
struct write_row {
  View view;
  column_key column;
  const typename View::mapped_type* values;
  status* statuses;
  std::uint64_t region;
  bool assign;

  GPUHASH_HD status operator()(std::uint64_t i) const {
    std::int64_t begin;
    std::uint32_t length;
    status result = status::invalid_key;
    if (column.read(i, begin, length))
      result = view.write(view.key(column.keys.bytes + begin, length), values[i], assign,
                          region + static_cast<std::uint64_t>(begin - column.first));
    statuses[i] = result;
    return result;
  }
};

template <class View>
struct find_row {
  View view;
  string_column keys;
  typename View::mapped_type* values;
  status* statuses;

  GPUHASH_HD void operator()(std::uint64_t i) const {
    std::int64_t begin;
    std::uint32_t length;
    const column_key column = column_key::of(keys);
    statuses[i] = column.read(i, begin, length)
                      ? view.find(view.key(keys.bytes + begin, length), values + i)
                      : status::invalid_key;
  }
};

template <class View>
struct erase_row {
  View view;
  string_column keys;
  status* statuses;

  GPUHASH_HD status operator()(std::uint64_t i) const {
    std::int64_t begin;
    std::uint32_t length;
    const column_key column = column_key::of(keys);
    const status result = column.read(i, begin, length)
                              ? view.erase(view.key(keys.bytes + begin, length))
                              : status::invalid_key;
    statuses[i] = result;
    return result;
  }
};

/// Per slot: 1 and the key's length where it holds a live key, else 0 and
/// 0 (the inputs of the scans that lay the live keys out one after another).
template <class Slot>
struct live_lengths {
  const Slot* slots;
  std::uint64_t* live;
  std::uint64_t* lengths;
  GPUHASH_HD void operator()(std::uint64_t i) const {
    const bool is_live = is_published(slots[i].head.handle);
    live[i] = is_live ? 1 : 0;
    lengths[i] = is_live ? slots[i].head.length : 0;
  }
};

/// Moves the live key of old slot i into the new table: its bytes to the
/// new arena at byte_offsets[i], then a slot of the new table.
template <class View>
struct move_slot {
  View target;
  const typename View::slot_type* old_slots;
  const char* old_arena;
  const std::uint64_t* byte_offsets;

  GPUHASH_HD status operator()(std::uint64_t i) const {
    const auto& slot = old_slots[i];
    if (!is_published(slot.head.handle)) return status::not_found;
    const std::uint64_t at = byte_offsets[i];
    const char* from = old_arena + slot.head.handle;
    char* to = target.arena().bytes + at;
    for (std::uint32_t b = 0; b < slot.head.length; ++b) to[b] = from[b];
    return target.place(to, slot.head.length, slot.value, at);
  }
};

/// Writes the live key of slot i to the output column at position
/// positions[i], its bytes at byte_offsets[i].
template <class Slot, class Value>
struct copy_out {
  const Slot* slots;
  const char* arena;
  const std::uint64_t* positions;
  const std::uint64_t* byte_offsets;
  std::int64_t* offsets;
  char* bytes;
  Value* values;
  GPUHASH_HD void operator()(std::uint64_t i) const {
    const Slot& slot = slots[i];
    if (!is_published(slot.head.handle)) return;
    const std::uint64_t at = byte_offsets[i];
    offsets[positions[i]] = static_cast<std::int64_t>(at);
    values[positions[i]] = from_word<Value>(slot.value);
    for (std::uint32_t b = 0; b < slot.head.length; ++b)
      bytes[at + b] = arena[slot.head.handle + b];
  }
};

/// A host vector of strings as a column: int64 offsets and the bytes.
struct packed_strings {
  std::vector<std::int64_t> offsets;
  std::vector<char> bytes;
  explicit packed_strings(std::span<const std::string_view> keys) : offsets(keys.size() + 1, 0) {
    std::size_t total = 0;
    for (const std::string_view key : keys) total += key.size();
    bytes.reserve(total);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      bytes.insert(bytes.end(), keys[i].begin(), keys[i].end());
      offsets[i + 1] = static_cast<std::int64_t>(bytes.size());
    }
  }
};

/// A packed column, as backend memory.
template <class Backend>
struct staged_column {
  packed_strings host;
  staged<Backend, std::int64_t> offsets;
  staged<Backend, char> bytes;
  explicit staged_column(std::span<const std::string_view> keys)
      : host(keys),
        offsets(std::span<const std::int64_t>(host.offsets)),
        bytes(std::span<const char>(host.bytes)) {}
  string_column column() const { return {bytes.data(), offsets.data(), host.offsets.size() - 1}; }
};

inline std::uint64_t round_up_to(std::uint64_t n, std::uint64_t multiple) {
  return (n + multiple - 1) / multiple * multiple;
}

}  // namespace detail::string_map

template <class Value, class Backend, class Hash>
string_map<Value, Backend, Hash>::string_map(table_options options, std::size_t arena_bytes,
                                             stream_type stream)
    : max_load_factor_(options.max_load_factor == 0.0f ? default_max_load_factor
                                                       : options.max_load_factor),
      seed_(options.seed),
      initial_arena_(std::max<std::size_t>(arena_bytes, 4096)),
      capacity_(std::max<std::size_t>(options.capacity, 2)),
      arena_capacity_(initial_arena_),
      last_stream_(stream) {
  if (!(max_load_factor_ > 0.0f && max_load_factor_ <= 1.0f))
    throw std::invalid_argument("gpuhash: max_load_factor must be in (0, 1], got " +
                                std::to_string(max_load_factor_));
  slots_ = Backend::template allocate<slot_type>(capacity_, stream);
  arena_ = Backend::template allocate<char>(arena_capacity_, stream);
  arena_used_counter_ = Backend::template allocate<std::uint64_t>(1, stream);
  counters_ = Backend::template allocate<detail::counter_block>(1, stream);
  clear(stream);
}

template <class Value, class Backend, class Hash>
string_map<Value, Backend, Hash>::~string_map() {
  if (slots_.data() != nullptr) Backend::synchronize(last_stream_);
}

template <class Value, class Backend, class Hash>
auto string_map<Value, Backend, Hash>::view() const -> view_type {
  const detail::string_map::arena_view arena{
      const_cast<char*>(arena_.data()), arena_capacity_,
      const_cast<std::uint64_t*>(arena_used_counter_.data())};
  return view_type(const_cast<slot_type*>(slots_.data()), capacity_, arena, seed_);
}

// ---- Batches ------------------------------------------------------------------

template <class Value, class Backend, class Hash>
void string_map<Value, Backend, Hash>::write(const string_column& keys, const Value* values,
                                             status* statuses, bool assign, stream_type stream) {
  use_stream(stream);
  const std::size_t n = keys.count;
  if (n == 0) return;
  if (keys.offsets32 == nullptr && keys.offsets64 == nullptr)
    throw std::invalid_argument("gpuhash: string_map: the keys' offsets are required");
  if (values == nullptr || statuses == nullptr)
    throw std::invalid_argument("gpuhash: string_map: values and statuses are required");
  // The batch's bytes: [first, last) of the keys' buffer.
  std::int64_t first = 0, last = 0;
  if (keys.offsets64 != nullptr) {
    Backend::copy_to_host(&first, keys.offsets64, 1, stream);
    Backend::copy_to_host(&last, keys.offsets64 + n, 1, stream);
  } else {
    std::int32_t ends[2];
    Backend::copy_to_host(&ends[0], keys.offsets32, 1, stream);
    Backend::copy_to_host(&ends[1], keys.offsets32 + n, 1, stream);
    first = ends[0];
    last = ends[1];
  }
  if (last < first)
    throw std::invalid_argument("gpuhash: string_map: the keys' last offset (" +
                                std::to_string(last) + ") is below their first (" +
                                std::to_string(first) + ")");
  const auto batch_bytes = static_cast<std::size_t>(last - first);
  if (batch_bytes != 0 && keys.bytes == nullptr)
    throw std::invalid_argument("gpuhash: string_map: the keys' bytes are required");
  make_room(n, batch_bytes, stream);

  // The whole batch's bytes go into the arena in one copy; each inserted key
  // is published at its place there.
  const std::uint64_t region = arena_used_;
  Backend::copy(arena_.data() + region, keys.bytes + first, batch_bytes, stream);
  arena_used_ += batch_bytes;
  Backend::copy_from_host(arena_used_counter_.data(), &arena_used_, 1, stream);

  detail::exec<Backend>::for_each_tally(
      n,
      detail::string_map::write_row<view_type>{
          view(), {keys, first, last}, values, statuses, region, assign},
      batch_counters(), stream);
  sync_counters(stream);
}

template <class Value, class Backend, class Hash>
void string_map<Value, Backend, Hash>::insert(const string_column& keys, const Value* values,
                                              status* statuses, stream_type stream) {
  write(keys, values, statuses, false, stream);
}

template <class Value, class Backend, class Hash>
void string_map<Value, Backend, Hash>::insert_or_assign(const string_column& keys,
                                                        const Value* values, status* statuses,
                                                        stream_type stream) {
  write(keys, values, statuses, true, stream);
}

template <class Value, class Backend, class Hash>
void string_map<Value, Backend, Hash>::find(const string_column& keys, Value* values,
                                            status* statuses, stream_type stream) {
  use_stream(stream);
  if (keys.count == 0) return;
  if (values == nullptr || statuses == nullptr)
    throw std::invalid_argument("gpuhash: string_map: find needs values and statuses");
  detail::exec<Backend>::for_each(
      keys.count, detail::string_map::find_row<view_type>{view(), keys, values, statuses}, stream);
  Backend::synchronize(stream);
}

template <class Value, class Backend, class Hash>
void string_map<Value, Backend, Hash>::erase(const string_column& keys, status* statuses,
                                             stream_type stream) {
  use_stream(stream);
  if (keys.count == 0) return;
  if (statuses == nullptr) throw std::invalid_argument("gpuhash: string_map: erase needs statuses");
  detail::exec<Backend>::for_each_tally(
      keys.count, detail::string_map::erase_row<view_type>{view(), keys, statuses},
      batch_counters(), stream);
  sync_counters(stream);
}

// ---- Host containers ----------------------------------------------------------

template <class Value, class Backend, class Hash>
std::vector<status> string_map<Value, Backend, Hash>::write_from_host(
    std::span<const std::string_view> keys, std::span<const Value> values, bool assign) {
  if (keys.size() != values.size())
    throw std::invalid_argument("gpuhash: string_map: " + std::to_string(keys.size()) +
                                " keys but " + std::to_string(values.size()) + " values");
  const detail::string_map::staged_column<Backend> column(keys);
  const detail::staged<Backend, Value> device_values(values);
  const detail::staged<Backend, status> statuses(keys.size());
  write(column.column(), device_values.data(), statuses.data(), assign, {});
  return statuses.to_vector();
}

template <class Value, class Backend, class Hash>
std::vector<status> string_map<Value, Backend, Hash>::insert(std::span<const std::string_view> keys,
                                                             std::span<const Value> values) {
  return write_from_host(keys, values, false);
}

template <class Value, class Backend, class Hash>
std::vector<status> string_map<Value, Backend, Hash>::insert_or_assign(
    std::span<const std::string_view> keys, std::span<const Value> values) {
  return write_from_host(keys, values, true);
}

template <class Value, class Backend, class Hash>
auto string_map<Value, Backend, Hash>::find(std::span<const std::string_view> keys) -> find_result {
  const detail::string_map::staged_column<Backend> column(keys);
  const std::vector<Value> zeros(keys.size(), Value{});
  const detail::staged<Backend, Value> values{std::span<const Value>(zeros)};
  const detail::staged<Backend, status> statuses(keys.size());
  find(column.column(), values.data(), statuses.data(), {});
  return {values.to_vector(), statuses.to_vector()};
}

template <class Value, class Backend, class Hash>
std::vector<status> string_map<Value, Backend, Hash>::erase(
    std::span<const std::string_view> keys) {
  const detail::string_map::staged_column<Backend> column(keys);
  const detail::staged<Backend, status> statuses(keys.size());
  erase(column.column(), statuses.data(), {});
  return statuses.to_vector();
}

template <class Value, class Backend, class Hash>
auto string_map<Value, Backend, Hash>::retrieve_all(stream_type stream) -> contents {
  use_stream(stream);
  const live_layout layout = lay_out_live_keys(stream);
  auto positions = Backend::template allocate<std::uint64_t>(capacity_, stream);
  const std::uint64_t count = detail::exec<Backend>::exclusive_scan(layout.live.data(), capacity_,
                                                                    positions.data(), stream);
  const std::uint64_t total = layout.live_bytes;
  auto offsets = Backend::template allocate<std::int64_t>(count + 1, stream);
  auto bytes = Backend::template allocate<char>(std::max<std::uint64_t>(total, 1), stream);
  auto values = Backend::template allocate<Value>(std::max<std::uint64_t>(count, 1), stream);
  detail::exec<Backend>::for_each(
      capacity_,
      detail::string_map::copy_out<slot_type, Value>{slots_.data(), arena_.data(), positions.data(),
                                                     layout.byte_offsets.data(), offsets.data(),
                                                     bytes.data(), values.data()},
      stream);
  contents out;
  out.offsets.resize(count + 1);
  out.bytes.resize(total);
  out.values.resize(count);
  Backend::copy_to_host(out.offsets.data(), offsets.data(), count, stream);
  Backend::copy_to_host(out.bytes.data(), bytes.data(), total, stream);
  Backend::copy_to_host(out.values.data(), values.data(), count, stream);
  out.offsets[count] = static_cast<std::int64_t>(total);
  return out;
}

// ---- Refs and the whole table -------------------------------------------------

template <class Value, class Backend, class Hash>
auto string_map<Value, Backend, Hash>::ref() -> ref_type {
  refs_handed_out_ = true;
  return ref_type(view(), reinterpret_cast<detail::ref_counts*>(
                              reinterpret_cast<unsigned char*>(counters_.data()) +
                              offsetof(detail::counter_block, refs)));
}

template <class Value, class Backend, class Hash>
std::size_t string_map<Value, Backend, Hash>::size(stream_type stream) {
  use_stream(stream);
  sync_counters(stream);
  return live();
}

template <class Value, class Backend, class Hash>
std::size_t string_map<Value, Backend, Hash>::arena_used(stream_type stream) {
  use_stream(stream);
  sync_counters(stream);
  return static_cast<std::size_t>(std::min<std::uint64_t>(arena_used_, arena_capacity_));
}

template <class Value, class Backend, class Hash>
void string_map<Value, Backend, Hash>::clear(stream_type stream) {
  use_stream(stream);
  // An empty slot is all one bits (detail::string_map::slot_head's defaults).
  Backend::fill_bytes(slots_.data(), capacity_ * sizeof(slot_type), 0xff, stream);
  Backend::fill_bytes(counters_.data(), sizeof(detail::counter_block), 0, stream);
  arena_used_ = 0;
  Backend::copy_from_host(arena_used_counter_.data(), &arena_used_, 1, stream);
  Backend::synchronize(stream);
  synced_ = {};
  at_rehash_ = {};
  live_at_rehash_ = 0;
  refs_handed_out_ = false;
}

template <class Value, class Backend, class Hash>
void string_map<Value, Backend, Hash>::reserve(std::size_t keys, std::size_t bytes,
                                               stream_type stream) {
  use_stream(stream);
  sync_counters(stream);
  if (keys > slot_limit() || arena_used_ + bytes > arena_capacity_)
    rebuild(std::max(capacity_, minimum_capacity_for(keys)), bytes, stream);
}

template <class Value, class Backend, class Hash>
void string_map<Value, Backend, Hash>::compact(stream_type stream) {
  use_stream(stream);
  sync_counters(stream);
  rebuild(capacity_, 0, stream);
}

// ---- Growth -------------------------------------------------------------------

template <class Value, class Backend, class Hash>
void string_map<Value, Backend, Hash>::make_room(std::size_t keys, std::size_t bytes,
                                                 stream_type stream) {
  // Refs may have inserted since the last synchronization (keys and bytes).
  if (refs_handed_out_) sync_counters(stream);
  const bool slots_short = occupied() + keys > slot_limit();
  if (!slots_short && arena_used_ + bytes <= arena_capacity_) return;
  std::size_t slots = capacity_;
  if (slots_short) {
    // Grow (at least doubling) where live keys alone would fill more than
    // 3/4 of the limit; otherwise tombstones are the problem: same size.
    const std::size_t needed = minimum_capacity_for(live() + keys);
    slots = 4 * needed > 3 * capacity_ ? std::max(needed, 2 * capacity_) : capacity_;
  }
  rebuild(slots, bytes, stream);
}

template <class Value, class Backend, class Hash>
auto string_map<Value, Backend, Hash>::lay_out_live_keys(stream_type stream) const -> live_layout {
  live_layout layout{Backend::template allocate<std::uint64_t>(capacity_, stream),
                     Backend::template allocate<std::uint64_t>(capacity_, stream),
                     Backend::template allocate<std::uint64_t>(capacity_, stream), 0};
  detail::exec<Backend>::for_each(capacity_,
                                  detail::string_map::live_lengths<slot_type>{
                                      slots_.data(), layout.live.data(), layout.lengths.data()},
                                  stream);
  layout.live_bytes = detail::exec<Backend>::exclusive_scan(layout.lengths.data(), capacity_,
                                                            layout.byte_offsets.data(), stream);
  return layout;
}

template <class Value, class Backend, class Hash>
void string_map<Value, Backend, Hash>::rebuild(std::size_t min_capacity, std::size_t more_bytes,
                                               stream_type stream) {
  const live_layout layout = lay_out_live_keys(stream);
  const std::uint64_t live_bytes = layout.live_bytes;

  // The new arena holds the live bytes and `more_bytes`, twice over, so that
  // rebuilds for bytes are as rare as doublings.
  const std::size_t new_arena =
      std::max<std::size_t>(initial_arena_, 2 * (live_bytes + more_bytes));
  const std::size_t new_capacity = std::max<std::size_t>(min_capacity, 2);
  auto new_slots = Backend::template allocate<slot_type>(new_capacity, stream);
  Backend::fill_bytes(new_slots.data(), new_capacity * sizeof(slot_type), 0xff, stream);
  auto new_arena_bytes = Backend::template allocate<char>(new_arena, stream);
  auto new_counter = Backend::template allocate<std::uint64_t>(1, stream);
  Backend::copy_from_host(new_counter.data(), &live_bytes, 1, stream);
  const view_type target(new_slots.data(), new_capacity,
                         {new_arena_bytes.data(), new_arena, new_counter.data()}, seed_);

  auto moved = Backend::template allocate<detail::table_counters>(1, stream);
  Backend::fill_bytes(moved.data(), sizeof(detail::table_counters), 0, stream);
  detail::exec<Backend>::for_each_tally(
      capacity_,
      detail::string_map::move_slot<view_type>{target, slots_.data(), arena_.data(),
                                               layout.byte_offsets.data()},
      moved.data(), stream);
  detail::table_counters tally;
  Backend::copy_to_host(&tally, moved.data(), 1, stream);
  // Cannot happen while the new table is sized for every live key; checked
  // because a key must never be dropped. The old table is still intact.
  if (tally.full != 0)
    throw error("gpuhash: string_map rebuild into " + std::to_string(new_capacity) +
                " slots left " + std::to_string(tally.full) + " keys without a slot");

  slots_ = std::move(new_slots);
  capacity_ = new_capacity;
  arena_ = std::move(new_arena_bytes);
  arena_capacity_ = new_arena;
  arena_used_counter_ = std::move(new_counter);
  arena_used_ = live_bytes;
  at_rehash_ = synced_;
  live_at_rehash_ = live();
  ++rebuilds_;
}

template <class Value, class Backend, class Hash>
void string_map<Value, Backend, Hash>::sync_counters(stream_type stream) {
  detail::counter_block block;
  Backend::copy_to_host(&block, counters_.data(), 1, stream);
  synced_ = block.batches;
  if (refs_handed_out_) {
    const status_counts refs = block.refs.total();
    synced_.inserted += refs.inserted;
    synced_.erased += refs.erased;
    Backend::copy_to_host(&arena_used_, arena_used_counter_.data(), 1, stream);
  }
}

template <class Value, class Backend, class Hash>
void string_map<Value, Backend, Hash>::use_stream(stream_type stream) {
  if (stream != last_stream_) Backend::synchronize(last_stream_);
  last_stream_ = stream;
}

template <class Value, class Backend, class Hash>
std::size_t string_map<Value, Backend, Hash>::slot_limit() const {
  return static_cast<std::size_t>(static_cast<double>(max_load_factor_) *
                                  static_cast<double>(capacity_));
}

template <class Value, class Backend, class Hash>
std::size_t string_map<Value, Backend, Hash>::minimum_capacity_for(std::size_t keys) const {
  return static_cast<std::size_t>(std::ceil(static_cast<double>(keys) / max_load_factor_));
}

}  // namespace gpuhash
