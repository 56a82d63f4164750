#pragma once
// Member definitions of gpuhash::signature_index. Included only by the files
// that instantiate it: src/cpu/signature_index.cpp and src/cuda/signature_index.cu.

#include <algorithm>
#include <bit>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include "gpuhash/detail/batch.hpp"
#include "gpuhash/detail/exec.hpp"
#include "gpuhash/detail/staged.hpp"
#include "gpuhash/errors.hpp"
#include "gpuhash/signature_index.hpp"

namespace gpuhash {

namespace detail::signature_index {

/// Rounds of growth one batch may trigger before the index gives up: each
/// doubles it, and a walk that fails at a load below the limit is already
/// rare, so reaching it means something else is wrong.
inline constexpr int max_growth_rounds = 8;

/// Runs f over [0, n) and returns its tally (waits for it).
template <class Backend, class F>
table_counters run_tallied(std::uint64_t n, const F& f, tally_buffers<Backend>& tally,
                           typename Backend::stream_type stream) {
  Backend::fill_bytes(tally.counted.data(), sizeof(table_counters), 0, stream);
  exec<Backend>::for_each_tally(n, f, tally.counted.data(), stream);
  Backend::copy_to_host(tally.read.data(), tally.counted.data(), 1, stream);
  return *tally.read.data();
}

inline void require(bool condition, const char* message) {
  if (!condition) throw std::invalid_argument(std::string("gpuhash::signature_index: ") + message);
}

inline std::uint64_t random_seed() {
  std::random_device device;
  return (std::uint64_t{device()} << 32) ^ device();
}

}  // namespace detail::signature_index

template <class Backend>
signature_index<Backend>::signature_index(index_options options, stream_type stream)
    : max_load_factor_(options.max_load_factor == 0.0f ? default_max_load_factor
                                                       : options.max_load_factor),
      seed_(options.seed ? *options.seed : detail::signature_index::random_seed()),
      key_{murmur3_fmix64(seed_ ^ 0x736970686173686bULL),
           murmur3_fmix64(seed_ ^ 0x6b65792d68617368ULL)},
      last_stream_(stream) {
  if (!(max_load_factor_ > 0.0f && max_load_factor_ <= 1.0f))
    throw std::invalid_argument(
        "gpuhash::signature_index: max_load_factor must be in (0, 1], got " +
        std::to_string(max_load_factor_));
  buckets_ = buckets_for(options.capacity);
  slots_ = Backend::template allocate<slot_type>(capacity(), stream);
  Backend::fill_bytes(slots_.data(), memory_bytes(), 0, stream);
  tally_.counted = Backend::template allocate<detail::table_counters>(1, stream);
  tally_.read = Backend::template allocate_host<detail::table_counters>(1);
}

template <class Backend>
signature_index<Backend>::~signature_index() {
  try {
    Backend::synchronize(last_stream_);
  } catch (...) {  // a destructor must not throw; the runtime already reported the error
  }
}

template <class Backend>
auto signature_index<Backend>::signature(std::string_view key) const noexcept -> signature_type {
  const std::uint64_t hash = table_key_hash(key_, key);
  const auto folded = static_cast<signature_type>(hash ^ (hash >> 32));
  return folded == 0 ? 1 : folded;
}

template <class Backend>
detail::signature_index::index_view signature_index<Backend>::view() const {
  return {const_cast<slot_type*>(slots_.data()), buckets_, seed_};
}

/// Buckets (a power of two, at least 2) that hold `entries` under the load limit.
template <class Backend>
std::uint64_t signature_index<Backend>::buckets_for(std::size_t entries) const {
  const double slots = std::ceil(static_cast<double>(entries) / max_load_factor_);
  const auto buckets =
      static_cast<std::uint64_t>(std::ceil(slots / detail::signature_index::slots_per_bucket));
  return std::bit_ceil(std::max<std::uint64_t>(2, buckets));
}

template <class Backend>
void signature_index<Backend>::use_stream(stream_type stream) {
  if (queued_) settle_async(stream);  // a batch apply_async queued comes first
  if (stream != last_stream_) Backend::synchronize(last_stream_);
  last_stream_ = stream;
}

// ---- Batches in backend memory ---------------------------------------------

template <class Backend>
void signature_index<Backend>::insert(const signature_type* signatures,
                                      const location_type* locations, std::size_t n,
                                      status* statuses, stream_type stream) {
  run({detail::signature_index::batch_kind::insert, n, nullptr, signatures, locations, nullptr,
       nullptr, nullptr, statuses},
      stream);
}

template <class Backend>
void signature_index<Backend>::find(const signature_type* signatures, std::size_t n,
                                    location_type* matches, std::uint32_t* match_counts,
                                    stream_type stream) {
  run({detail::signature_index::batch_kind::find, n, nullptr, signatures, nullptr, nullptr, matches,
       match_counts, nullptr},
      stream);
}

template <class Backend>
void signature_index<Backend>::find_async(const signature_type* signatures, std::size_t n,
                                          location_type* matches, std::uint32_t* match_counts,
                                          stream_type stream) {
  namespace si = detail::signature_index;
  use_stream(stream);
  if (n == 0) return;
  si::require(signatures && matches && match_counts,
              "find: signatures, matches and match_counts are required");
  const batch_args args{
      si::batch_kind::find, n,      nullptr, signatures, nullptr, nullptr, matches,
      match_counts,         nullptr};
  detail::exec<Backend>::for_each(n, si::phase_one<si::batch_kind::find>{view(), args}, stream);
}

template <class Backend>
void signature_index<Backend>::erase(const signature_type* signatures,
                                     const location_type* locations, std::size_t n,
                                     status* statuses, stream_type stream) {
  run({detail::signature_index::batch_kind::erase, n, nullptr, signatures, locations, nullptr,
       nullptr, nullptr, statuses},
      stream);
}

template <class Backend>
void signature_index<Backend>::replace(const signature_type* signatures,
                                       const location_type* old_locations,
                                       const location_type* new_locations, std::size_t n,
                                       status* statuses, stream_type stream) {
  run({detail::signature_index::batch_kind::replace, n, nullptr, signatures, old_locations,
       new_locations, nullptr, nullptr, statuses},
      stream);
}

template <class Backend>
void signature_index<Backend>::apply(const operation* ops, const signature_type* signatures,
                                     const location_type* locations,
                                     const location_type* new_locations, std::size_t n,
                                     location_type* matches, std::uint32_t* match_counts,
                                     status* statuses, stream_type stream,
                                     std::optional<std::size_t> inserts_at_most) {
  batch_args args{detail::signature_index::batch_kind::apply,
                  n,
                  ops,
                  signatures,
                  locations,
                  new_locations,
                  matches,
                  match_counts,
                  statuses};
  if (inserts_at_most) args.inserts_at_most = std::min(*inserts_at_most, n);
  run(args, stream);
}

template <class Backend>
void signature_index<Backend>::apply_async(const operation* ops, const signature_type* signatures,
                                           const location_type* locations,
                                           const location_type* new_locations, std::size_t n,
                                           location_type* matches, std::uint32_t* match_counts,
                                           status* statuses, stream_type stream,
                                           std::optional<std::size_t> inserts_at_most) {
  namespace si = detail::signature_index;
  batch_args args{si::batch_kind::apply, n,       ops,          signatures, locations,
                  new_locations,         matches, match_counts, statuses};
  if (inserts_at_most) args.inserts_at_most = std::min(*inserts_at_most, n);
  use_stream(stream);
  if (n == 0) return;
  check_and_grow(args, stream);
  // Phase 1 records every pending insert (room for the whole batch), and
  // phase 2 is launched over the whole batch, each walk reading the count on
  // the device: nothing waits for the host.
  // The buffers are kept from batch to batch (grown when needed): a batch
  // costs no allocation. counted holds the two tallies, then the pending
  // count in its third element's first word, so one fill clears them.
  queued_n_ = n;
  if (queued_pending_.size() < n) {
    queued_pending_ = Backend::template allocate<std::size_t>(n, stream);
    queued_held_ = Backend::template allocate<slot_type>(n, stream);
  }
  if (queued_counted_.size() == 0) {
    queued_counted_ = Backend::template allocate<detail::table_counters>(3, stream);
    queued_read_ = Backend::template allocate_host<detail::table_counters>(2);
  }
  Backend::fill_bytes(queued_counted_.data(), 3 * sizeof(detail::table_counters), 0, stream);
  std::uint64_t* pending_count = &queued_counted_.data()[2].inserted;
  batch_args recorded = args;
  recorded.pending = queued_pending_.data();
  recorded.pending_count = pending_count;
  recorded.pending_capacity = n;
  using exec_type = detail::exec<Backend>;
  exec_type::for_each_tally(n, si::phase_one<si::batch_kind::apply>{view(), recorded},
                            queued_counted_.data(), stream);
  si::place_pending_entries<> walks{view(),
                                    args,
                                    queued_pending_.data(),
                                    queued_held_.data(),
                                    murmur3_fmix64(seed_ ^ ++walks_),
                                    max_exchanges};
  walks.position_count = pending_count;
  exec_type::for_each_tally(n, walks, queued_counted_.data() + 1, stream);
  Backend::copy_to_host_async(queued_read_.data(), queued_counted_.data(), 2, stream);
  queued_ = true;
}

template <class Backend>
void signature_index<Backend>::settle_async(stream_type stream) {
  if (!queued_) return;
  queued_ = false;  // first: the growth below makes calls of its own
  Backend::synchronize(last_stream_);
  last_stream_ = stream;
  adopt_batch(queued_read_.data()[0], queued_read_.data()[1], queued_held_.data(), queued_n_,
              stream);
}

template <class Backend>
void signature_index<Backend>::make_room_for(std::size_t inserts, stream_type stream) {
  use_stream(stream);
  if (grow_for(inserts, stream)) Backend::synchronize(stream);
}

template <class Backend>
void signature_index<Backend>::adopt_batch(const status_counts& phase_one,
                                           const status_counts& walks,
                                           const signature_index_ref::entry_type* held,
                                           std::size_t n, stream_type stream) {
  use_stream(stream);
  size_ += phase_one.inserted;
  size_ -= phase_one.erased;
  // Placed entries and homeless ones (stored below) are all in.
  size_ += walks.inserted + walks.full;
  if (walks.full != 0) {
    store_held(held, n, walks.full, stream);
    Backend::synchronize(stream);
  }
}

/// Checks the arguments, grows the index if the batch could pass the load
/// limit, runs phase 1, then places its pending inserts (phase 2).
template <class Backend>
void signature_index<Backend>::run(const batch_args& args, stream_type stream) {
  namespace si = detail::signature_index;
  use_stream(stream);
  if (args.n == 0) return;
  check_and_grow(args, stream);
  using kind = si::batch_kind;
  detail::table_counters totals{};
  switch (args.kind) {
    case kind::apply: apply_in_two_passes(args, stream); return;
    case kind::insert: insert_in_one_pass(args, stream); return;
    case kind::find:
      detail::exec<Backend>::for_each(args.n, si::phase_one<kind::find>{view(), args}, stream);
      Backend::synchronize(stream);
      return;
    case kind::erase:
      totals = si::run_tallied<Backend>(args.n, si::phase_one<kind::erase>{view(), args}, tally_,
                                        stream);
      break;
    case kind::replace:
      totals = si::run_tallied<Backend>(args.n, si::phase_one<kind::replace>{view(), args}, tally_,
                                        stream);
      break;
  }
  size_ += totals.inserted;
  size_ -= totals.erased;
  Backend::synchronize(stream);
}

/// Checks a batch's arguments and grows the index if the batch could pass
/// the load limit.
template <class Backend>
void signature_index<Backend>::check_and_grow(const batch_args& args, stream_type stream) {
  namespace si = detail::signature_index;
  using exec_type = detail::exec<Backend>;
  using kind = si::batch_kind;
  si::require(args.signatures != nullptr, "signatures are required");
  switch (args.kind) {
    case kind::find:
      si::require(args.matches && args.match_counts, "find: matches and match_counts are required");
      break;
    case kind::apply: {
      si::require(args.ops && args.statuses, "apply: ops and statuses are required");
      const auto uses = [&](operation op) {
        return exec_type::count_if(args.ops, args.n, si::is_operation{op}, stream) > 0;
      };
      if (!args.matches || !args.match_counts)
        si::require(!uses(operation::search), "apply: a search needs matches and match_counts");
      if (!args.new_locations)
        si::require(!uses(operation::update), "apply: an update needs new_locations");
      if (!args.locations)
        si::require(!uses(operation::insert) && !uses(operation::erase) && !uses(operation::update),
                    "apply: insert, update and erase need locations");
      break;
    }
    case kind::replace:
      si::require(args.new_locations != nullptr, "replace: new_locations are required");
      [[fallthrough]];
    case kind::insert:
    case kind::erase:
      si::require(args.locations && args.statuses, "locations and statuses are required");
  }

  if (args.may_insert()) {
    const std::size_t bound =
        args.kind == kind::insert ? args.n
        : args.inserts_at_most
            ? *args.inserts_at_most
            : exec_type::count_if(args.ops, args.n, si::is_operation{operation::insert}, stream);
    grow_for(bound, stream);
  }
}

/// Grows the index if `inserts` more entries could pass the load limit (to
/// at least twice its size, so that growth stays rare); true if it grew.
template <class Backend>
bool signature_index<Backend>::grow_for(std::size_t inserts, stream_type stream) {
  if (static_cast<double>(size_ + inserts) <=
      static_cast<double>(max_load_factor_) * static_cast<double>(capacity()))
    return false;
  rebuild(std::max(2 * buckets_, buckets_for(size_ + inserts)), 0, stream);
  return true;
}

/// A mixed batch: phase 1 records its pending inserts as it goes; phase 2
/// places them in one kernel once every search of the batch has finished.
template <class Backend>
void signature_index<Backend>::apply_in_two_passes(const batch_args& args, stream_type stream) {
  namespace si = detail::signature_index;
  // Room to record a sixteenth of the batch as pending (inserts rarely find
  // both buckets full below the load limit); past that, they are found by a
  // search of the statuses instead (homeless_entries_make_the_index_grow
  // takes that path).
  batch_args recorded = args;
  recorded.pending_capacity = args.n / 16;
  auto pending = Backend::template allocate<std::size_t>(recorded.pending_capacity, stream);
  auto pending_count = Backend::template allocate<std::uint64_t>(1, stream);
  Backend::fill_bytes(pending_count.data(), sizeof(std::uint64_t), 0, stream);
  recorded.pending = pending.data();
  recorded.pending_count = pending_count.data();
  const detail::table_counters totals = si::run_tallied<Backend>(
      args.n, si::phase_one<si::batch_kind::apply>{view(), recorded}, tally_, stream);
  size_ += totals.inserted;
  size_ -= totals.erased;
  const std::uint64_t count = totals.full;
  if (count != 0) {
    if (count > recorded.pending_capacity) {
      pending = detail::pending_positions<Backend>(args.statuses, args.n, count, "signature_index",
                                                   stream);
    }
    auto held = Backend::template allocate<slot_type>(count, stream);
    const detail::table_counters placed = si::run_tallied<Backend>(
        count,
        si::place_pending_entries<>{view(), args, pending.data(), held.data(),
                                    murmur3_fmix64(seed_ ^ ++walks_), max_exchanges},
        tally_, stream);
    // Placed entries and homeless ones (stored again below) are all in.
    size_ += placed.inserted + placed.full;
    if (placed.full != 0) store_held(held.data(), count, placed.full, stream);
  }
  Backend::synchronize(stream);
}

/// Stores the `homeless` entries that walks left in `held` (n slots, the
/// rest empty) by growing the index to twice its size first.
template <class Backend>
void signature_index<Backend>::store_held(const slot_type* held, std::size_t n,
                                          std::size_t homeless, stream_type stream) {
  auto entries = Backend::template allocate<slot_type>(homeless, stream);
  detail::exec<Backend>::select_if(held, n, entries.data(), detail::signature_index::is_entry{},
                                   stream);
  require_room_for(entries.data(), homeless, stream);
  rebuild(2 * buckets_, 1, stream);
  add_entries(entries.data(), homeless, 1, stream);
}

/// An insert batch: phase 1 and the walks in one pass (insert_and_place),
/// then, only if a walk ran out of exchanges, growth for the held entries.
template <class Backend>
void signature_index<Backend>::insert_in_one_pass(const batch_args& args, stream_type stream) {
  namespace si = detail::signature_index;
  auto held = Backend::template allocate<slot_type>(args.n, stream);
  const detail::table_counters totals = si::run_tallied<Backend>(
      args.n,
      si::insert_and_place{view(), args, held.data(), murmur3_fmix64(seed_ ^ ++walks_),
                           max_exchanges},
      tally_, stream);
  size_ += totals.inserted;
  if (totals.full != 0) {
    auto positions = Backend::template allocate<std::size_t>(totals.full, stream);
    const std::size_t full =
        Backend::select_positions(args.statuses, args.n, status::full, positions.data(), stream);
    auto gathered = Backend::template allocate<slot_type>(full, stream);
    Backend::gather(static_cast<const slot_type*>(held.data()), positions.data(), full,
                    gathered.data(), stream);
    const detail::table_counters released = si::run_tallied<Backend>(
        full, si::release_held{positions.data(), gathered.data(), args.statuses}, tally_, stream);
    if (released.inserted != 0) {
      size_ += released.inserted;
      store_held(gathered.data(), full, released.inserted, stream);
    }
  }
  Backend::synchronize(stream);
}

/// Phase 2: places entries by eviction walks; entries a walk leaves homeless
/// go into the index grown to twice its size.
template <class Backend>
void signature_index<Backend>::settle(slot_type* entries, std::size_t n, int depth,
                                      stream_type stream) {
  namespace si = detail::signature_index;
  auto walk_statuses = Backend::template allocate<status>(n, stream);
  const detail::table_counters totals =
      si::run_tallied<Backend>(n,
                               si::walk_pending{view(), entries, walk_statuses.data(),
                                                murmur3_fmix64(seed_ ^ ++walks_), max_exchanges},
                               tally_, stream);
  if (totals.full == 0) return;
  auto positions = Backend::template allocate<std::size_t>(totals.full, stream);
  const std::size_t homeless =
      Backend::select_positions(walk_statuses.data(), n, status::full, positions.data(), stream);
  auto held = Backend::template allocate<slot_type>(homeless, stream);
  Backend::gather(static_cast<const slot_type*>(entries), positions.data(), homeless, held.data(),
                  stream);
  require_room_for(held.data(), homeless, stream);
  rebuild(2 * buckets_, depth + 1, stream);
  add_entries(held.data(), homeless, depth + 1, stream);
}

/// Before growing for homeless entries: growth cannot help an entry whose
/// signature already holds max_matches entries (a 17th can only arise when
/// two pending inserts of one signature race in phase 2), so that is an
/// error, reported at once rather than after growing in vain.
template <class Backend>
void signature_index<Backend>::require_room_for(const slot_type* homeless, std::size_t n,
                                                stream_type stream) {
  namespace si = detail::signature_index;
  std::vector<slot_type> held(n);
  Backend::copy_to_host(held.data(), homeless, n, stream);
  std::vector<signature_type> signatures(n);
  for (std::size_t i = 0; i < n; ++i) signatures[i] = si::signature_of(held[i]);
  const detail::staged<Backend, signature_type> staged_signatures{
      std::span<const signature_type>(signatures)};
  auto matches = Backend::template allocate<location_type>(n * max_matches, stream);
  auto counts = Backend::template allocate<std::uint32_t>(n, stream);
  const batch_args probe{si::batch_kind::find,
                         n,
                         nullptr,
                         staged_signatures.data(),
                         nullptr,
                         nullptr,
                         matches.data(),
                         counts.data(),
                         nullptr};
  detail::exec<Backend>::for_each(n, si::phase_one<si::batch_kind::find>{view(), probe}, stream);
  std::vector<std::uint32_t> found(n);
  Backend::copy_to_host(found.data(), counts.data(), n, stream);
  for (std::size_t i = 0; i < n; ++i)
    if (found[i] == max_matches)
      throw error("gpuhash::signature_index: an entry under signature " +
                  std::to_string(signatures[i]) + " found no slot: " + std::to_string(max_matches) +
                  " entries already share that signature (location " +
                  std::to_string(si::location_of(held[i])) + " is not in the index)");
}

/// Inserts entries that are not in the index (a rebuild's, homeless ones).
template <class Backend>
void signature_index<Backend>::add_entries(const slot_type* entries, std::size_t n, int depth,
                                           stream_type stream) {
  namespace si = detail::signature_index;
  if (n == 0) return;
  if (depth > si::max_growth_rounds)
    throw error("gpuhash::signature_index: eviction walks left " + std::to_string(n) +
                " entries without a slot after " + std::to_string(si::max_growth_rounds) +
                " rounds of growth to " + std::to_string(capacity()) +
                " slots (they are not in the index)");
  auto statuses = Backend::template allocate<status>(n, stream);
  const detail::table_counters totals = si::run_tallied<Backend>(
      n, si::insert_packed{view(), entries, statuses.data()}, tally_, stream);
  if (totals.full == 0) return;
  auto positions = Backend::template allocate<std::size_t>(totals.full, stream);
  const std::size_t pending =
      Backend::select_positions(statuses.data(), n, status::full, positions.data(), stream);
  auto held = Backend::template allocate<slot_type>(pending, stream);
  Backend::gather(entries, positions.data(), pending, held.data(), stream);
  settle(held.data(), pending, depth, stream);
}

/// Rebuilds the index with `buckets` buckets from its own entries (each
/// entry's buckets follow from its signature).
template <class Backend>
void signature_index<Backend>::rebuild(std::uint64_t buckets, int depth, stream_type stream) {
  namespace si = detail::signature_index;
  using exec_type = detail::exec<Backend>;
  const std::uint64_t live = exec_type::count_if(slots_.data(), capacity(), si::is_entry{}, stream);
  auto entries = Backend::template allocate<slot_type>(live, stream);
  exec_type::select_if(slots_.data(), capacity(), entries.data(), si::is_entry{}, stream);
  auto grown = Backend::template allocate<slot_type>(buckets * si::slots_per_bucket, stream);
  Backend::fill_bytes(grown.data(), buckets * si::slots_per_bucket * sizeof(slot_type), 0, stream);
  slots_ = std::move(grown);
  buckets_ = buckets;
  ++rebuilds_;
  add_entries(entries.data(), live, depth, stream);
}

// ---- The whole index -------------------------------------------------------

template <class Backend>
void signature_index<Backend>::clear(stream_type stream) {
  use_stream(stream);
  Backend::fill_bytes(slots_.data(), memory_bytes(), 0, stream);
  Backend::synchronize(stream);
  size_ = 0;
}

template <class Backend>
void signature_index<Backend>::reserve(std::size_t n, stream_type stream) {
  use_stream(stream);
  const std::uint64_t buckets = buckets_for(n);
  if (buckets > buckets_) rebuild(buckets, 0, stream);
  Backend::synchronize(stream);
}

template <class Backend>
auto signature_index<Backend>::entries(stream_type stream) const
    -> std::vector<std::pair<signature_type, location_type>> {
  namespace si = detail::signature_index;
  using exec_type = detail::exec<Backend>;
  const std::uint64_t live = exec_type::count_if(slots_.data(), capacity(), si::is_entry{}, stream);
  auto selected = Backend::template allocate<slot_type>(live, stream);
  exec_type::select_if(slots_.data(), capacity(), selected.data(), si::is_entry{}, stream);
  std::vector<slot_type> packed(live);
  Backend::copy_to_host(packed.data(), selected.data(), live, stream);
  std::vector<std::pair<signature_type, location_type>> out;
  out.reserve(live);
  for (const slot_type entry : packed)
    out.emplace_back(si::signature_of(entry), si::location_of(entry));
  return out;
}

// ---- Batches in host containers --------------------------------------------

template <class Backend>
std::vector<status> signature_index<Backend>::insert(std::span<const signature_type> signatures,
                                                     std::span<const location_type> locations) {
  detail::signature_index::require(signatures.size() == locations.size(),
                                   "insert: as many locations as signatures are required");
  detail::staged<Backend, signature_type> staged_signatures(signatures);
  detail::staged<Backend, location_type> staged_locations(locations);
  detail::staged<Backend, status> statuses(signatures.size());
  insert(staged_signatures.data(), staged_locations.data(), signatures.size(), statuses.data());
  return statuses.to_vector();
}

template <class Backend>
auto signature_index<Backend>::find(std::span<const signature_type> signatures) -> find_result {
  detail::staged<Backend, signature_type> staged_signatures(signatures);
  detail::staged<Backend, location_type> matches(signatures.size() * max_matches);
  detail::staged<Backend, std::uint32_t> counts(signatures.size());
  find(staged_signatures.data(), signatures.size(), matches.data(), counts.data());
  return {matches.to_vector(), counts.to_vector()};
}

template <class Backend>
std::vector<status> signature_index<Backend>::erase(std::span<const signature_type> signatures,
                                                    std::span<const location_type> locations) {
  detail::signature_index::require(signatures.size() == locations.size(),
                                   "erase: as many locations as signatures are required");
  detail::staged<Backend, signature_type> staged_signatures(signatures);
  detail::staged<Backend, location_type> staged_locations(locations);
  detail::staged<Backend, status> statuses(signatures.size());
  erase(staged_signatures.data(), staged_locations.data(), signatures.size(), statuses.data());
  return statuses.to_vector();
}

template <class Backend>
std::vector<status> signature_index<Backend>::replace(
    std::span<const signature_type> signatures, std::span<const location_type> old_locations,
    std::span<const location_type> new_locations) {
  detail::signature_index::require(
      signatures.size() == old_locations.size() && signatures.size() == new_locations.size(),
      "replace: as many old and new locations as signatures are required");
  detail::staged<Backend, signature_type> staged_signatures(signatures);
  detail::staged<Backend, location_type> staged_old(old_locations);
  detail::staged<Backend, location_type> staged_new(new_locations);
  detail::staged<Backend, status> statuses(signatures.size());
  replace(staged_signatures.data(), staged_old.data(), staged_new.data(), signatures.size(),
          statuses.data());
  return statuses.to_vector();
}

template <class Backend>
auto signature_index<Backend>::apply(std::span<const operation> ops,
                                     std::span<const signature_type> signatures,
                                     std::span<const location_type> locations,
                                     std::span<const location_type> new_locations,
                                     std::optional<std::size_t> inserts_at_most) -> apply_result {
  const std::size_t n = signatures.size();
  detail::signature_index::require(ops.size() == n && locations.size() == n &&
                                       (new_locations.empty() || new_locations.size() == n),
                                   "apply: ops, locations (and new_locations, if given) must have "
                                   "one element per signature");
  detail::staged<Backend, operation> staged_ops(ops);
  detail::staged<Backend, signature_type> staged_signatures(signatures);
  detail::staged<Backend, location_type> staged_locations(locations);
  detail::staged<Backend, location_type> staged_new(new_locations);
  detail::staged<Backend, location_type> matches(n * max_matches);
  detail::staged<Backend, std::uint32_t> counts(n);
  detail::staged<Backend, status> statuses(n);
  Backend::fill_bytes(counts.data(), n * sizeof(std::uint32_t), 0, {});
  apply(staged_ops.data(), staged_signatures.data(), staged_locations.data(),
        new_locations.empty() ? nullptr : staged_new.data(), n, matches.data(), counts.data(),
        statuses.data(), {}, inserts_at_most);
  return {{matches.to_vector(), counts.to_vector()}, statuses.to_vector()};
}

}  // namespace gpuhash
