#pragma once
// Bucketed cuckoo hashing: the per-key algorithms, shared by the CPU and CUDA
// backends. Phase 1 (find, insert, upsert, update, erase) never moves a key;
// place() is the eviction walk of phase 2. Protocol and proofs:
// docs/designs/bucketed_cuckoo.md.
//
// The view works over key and value words (std::uint32_t, std::uint64_t,
// unsigned __int128): a table of the user's types (gpuhash/key_types.hpp)
// stores their bytes as words, and its policies reach the view as the hash
// (seeded once per choice) and the key equality over words; typed_view.hpp
// converts keys and values at the edges.

#include <cstdint>
#include <type_traits>

#include "gpuhash/bucketed_cuckoo_config.hpp"
#include "gpuhash/detail/slot_steps.hpp"
#include "gpuhash/detail/typed_view.hpp"
#include "gpuhash/detail/view_writes.hpp"
#include "gpuhash/hash.hpp"
#include "gpuhash/host_device.hpp"
#include "gpuhash/status.hpp"

#if defined(__CUDACC__)
#include "gpuhash/detail/bucketed_cuckoo/tile_find.cuh"
#endif

namespace gpuhash::detail::bucketed_cuckoo {

/// What the eviction walk ends with: placed, or the key left in hand.
template <class Key, class Value>
struct walk_result {
  bool placed;
  Key key;
  Value value;
};

/// The slot steps for a key word and a value word: packed_pair's one-word
/// slots for 4/4 bytes, published_pair's key and value words for every
/// other pair (16-byte slots, or 32-byte ones where a word has 16 bytes).
template <class Key, class Value>
using slot_steps_for = std::conditional_t<sizeof(Key) == 4 && sizeof(Value) == 4,
                                          packed_slots<Key, Value>, pair_slots<Key, Value>>;

/// The per-key algorithms over key words `Key` and value words `Value`.
/// `Hash` hashes a key word under the `seed` member it carries
/// (policy_hash): each choice gets a copy seeded with its own member of a
/// hash_family, so for integer keys under key_bytes_hash choice i hashes
/// as hash_family's member i, seeded_hash. `Equal` compares a stored key
/// word with a searched one (word_equal, or a key type's policy_equal).
/// `BackyardSixteenths` (bucketed_cuckoo_config's) places choices 2 and on
/// in a backyard of the last buckets.
template <class Key, class Value, std::uint32_t BucketBytes, std::uint32_t Choices,
          bucketed_cuckoo_eviction Eviction = bucketed_cuckoo_eviction::lookahead,
          class Hash = policy_hash<Key, key_bytes_hash<Key>>, class Equal = word_equal,
          std::uint32_t BackyardSixteenths = 0>
class table_view
    : public view_writes<
          table_view<Key, Value, BucketBytes, Choices, Eviction, Hash, Equal, BackyardSixteenths>,
          Key, Value> {
  friend view_writes<table_view, Key, Value>;

 public:
  using key_type = Key;
  using mapped_type = Value;
  using slot_ops = slot_steps_for<Key, Value>;
  using slot_type = typename slot_ops::slot_type;

  static constexpr std::uint32_t slots_per_bucket = BucketBytes / sizeof(slot_type);
  static constexpr std::uint32_t choices = Choices;
  static_assert(BucketBytes % 16 == 0 && slots_per_bucket >= 2,
                "gpuhash::bucketed_cuckoo_map: a bucket holds at least two slots and a whole "
                "number of 16-byte words (32, 64 or 128 bytes)");
  static_assert(Choices >= 2 && Choices <= 4,
                "gpuhash::bucketed_cuckoo_map: 2 to 4 bucket choices per key");
  static constexpr auto reserved_keys = slot_ops::reserved_keys;
  /// Whether the view has a cooperative find (tile_find.cuh): slots of at
  /// most 16 bytes, so that each lane's 16-byte piece holds whole slots, and
  /// keys that are equal exactly when their words are.
  static constexpr bool has_tile_find =
      sizeof(slot_type) <= 16 && std::is_same_v<Equal, word_equal>;
  /// Lanes of a cooperative find: one per 16-byte piece of a bucket (0: none).
  static constexpr unsigned find_tile_size = has_tile_find ? BucketBytes / 16 : 0;

  table_view() = default;
  /// `hash` is copied once per choice, each copy with its own seed.
  GPUHASH_HD table_view(slot_type* slots, std::uint64_t buckets, std::uint64_t seed, Hash hash = {},
                        Equal equal = {})
      : slots_(slots),
        buckets_(buckets),
        backyard_buckets_(backyard_buckets(buckets)),
        front_buckets_(buckets - backyard_buckets_),
        equal_(equal) {
    // Only member_seed is used, which does not depend on the family's key type.
    const hash_family<std::uint64_t> family{seed};
    GPUHASH_UNROLL
    for (std::uint32_t choice = 0; choice < Choices; ++choice) {
      hashes_[choice] = hash;
      hashes_[choice].seed = family.member_seed(choice);
    }
  }

  GPUHASH_HD static constexpr bool is_reserved(Key key) { return slot_ops::is_reserved(key); }
  GPUHASH_HD static bool is_live(const slot_type& slot) { return slot_ops::is_live(slot); }
  GPUHASH_HD static Key key_of(const slot_type& slot) { return slot_ops::key_of(slot); }
  GPUHASH_HD static Value value_of(const slot_type& slot) { return slot_ops::value_of(slot); }

  /// The key's bucket for `choice` (0 to Choices - 1; the probe order visits
  /// them in this order). Public for searches that split a bucket among
  /// threads (cooperative_find.cuh).
  GPUHASH_HD std::uint64_t bucket_index(Key key, std::uint32_t choice) const {
    if constexpr (BackyardSixteenths == 0) {
      return reduce_range(hashes_[choice](key), buckets_);
    } else {
      if (choice < 2 || backyard_buckets_ == 0)
        return reduce_range(hashes_[choice](key), front_buckets_);
      return front_buckets_ + reduce_range(hashes_[choice](key), backyard_buckets_);
    }
  }
  /// The buckets of a table of `buckets` that choices 2 and on draw from,
  /// at its end: BackyardSixteenths / 16 of them, none in a table of fewer
  /// than 16 buckets (every choice then draws from all of them).
  GPUHASH_HD static constexpr std::uint64_t backyard_buckets(std::uint64_t buckets) {
    return buckets < 16 ? 0 : buckets / 16 * BackyardSixteenths;
  }
  /// The first slot of bucket `index`.
  GPUHASH_HD slot_type* bucket(std::uint64_t index) const {
    return slots_ + index * slots_per_bucket;
  }

  GPUHASH_HD status find(Key key, Value* value_out) const {
    status result = status::not_found;
    probe(key, [&](slot_type* slot, slot_type& copy) {
      const Key seen = slot_ops::settled_key(slot, copy);
      if (equal_(seen, key)) {
        if (value_out != nullptr) *value_out = slot_ops::value(slot, copy);
        result = status::found;
        return true;
      }
      return seen == slot_ops::empty_key;  // invariant (I): the key is not further on
    });
    return result;
  }

#if defined(__CUDACC__)
  /// find with one cooperative tile of find_tile_size threads per key
  /// (tile_find.cuh), for refs; device only.
  template <class Tile>
  __device__ status find(const Tile& tile, Key key, Value* value_out) const requires has_tile_find {
    static_assert(Tile::num_threads() == find_tile_size,
                  "gpuhash: a bucketed cuckoo ref's cooperative find takes tiles of "
                  "cooperative_find_tile threads (cooperative_groups::tiled_partition)");
    const key_outcome<Value> out = find_in_tile<true>(tile, *this, key);
    if (out.result == status::found && value_out != nullptr) *value_out = out.value;
    return out.result;
  }
  template <class Tile>
  __device__ bool contains(const Tile& tile, Key key) const requires has_tile_find {
    static_assert(Tile::num_threads() == find_tile_size,
                  "gpuhash: a bucketed cuckoo ref's cooperative find takes tiles of "
                  "cooperative_find_tile threads (cooperative_groups::tiled_partition)");
    return find_in_tile<false>(tile, *this, key).result == status::found;
  }
#endif

  GPUHASH_HD status erase(Key key) const {
    status result = status::not_found;
    probe(key, [&](slot_type* slot, slot_type& copy) {
      for (;;) {
        const Key seen = slot_ops::settled_key(slot, copy);
        if (!equal_(seen, key)) return seen == slot_ops::empty_key;
        if (slot_ops::bury(slot, copy)) {
          result = status::erased;
          return true;
        }
      }
    });
    return result;
  }

  /// Phase 2: places a key that phase 1 found no free slot for, evicting
  /// keys along a walk of at most `max_exchanges` exchanges (random, or
  /// guided by the lookahead policy). Runs
  /// only with other walks, each for a different key.
  GPUHASH_HD walk_result<Key, Value> place(Key key, Value value, std::uint64_t random,
                                           std::uint32_t max_exchanges) const {
    std::uint64_t from_bucket = buckets_;  // none yet
    for (std::uint32_t exchanges = 0;; ++exchanges) {
      // The first free slot (empty, or a tombstone: no other writer of this
      // key is running now) of the key's probe order. The bucket the key
      // was just evicted from is full (walks only fill slots), so it is not
      // read again: a third of a walk's reads saved.
      bool placed = false;
      probe(key, from_bucket, [&](slot_type* slot, slot_type& copy) {
        for (;;) {
          const Key seen = slot_ops::settled_key(slot, copy);
          if (seen != slot_ops::empty_key && seen != slot_ops::tombstone_key) return false;
          if (slot_ops::claim(slot, copy, key, value)) return placed = true;
        }
      });
      if (placed) return {true, key, value};
      if (exchanges == max_exchanges) return {false, key, value};

      // Every slot of the key's buckets is taken: swap the key into a random
      // slot of a random candidate bucket, other than the one it just left.
      random = murmur3_fmix64(random + 0x9e3779b97f4a7c15ULL);
      const auto choice = static_cast<std::uint32_t>(random % Choices);
      std::uint64_t target = bucket_index(key, choice);
      for (std::uint32_t next = 1; target == from_bucket && next < Choices; ++next)
        target = bucket_index(key, (choice + next) % Choices);
      auto position = static_cast<std::uint32_t>((random >> 32) % slots_per_bucket);
      if constexpr (Eviction == bucketed_cuckoo_eviction::lookahead)
        position = slot_with_room_behind(target, position);
      const slot_type evicted = slot_ops::exchange(bucket(target) + position, key, value);
      const Key evicted_key = slot_ops::key_of(evicted);
      if (evicted_key == slot_ops::empty_key || evicted_key == slot_ops::tombstone_key)
        return {true, key, value};  // the slot was freed meanwhile
      key = evicted_key;
      value = slot_ops::value_of(evicted);
      from_bucket = target;
    }
  }

 private:
  GPUHASH_HD static bool is_free_key(Key key) {
    return key == slot_ops::empty_key || key == slot_ops::tombstone_key;
  }

  /// Lookahead eviction: the first slot of bucket `target`, from `start` on,
  /// that is free or holds a key with a free slot in another of its buckets;
  /// `start` if there is none. Only a hint: the walk's exchange and the
  /// evicted key's claim are atomic and re-check everything.
  GPUHASH_HD std::uint32_t slot_with_room_behind(std::uint64_t target, std::uint32_t start) const {
    slot_type copy[slots_per_bucket];
    slot_ops::template load<slots_per_bucket>(bucket(target), copy);
    bool room[slots_per_bucket];
    GPUHASH_UNROLL
    for (std::uint32_t j = 0; j < slots_per_bucket; ++j) {
      const Key victim = slot_ops::key_of(copy[j]);
      room[j] = is_free_key(victim);
      if (room[j] || slot_ops::is_reserved(victim)) continue;  // free, or a pair mid-publication
      // The victim's bucket to look in: with a backyard, its first backyard
      // bucket other than the target (the backyard fills last, so room is
      // likelier there), else its first bucket other than the target.
      std::uint64_t other = target;
      GPUHASH_UNROLL
      for (std::uint32_t choice = BackyardSixteenths != 0 ? 2 : 0; choice < Choices; ++choice) {
        const std::uint64_t candidate = bucket_index(victim, choice);
        if (other == target) other = candidate;
      }
      if constexpr (BackyardSixteenths != 0) {
        GPUHASH_UNROLL
        for (std::uint32_t choice = 0; choice < 2; ++choice) {
          const std::uint64_t candidate = bucket_index(victim, choice);
          if (other == target) other = candidate;
        }
      }
      if (other == target) continue;
      slot_type behind[slots_per_bucket];
      slot_ops::template load<slots_per_bucket>(bucket(other), behind);
      GPUHASH_UNROLL
      for (std::uint32_t k = 0; k < slots_per_bucket; ++k)
        room[j] |= is_free_key(slot_ops::key_of(behind[k]));
    }
    GPUHASH_UNROLL
    for (std::uint32_t offset = 0; offset < slots_per_bucket; ++offset) {
      const std::uint32_t j = (start + offset) % slots_per_bucket;
      if (room[j]) return j;
    }
    return start;
  }

  /// Calls visit(slot address, copy of the slot) along the key's probe order
  /// (the slots of its buckets, bucket by bucket) until visit returns true;
  /// returns false if it never did. A bucket that two choices share is
  /// visited once. Each bucket is read whole, in one round trip.
  template <class Visit>
  GPUHASH_HD bool probe(Key key, Visit&& visit) const {
    return probe(key, buckets_, visit);
  }
  /// The same, leaving out bucket `skipped` (buckets_ for none).
  template <class Visit>
  GPUHASH_HD bool probe(Key key, std::uint64_t skipped, Visit&& visit) const {
    std::uint64_t indices[Choices];
    GPUHASH_UNROLL
    for (std::uint32_t choice = 0; choice < Choices; ++choice) {
      // Hashed only when reached: most probes end in the first bucket.
      indices[choice] = bucket_index(key, choice);
      bool repeated = false;
      GPUHASH_UNROLL
      for (std::uint32_t earlier = 0; earlier < choice; ++earlier)
        repeated |= indices[earlier] == indices[choice];
      if (repeated || indices[choice] == skipped) continue;
      slot_type* first = bucket(indices[choice]);
      slot_type copy[slots_per_bucket];
      slot_ops::template load<slots_per_bucket>(first, copy);
      GPUHASH_UNROLL
      for (std::uint32_t j = 0; j < slots_per_bucket; ++j) {
        if (visit(first + j, copy[j])) return true;
      }
    }
    return false;
  }

  /// Phase 1 writes (insert, upsert, update, insert_or_assign and
  /// insert_or_apply, view_writes). `full` means pending: no free slot
  /// without moving keys; for refs (map_ref.hpp), not placed: nothing moves
  /// (docs/designs/bucketed_cuckoo.md).
  template <write_mode Mode, class Op = no_apply_op>
  GPUHASH_HD status write(Key key, Value value, Op op = {}) const {
    status result = Mode == write_mode::update_if_present ? status::not_found : status::full;
    probe(key, [&](slot_type* slot, slot_type& copy) {
      // Re-examine the slot until it holds neither our key nor empty.
      for (;;) {
        const Key seen = slot_ops::settled_key(slot, copy);
        if (equal_(seen, key)) {
          if constexpr (Mode == write_mode::insert_if_absent) {
            result = status::exists;
            return true;
          }
          if constexpr (Mode == write_mode::insert_or_apply) {
            // Not done when lost to another write of the key (unlike an
            // upsert): apply_value retries with the value that write left.
            if (slot_ops::apply_value(slot, copy, value, op)) {
              result = status::updated;
              return true;
            }
            continue;  // erased meanwhile: the copy shows the tombstone
          }
          // A lost CAS that still shows our key lost to another write of its
          // value: an upsert counts as done, ordered just before the winner
          // (see linear_probing/view.hpp; retrying serializes a hot key's
          // writers); a ref's insert_or_assign retries (write_mode says why).
          if (slot_ops::set_value(slot, copy, value) ||
              (Mode != write_mode::insert_or_assign && equal_(slot_ops::key_of(copy), key))) {
            result = status::updated;
            return true;
          }
        } else if (seen == slot_ops::empty_key) {
          if constexpr (Mode == write_mode::update_if_present) {
            result = status::not_found;
            return true;
          }
          if (slot_ops::claim(slot, copy, key, value)) {
            result = status::inserted;
            return true;
          }
        } else {
          return false;  // another key or a tombstone: never claimed in phase 1
        }
      }
    });
    return result;
  }

  slot_type* slots_ = nullptr;
  std::uint64_t buckets_ = 0;
  std::uint64_t backyard_buckets_ = 0;  // the last buckets, for choices 2 and on
  std::uint64_t front_buckets_ = 0;     // the first buckets, for choices 0 and 1
  Hash hashes_[Choices] = {};           // seeded by one member of a hash_family per choice
  Equal equal_{};
};

}  // namespace gpuhash::detail::bucketed_cuckoo
