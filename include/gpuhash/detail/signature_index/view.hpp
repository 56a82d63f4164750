#pragma once
// The signature index's per-entry algorithms, shared by the CPU and CUDA
// backends (docs/designs/signature_index.md). An entry is a (signature,
// location) pair packed in one 64-bit word, so every change is one CAS; the
// all-zero word is an empty slot, hence signature 0 is reserved. A signature
// has two candidate buckets of eight slots (64 bytes each): the first from a
// hash of the signature, the second the first XOR an offset derived from the
// signature, as in the GPU memcached thesis (section 5.2.1). Both derive from
// the signature alone, so the index can rebuild itself larger without the
// caller's keys.
//
// Phase 1 of a batch (find, insert, erase, replace) never moves an entry;
// place() is the eviction walk of phase 2, which runs alone. The public face
// of a view, for the caller's kernels, is gpuhash::signature_index_ref.

#include <cstdint>

#include "gpuhash/bucket_reads.hpp"
#include "gpuhash/detail/atomic.hpp"
#include "gpuhash/hash.hpp"
#include "gpuhash/host_device.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash::detail::signature_index {

using signature_type = std::uint32_t;
using location_type = std::uint32_t;
/// (signature << 32) | location; 0 is an empty slot.
using slot_type = std::uint64_t;

inline constexpr std::uint32_t slots_per_bucket = 8;  // one 64-byte bucket
inline constexpr std::uint32_t max_matches = 2 * slots_per_bucket;
inline constexpr slot_type empty_slot = 0;

GPUHASH_HD constexpr slot_type pack(signature_type signature, location_type location) {
  return (slot_type{signature} << 32) | location;
}
GPUHASH_HD constexpr signature_type signature_of(slot_type slot) {
  return static_cast<signature_type>(slot >> 32);
}
GPUHASH_HD constexpr location_type location_of(slot_type slot) {
  return static_cast<location_type>(slot);
}

/// How an eviction walk ended: placed, or with an entry in hand (homeless).
struct walk_result {
  bool placed;
  slot_type entry;
};

template <bucket_reads Reads = bucket_reads::through_l1>
class basic_index_view {
 public:
  basic_index_view() = default;
  /// `buckets` is a power of two, at least 2.
  GPUHASH_HD basic_index_view(slot_type* slots, std::uint64_t buckets, std::uint64_t seed)
      : slots_(slots),
        mask_(buckets - 1),
        first_seed_(murmur3_fmix64(seed + 0x9e3779b97f4a7c15ULL)),
        offset_seed_(murmur3_fmix64(seed + 0x3c6ef372fe94f82aULL)) {}

  /// The same index, its buckets read from L2 (see bucket_reads).
  GPUHASH_HD basic_index_view<bucket_reads::from_l2> reading_from_l2() const {
    basic_index_view<bucket_reads::from_l2> view;
    view.slots_ = slots_;
    view.mask_ = mask_;
    view.first_seed_ = first_seed_;
    view.offset_seed_ = offset_seed_;
    return view;
  }

  GPUHASH_HD static constexpr bool is_reserved(signature_type signature) { return signature == 0; }

  GPUHASH_HD std::uint64_t first_bucket(signature_type signature) const {
    return murmur3_fmix64(signature ^ first_seed_) & mask_;
  }
  /// The other candidate bucket of an entry with this signature in `bucket`:
  /// XOR with an offset in [1, mask], so never the same bucket.
  GPUHASH_HD std::uint64_t other_bucket(std::uint64_t bucket, signature_type signature) const {
    return bucket ^ (1 + reduce_range(murmur3_fmix64(signature ^ offset_seed_), mask_));
  }

  /// Writes the locations stored under `signature` (both buckets, at most
  /// max_matches) to matches and returns how many.
  GPUHASH_HD std::uint32_t find(signature_type signature, location_type* matches) const {
    std::uint32_t count = 0;
    for_each_match(signature, [&](slot_type entry) { matches[count++] = location_of(entry); });
    return count;
  }

  /// How many entries are stored under `signature` (at most max_matches).
  GPUHASH_HD std::uint32_t count(signature_type signature) const {
    std::uint32_t count = 0;
    for_each_match(signature, [&](slot_type) { ++count; });
    return count;
  }

  /// Adds the entry to an empty slot of its buckets, first bucket first:
  /// inserted, or full when both are full (pending: phase 2 places it).
  GPUHASH_HD status insert(signature_type signature, location_type location) const {
    return claim_empty(pack(signature, location)) ? status::inserted : status::full;
  }

  /// Removes one entry equal to (signature, location): erased or not_found.
  GPUHASH_HD status erase(signature_type signature, location_type location) const {
    return swap_entry(pack(signature, location), empty_slot) ? status::erased : status::not_found;
  }

  /// Changes one entry (signature, old_location) to (signature,
  /// new_location) in place: updated or not_found.
  GPUHASH_HD status replace(signature_type signature, location_type old_location,
                            location_type new_location) const {
    return swap_entry(pack(signature, old_location), pack(signature, new_location))
               ? status::updated
               : status::not_found;
  }

  /// Phase 2: places an entry phase 1 found no empty slot for, evicting
  /// entries along a random walk of at most `max_exchanges` exchanges. Runs
  /// only with other walks, each carrying a different entry.
  GPUHASH_HD walk_result place(slot_type entry, std::uint64_t random,
                               std::uint32_t max_exchanges) const {
    std::uint64_t from_bucket = mask_ + 1;  // none yet
    for (std::uint32_t exchanges = 0;; ++exchanges) {
      if (claim_empty(entry)) return {true, entry};
      if (exchanges == max_exchanges) return {false, entry};

      // Both buckets are full: swap the entry into a random slot of one of
      // them, other than the one it was just evicted from.
      random = murmur3_fmix64(random + 0x9e3779b97f4a7c15ULL);
      const signature_type signature = signature_of(entry);
      std::uint64_t target = first_bucket(signature);
      if ((random & 1) != 0) target = other_bucket(target, signature);
      if (target == from_bucket) target = other_bucket(target, signature);
      const auto position = static_cast<std::uint32_t>((random >> 32) % slots_per_bucket);
      const slot_type evicted =
          exchange_relaxed(slots_ + target * slots_per_bucket + position, entry);
      if (evicted == empty_slot) return {true, entry};  // the slot was freed meanwhile
      entry = evicted;
      from_bucket = target;
    }
  }

 private:
  template <bucket_reads>
  friend class basic_index_view;

  /// Copies a bucket with four 16-byte weak vector loads on the device (see
  /// load_pair_for_probe); each 8-byte slot is read whole.
  GPUHASH_HD void load_bucket(std::uint64_t bucket, slot_type (&copy)[slots_per_bucket]) const {
    const slot_type* first = slots_ + bucket * slots_per_bucket;
    GPUHASH_UNROLL
    for (std::uint32_t j = 0; j < slots_per_bucket; j += 2) {
      const word_pair pair = load_pair_for_probe<Reads == bucket_reads::from_l2>(first + j);
      copy[j] = pair.first;
      copy[j + 1] = pair.second;
    }
  }

  /// Calls f(entry) for every entry stored under `signature`, both buckets.
  template <class F>
  GPUHASH_HD void for_each_match(signature_type signature, F&& f) const {
    std::uint64_t bucket = first_bucket(signature);
    GPUHASH_UNROLL
    for (int choice = 0; choice < 2; ++choice) {
      slot_type copy[slots_per_bucket];
      load_bucket(bucket, copy);
      GPUHASH_UNROLL
      for (std::uint32_t j = 0; j < slots_per_bucket; ++j)
        if (copy[j] != empty_slot && signature_of(copy[j]) == signature) f(copy[j]);
      bucket = other_bucket(bucket, signature);
    }
  }

  /// CASes `entry` into the first empty slot of its two buckets.
  GPUHASH_HD bool claim_empty(slot_type entry) const {
    return swap_first(signature_of(entry), empty_slot, entry);
  }
  /// CASes one slot holding `expected` to `desired`.
  GPUHASH_HD bool swap_entry(slot_type expected, slot_type desired) const {
    return swap_first(signature_of(expected), expected, desired);
  }

  /// CASes the first slot of `signature`'s buckets that holds `expected` to
  /// `desired`. A failed CAS means the slot changed under us (another insert
  /// took it, or another erase or replace of that entry won): look further on.
  GPUHASH_HD bool swap_first(signature_type signature, slot_type expected,
                             slot_type desired) const {
    std::uint64_t bucket = first_bucket(signature);
    for (int choice = 0; choice < 2; ++choice) {
      slot_type copy[slots_per_bucket];
      load_bucket(bucket, copy);
      slot_type* first = slots_ + bucket * slots_per_bucket;
      for (std::uint32_t j = 0; j < slots_per_bucket; ++j) {
        if (copy[j] == expected &&
            compare_exchange_relaxed(first + j, expected, desired) == expected)
          return true;
      }
      bucket = other_bucket(bucket, signature);
    }
    return false;
  }

  slot_type* slots_ = nullptr;
  std::uint64_t mask_ = 0;
  std::uint64_t first_seed_ = 0;
  std::uint64_t offset_seed_ = 0;
};

using index_view = basic_index_view<>;

}  // namespace gpuhash::detail::signature_index
