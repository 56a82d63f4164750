#pragma once
// gpuhash::signature_index_ref: the signature index's device-side API
// (docs/device_api.md), taken with index.ref() and used in the caller's own
// kernels or CPU threads, as the server's resident kernel does
// (server/index/gpu_resident.cu). Its operations are the index's own: the
// locations stored under a signature, and inserts, erases and replaces of
// (signature, location) entries, each the per-entry step the index's batches
// run (docs/designs/signature_index.md).
//
// Concurrency. find, count, insert, erase and replace may run together from
// any number of threads: none moves an entry, so a find never misses an
// entry stored before it began and not erased or replaced meanwhile, and an
// insert that finds both buckets full answers `full` (nothing is stored).
// Such an insert is placed by insert_by_eviction, an eviction walk, which
// moves entries between their buckets: it may run only with other walks,
// never with a find, erase or replace (a moving entry is in no bucket for a
// moment), as the index's own phase 2 runs.
//
// Size. The ref does not count: a kernel that changes the index through it
// tallies its statuses (gpuhash::status_counts) and hands them, with the
// entries its walks left homeless, to signature_index::adopt_batch.
//
// Validity: until the index's next call that may grow it (insert, apply,
// apply_async, settle_async, reserve, make_room_for, adopt_batch, clear).

#include <cstdint>

#include "gpuhash/bucket_reads.hpp"
#include "gpuhash/detail/signature_index/view.hpp"
#include "gpuhash/host_device.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash {

template <class Backend>
class signature_index;

template <bucket_reads Reads = bucket_reads::through_l1>
class basic_signature_index_ref {
  using view_type = detail::signature_index::basic_index_view<Reads>;

 public:
  using signature_type = std::uint32_t;
  using location_type = std::uint32_t;
  /// An entry packed in one word: the signature in the high half, the
  /// location in the low half; 0 (no_entry) is none.
  using entry_type = std::uint64_t;

  /// Locations a search can return: two buckets of eight slots.
  static constexpr std::uint32_t max_matches = detail::signature_index::max_matches;
  static constexpr entry_type no_entry = detail::signature_index::empty_slot;

  GPUHASH_HD static constexpr entry_type pack(signature_type signature, location_type location) {
    return detail::signature_index::pack(signature, location);
  }
  GPUHASH_HD static constexpr signature_type signature_of(entry_type entry) {
    return detail::signature_index::signature_of(entry);
  }
  GPUHASH_HD static constexpr location_type location_of(entry_type entry) {
    return detail::signature_index::location_of(entry);
  }
  /// Signature 0 is reserved (the empty slot): inserts, erases and replaces
  /// answer invalid_key, searches find nothing.
  GPUHASH_HD static constexpr bool is_reserved(signature_type signature) { return signature == 0; }

  basic_signature_index_ref() = default;

  /// Writes the locations stored under `signature` to matches[0, count)
  /// (room for max_matches) and returns count.
  GPUHASH_HD std::uint32_t find(signature_type signature, location_type* matches) const {
    return is_reserved(signature) ? 0 : view_.find(signature, matches);
  }
  /// How many entries are stored under `signature`.
  GPUHASH_HD std::uint32_t count(signature_type signature) const {
    return is_reserved(signature) ? 0 : view_.count(signature);
  }
  /// Adds the entry to an empty slot of its two buckets: inserted, or full
  /// when both are full (not stored; insert_by_eviction can place it).
  GPUHASH_HD status insert(signature_type signature, location_type location) const {
    return is_reserved(signature) ? status::invalid_key : view_.insert(signature, location);
  }
  /// Removes one entry equal to (signature, location): erased or not_found.
  GPUHASH_HD status erase(signature_type signature, location_type location) const {
    return is_reserved(signature) ? status::invalid_key : view_.erase(signature, location);
  }
  /// Changes one entry (signature, old_location) to (signature,
  /// new_location) in place: updated or not_found.
  GPUHASH_HD status replace(signature_type signature, location_type old_location,
                            location_type new_location) const {
    return is_reserved(signature) ? status::invalid_key
                                  : view_.replace(signature, old_location, new_location);
  }

  /// How an eviction walk ended: its entry placed, or an entry in hand
  /// (`held`, maybe another one than the walk's: that one is then stored).
  struct placement {
    bool placed;
    entry_type held;
  };
  /// Places an entry that insert found no room for, evicting entries into
  /// their other buckets along a random walk of at most `max_exchanges`
  /// exchanges (`random`: a fresh random word per walk). Runs only with
  /// other walks (see above). A signature with max_matches entries already
  /// has no slot an entry could ever take: check count() first. An entry
  /// left in hand goes back to the index by adopt_batch, which grows it.
  GPUHASH_HD placement insert_by_eviction(signature_type signature, location_type location,
                                          std::uint64_t random, std::uint32_t max_exchanges) const {
    const detail::signature_index::walk_result walk =
        view_.place(pack(signature, location), random, max_exchanges);
    return {walk.placed, walk.placed ? no_entry : walk.entry};
  }

  /// The same index, its buckets read from L2 (bucket_reads::from_l2).
  GPUHASH_HD basic_signature_index_ref<bucket_reads::from_l2> reading_from_l2() const {
    return basic_signature_index_ref<bucket_reads::from_l2>(view_.reading_from_l2());
  }

 private:
  template <class Backend>
  friend class signature_index;
  template <bucket_reads>
  friend class basic_signature_index_ref;

  GPUHASH_HD explicit basic_signature_index_ref(view_type view) : view_(view) {}

  view_type view_{};
};

using signature_index_ref = basic_signature_index_ref<>;

}  // namespace gpuhash
