#pragma once
// A batch of the signature index and the per-element functors that run it:
// phase 1 (every operation, concurrently, no entry moves) and phase 2 (the
// eviction walks of the inserts phase 1 could not place).

#include <cstddef>
#include <cstdint>
#include <optional>

#include "gpuhash/detail/atomic.hpp"
#include "gpuhash/detail/counters.hpp"
#include "gpuhash/detail/signature_index/view.hpp"
#include "gpuhash/host_device.hpp"
#include "gpuhash/operation.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash::detail::signature_index {

enum class batch_kind : std::uint8_t { apply, insert, find, erase, replace };

/// Where a batch's tally is counted (backend memory) and read back (host
/// memory that the copy reaches directly: pinned on the GPU).
template <class Backend>
struct tally_buffers {
  typename Backend::template buffer<table_counters> counted;
  typename Backend::template host_buffer<table_counters> read;
};

/// One batch's arguments in backend memory; which are used depends on kind
/// (see signature_index.hpp for each operation's).
struct index_batch {
  batch_kind kind = batch_kind::find;
  std::size_t n = 0;
  const operation* ops = nullptr;
  const signature_type* signatures = nullptr;
  const location_type* locations = nullptr;
  const location_type* new_locations = nullptr;
  location_type* matches = nullptr;  // max_matches per element
  std::uint32_t* match_counts = nullptr;
  status* statuses = nullptr;  // null for find
  /// apply: where phase 1 records the positions of pending inserts (the
  /// first pending_capacity of them), counting them in *pending_count.
  std::size_t* pending = nullptr;
  std::uint64_t* pending_count = nullptr;
  std::uint64_t pending_capacity = 0;
  /// apply: an upper bound on the inserts, given by the caller (0 to n);
  /// absent: counted.
  std::optional<std::size_t> inserts_at_most = std::nullopt;

  bool may_insert() const { return kind == batch_kind::apply || kind == batch_kind::insert; }
};

/// Phase 1 of a batch of one kind (a template argument, so each kernel holds
/// only the code it runs). Returns the status it stored, for the tally: an
/// insert left `full` is pending. `View` reads buckets from L2 in a
/// resident kernel (bucket_reads).
template <batch_kind Kind, class View = index_view>
struct phase_one {
  View view;
  index_batch args;

  GPUHASH_HD status operator()(std::uint64_t i) const {
    const signature_type signature = args.signatures[i];
    status result = status::invalid_key;
    if constexpr (Kind == batch_kind::find) {
      std::uint32_t count = 0;
      if (!index_view::is_reserved(signature))
        count = view.find(signature, args.matches + i * max_matches);
      args.match_counts[i] = count;
      return status::not_found;  // nothing to tally
    } else if constexpr (Kind == batch_kind::apply) {
      if (!index_view::is_reserved(signature)) result = run_operation(args.ops[i], i, signature);
      if (result == status::full) {
        const std::uint64_t slot = fetch_add_coalesced<std::uint64_t>(args.pending_count, 1);
        if (slot < args.pending_capacity) args.pending[slot] = i;
      }
    } else if constexpr (Kind == batch_kind::insert) {
      if (!index_view::is_reserved(signature)) result = view.insert(signature, args.locations[i]);
    } else if constexpr (Kind == batch_kind::erase) {
      if (!index_view::is_reserved(signature)) result = view.erase(signature, args.locations[i]);
    } else {
      if (!index_view::is_reserved(signature))
        result = view.replace(signature, args.locations[i], args.new_locations[i]);
    }
    args.statuses[i] = result;
    return result;
  }

 private:
  GPUHASH_HD status run_operation(operation op, std::uint64_t i, signature_type signature) const {
    switch (op) {
      case operation::search: {
        const std::uint32_t count = view.find(signature, args.matches + i * max_matches);
        args.match_counts[i] = count;
        return count > 0 ? status::found : status::not_found;
      }
      case operation::insert: return view.insert(signature, args.locations[i]);
      case operation::update:
        return view.replace(signature, args.locations[i], args.new_locations[i]);
      case operation::erase: return view.erase(signature, args.locations[i]);
      case operation::upsert: break;
    }
    return status::invalid_operation;
  }
};

/// An insert batch in one pass. It holds no search that a moving entry could
/// hide from, nor an erase or replace that could miss an entry in a walker's
/// hand, so an insert that finds both buckets full walks at once instead of
/// waiting for phase 2 (which costs small batches several host round trips).
/// Reports `full` in two cases, told apart by held[i]: empty, a 17th entry
/// under its signature, refused; otherwise the entry a walk that ran out of
/// exchanges holds (maybe another one: element i's own entry is stored).
struct insert_and_place {
  index_view view;
  index_batch args;
  slot_type* held;
  std::uint64_t random;
  std::uint32_t max_exchanges;

  GPUHASH_HD status operator()(std::uint64_t i) const {
    const signature_type signature = args.signatures[i];
    status result = status::invalid_key;
    if (!index_view::is_reserved(signature)) {
      result = view.insert(signature, args.locations[i]);
      if (result == status::full) {
        if (view.count(signature) == max_matches) {
          held[i] = empty_slot;
        } else {
          const walk_result walk = view.place(pack(signature, args.locations[i]),
                                              murmur3_fmix64(random ^ i), max_exchanges);
          if (walk.placed)
            result = status::inserted;
          else
            held[i] = walk.entry;
        }
      }
    }
    args.statuses[i] = result;
    return result;
  }
};

/// After insert_and_place: an element whose walk left an entry in hand
/// (held, gathered by position) is reported inserted; the host places the
/// held entries in the grown index.
struct release_held {
  const std::size_t* positions;
  const slot_type* held;  // by index among the positions
  status* statuses;

  GPUHASH_HD status operator()(std::uint64_t t) const {
    if (held[t] == empty_slot) return status::full;  // refused: stays full
    return statuses[positions[t]] = status::inserted;
  }
};

/// Phase 1 of the index's own inserts (entries already packed, no caller
/// statuses): rebuilds and homeless entries.
struct insert_packed {
  index_view view;
  const slot_type* entries;
  status* statuses;

  GPUHASH_HD status operator()(std::uint64_t i) const {
    const slot_type entry = entries[i];
    return statuses[i] = view.insert(signature_of(entry), location_of(entry));
  }
};

/// Phase 2 of an apply batch, in one kernel: takes each pending element (at
/// `positions`) and walks its entry into place. Returns inserted (placed);
/// full when the walk ran out of exchanges (the entry in its hand is left in
/// held[t]; element i's own entry is stored, so it is reported inserted); or
/// not_found for a 17th entry under its signature: no move could ever free a
/// slot for it, so it is refused and its status stays `full`.
template <class View = index_view>
struct place_pending_entries {
  View view;
  index_batch args;
  const std::size_t* positions;
  slot_type* held;
  std::uint64_t random;
  std::uint32_t max_exchanges;
  /// When set, how many positions there are (the launch covers the batch,
  /// since the host has not read the count: apply_async).
  const std::uint64_t* position_count = nullptr;

  GPUHASH_HD status operator()(std::uint64_t t) const {
    held[t] = empty_slot;
    if (position_count != nullptr && t >= *position_count) return status::not_found;
    const std::size_t i = positions[t];
    const signature_type signature = args.signatures[i];
    if (view.count(signature) == max_matches) return status::not_found;
    args.statuses[i] = status::inserted;
    const walk_result walk =
        view.place(pack(signature, args.locations[i]), murmur3_fmix64(random ^ t), max_exchanges);
    if (walk.placed) return status::inserted;
    held[t] = walk.entry;
    return status::full;
  }
};

/// Phase 2: one eviction walk per pending entry. A walk that ends with an
/// entry in hand leaves it in entries[t] and reports `full` (homeless).
struct walk_pending {
  index_view view;
  slot_type* entries;
  status* walk_statuses;
  std::uint64_t random;
  std::uint32_t max_exchanges;

  GPUHASH_HD status operator()(std::uint64_t t) const {
    if (entries[t] == empty_slot) return walk_statuses[t] = status::not_found;  // nothing carried
    const walk_result result = view.place(entries[t], murmur3_fmix64(random ^ t), max_exchanges);
    entries[t] = result.entry;
    return walk_statuses[t] = result.placed ? status::inserted : status::full;
  }
};

struct is_entry {
  GPUHASH_HD bool operator()(slot_type slot) const { return slot != empty_slot; }
};

struct is_operation {
  operation wanted;
  GPUHASH_HD bool operator()(operation op) const { return op == wanted; }
};

}  // namespace gpuhash::detail::signature_index
