#pragma once
// Linear probing with wide values (more than 16 bytes: an embedding row, 32
// floats), shared by the CPU and CUDA backends. A value that wide cannot be
// written by one atomic store, so each slot carries a version word next to
// its key, and the value is read and written under it (a sequence lock):
//
//  * The key word follows pair_view's protocol: empty -> busy -> key ->
//    tombstone. An insert claims an empty slot (CAS to busy), writes the
//    value, sets the version to 0 and publishes the key (release); so
//    whoever sees the key sees its first value.
//  * A write of a present key's value (upsert, update, insert_or_assign,
//    insert_or_apply) takes the slot's version from even to odd by CAS,
//    writes (for an apply: reads, applies op, writes), then stores the next
//    even version (release). Writers of one key take turns; an apply's op
//    sees the value the previous writer left.
//  * A read copies the value between two loads of the version and retries
//    until both are the same even number: it never returns a half-written
//    value.
//  * Erase turns the key into a tombstone, as in pair_view; a value write
//    racing with it lands on the tombstone's slot, ordered before the erase.
// Layout: the slots (key word and version, 16 bytes for 8-byte keys) in one
// array, probed as 64/64 pairs are; the values in rows of whole 16-byte
// pieces in a second array that starts at a 128-byte boundary after them,
// row i for slot i. A probe step reads a small slot, not a slot with its
// value in it, and a 128-byte value is one cache line. Every word is
// accessed atomically (the value in 16-byte pieces on the device, 8-byte ones
// on the host). docs/designs/linear_probing.md, "Wide values".

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

#include "gpuhash/detail/atomic.hpp"
#include "gpuhash/detail/linear_probing/view.hpp"
#include "gpuhash/detail/slot_layouts.hpp"
#include "gpuhash/host_device.hpp"
#include "gpuhash/key_types.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash::detail::linear_probing {

/// The storage of wide values: a slot per key (its word and its value's
/// version), and the value's row apart, in an array after the slots.
template <class Key, class Value>
struct versioned_rows : published_keys<Key> {
  using published_keys<Key>::busy_key;
  using published_keys<Key>::empty_key;
  using published_keys<Key>::tombstone_key;

  /// The value's 16-byte pieces.
  static constexpr std::size_t value_pieces = (sizeof(Value) + 15) / 16;
  /// Where the rows start: a cache line, so that a 128-byte row is one line
  /// and a 32-byte row one sector.
  static constexpr std::uint64_t rows_alignment = 128;
  /// The engines that hold these slots allocate storage_slots(capacity) of
  /// them (live_slots.hpp reads the pairs back by slot index).
  static constexpr bool values_apart = true;

  struct alignas(16) slot_type {
    Key key;
    /// Even: the value is stable; odd: a writer is changing it.
    std::uint64_t version;
  };
  struct alignas(16) row_type {
    std::uint64_t words[2 * value_pieces];
  };

  /// Elements of slot_type to allocate for `capacity` slots and their rows
  /// (the rows' alignment included).
  static constexpr std::uint64_t storage_slots(std::uint64_t capacity) {
    return capacity +
           (rows_alignment + capacity * sizeof(row_type) + sizeof(slot_type) - 1) /
               sizeof(slot_type);
  }
  /// The rows of a storage of storage_slots(capacity) elements at `slots`.
  GPUHASH_HD static row_type* rows_of(slot_type* slots, std::uint64_t capacity) {
    const auto end = reinterpret_cast<std::uintptr_t>(slots + capacity);
    return reinterpret_cast<row_type*>((end + rows_alignment - 1) / rows_alignment *
                                       rows_alignment);
  }

  GPUHASH_HD static Key key_of(const slot_type& slot) { return slot.key; }
  GPUHASH_HD static bool is_live(const slot_type& slot) { return slot.key < busy_key; }
  /// The value of a row no one writes (rehash and retrieve_all run alone).
  GPUHASH_HD static Value value_of(const row_type& row) {
    Value value;
    memcpy(&value, row.words, sizeof(Value));
    return value;
  }
  /// Stores `key` and `value` at version 0 into a table being built (dynamic
  /// HashGraph's buckets: nothing reads the slots yet).
  GPUHASH_HD static void put(slot_type& slot, row_type& row, Key key, const Value& value) {
    slot = slot_type{key, 0};
    memcpy(row.words, &value, sizeof(Value));
  }

  /// Copies the value's words; may see a writer's half-done work (callers
  /// validate by the version).
  GPUHASH_HD static Value load_value(const row_type& row) {
    std::uint64_t words[2 * value_pieces];
    GPUHASH_UNROLL
    for (std::size_t piece = 0; piece < value_pieces; ++piece) {
#if defined(__CUDA_ARCH__)
      const word128 both = load_relaxed(reinterpret_cast<const word128*>(row.words) + piece);
      words[2 * piece] = static_cast<std::uint64_t>(both);
      words[2 * piece + 1] = static_cast<std::uint64_t>(both >> 64);
#else
      words[2 * piece] = load_relaxed(&row.words[2 * piece]);
      words[2 * piece + 1] = load_relaxed(&row.words[2 * piece + 1]);
#endif
    }
    Value value;
    memcpy(&value, words, sizeof(Value));
    return value;
  }
  /// Writes the value's words into the row of a slot the caller holds (its
  /// key busy, or its version odd).
  GPUHASH_HD static void store_value(row_type& row, const Value& value) {
    std::uint64_t words[2 * value_pieces] = {};
    memcpy(words, &value, sizeof(Value));
    GPUHASH_UNROLL
    for (std::size_t piece = 0; piece < value_pieces; ++piece) {
#if defined(__CUDA_ARCH__)
      const word128 both = (static_cast<word128>(words[2 * piece + 1]) << 64) | words[2 * piece];
      store_relaxed(reinterpret_cast<word128*>(row.words) + piece, both);
#else
      store_relaxed(&row.words[2 * piece], words[2 * piece]);
      store_relaxed(&row.words[2 * piece + 1], words[2 * piece + 1]);
#endif
    }
  }

  /// The value of a published key, never half-written: copied between two
  /// equal even versions. A reader that meets a write backs off, as writers
  /// waiting for the version do, so that the readers of a hot key leave its
  /// line to the writer holding it.
  GPUHASH_HD static Value read(slot_type& slot, const row_type& row) {
    for (std::uint32_t attempt = 0;; ++attempt) {
      const std::uint64_t before = load_acquire(&slot.version);
      if (before % 2 != 0) {
        spin_backoff(attempt);
        continue;
      }
      const Value value = load_value(row);
      fence_acquire();  // the copy above before the version's second load
      if (load_relaxed(&slot.version) == before) return value;
      spin_backoff(attempt);
    }
  }

  /// Runs change(value) on a published key's value as one step: under the
  /// slot's version, odd while it runs.
  template <class Change>
  GPUHASH_HD static void modify(slot_type& slot, row_type& row, Change&& change) {
    std::uint64_t version = load_relaxed(&slot.version);
    for (std::uint32_t attempt = 0;; ++attempt) {
      if (version % 2 == 0) {
        const std::uint64_t seen = compare_exchange_acquire(&slot.version, version, version + 1);
        if (seen == version) break;
        version = seen;
      } else {
        spin_backoff(attempt);
        version = load_relaxed(&slot.version);
      }
    }
    fence_release();  // the odd version before the value's new words
    Value value = load_value(row);
    change(value);
    store_value(row, value);
    store_release(&slot.version, version + 2);
  }

  /// The slot's key once no insert is half-way through publishing it.
  GPUHASH_HD static Key settled_key(slot_type& slot) {
    Key seen = load_acquire(&slot.key);
    while (seen == busy_key) {
      spin_pause();
      seen = load_acquire(&slot.key);
    }
    return seen;
  }

  /// published_search's hook: the settled key (its erase reads no value).
  GPUHASH_HD static Key published_key(slot_type& slot) { return settled_key(slot); }
};

/// Linear probing over versioned_rows: one slot per probe step, then the
/// found key's row.
template <class Key, class Value, class Home, class Equal>
class wide_view
    : public versioned_rows<Key, Value>,
      public published_search<versioned_rows<Key, Value>, Key, Value, Home, Equal>,
      public view_writes<wide_view<Key, Value, Home, Equal>, Key, Value, write_mode::upsert> {
  using layout = versioned_rows<Key, Value>;
  using search = published_search<layout, Key, Value, Home, Equal>;
  // insert_or_assign runs as upsert: a write under the version always lands.
  friend view_writes<wide_view, Key, Value, write_mode::upsert>;

 public:
  using key_type = Key;
  using mapped_type = Value;
  using layout::busy_key;
  using layout::empty_key;
  using layout::tombstone_key;
  using search::erase;
  using typename layout::row_type;
  using typename layout::slot_type;
  static constexpr std::uint64_t window_slots = 1;

  /// Lanes of find_into's tile: one per 16-byte piece of the value, up to a
  /// warp (a power of two).
  static constexpr unsigned copy_tile_size =
      std::bit_ceil(static_cast<unsigned>(layout::value_pieces < 32 ? layout::value_pieces : 32));

  wide_view() = default;
  /// `slots`: storage_slots(capacity) elements, the rows after the slots.
  GPUHASH_HD wide_view(slot_type* slots, std::uint64_t capacity, Home home, Equal equal = {})
      : search(slots, capacity, home, equal), rows_(layout::rows_of(slots, capacity)) {}

  GPUHASH_HD status find(Key key, Value* value_out) const {
    probe_sequence probe = start(key);
    for (std::uint64_t step = 0; step < capacity_; ++step, probe.advance()) {
      slot_type& slot = slots_[probe.position];
      const Key seen = layout::settled_key(slot);
      if (equal_(seen, key)) {
        if (value_out != nullptr) *value_out = layout::read(slot, rows_[probe.position]);
        return status::found;
      }
      if (seen == empty_key) return status::not_found;
    }
    return status::not_found;
  }

  /// The pair of slot i, for work that runs alone (rehash, retrieve_all).
  GPUHASH_HD bool live_at(std::uint64_t i) const { return layout::is_live(slots_[i]); }
  GPUHASH_HD Key key_at(std::uint64_t i) const { return slots_[i].key; }
  GPUHASH_HD Value value_at(std::uint64_t i) const { return layout::value_of(rows_[i]); }

#if defined(__CUDACC__)
  /// find by a tile of copy_tile_size threads, all calling with the same
  /// key and the same `value_out`, for batches; device only. The probe is
  /// find's, each step decided by the tile's first lane. On a match every
  /// lane copies its share of the row's pieces, so a value is read (and
  /// stored to `value_out`) by adjacent lanes, one coalesced request, where
  /// one thread per key issues a scattered 16-byte load and store per piece.
  /// Each lane validates its own pieces as read() does: its acquire load of
  /// the slot (key and version), the pieces, an acquire fence, the version
  /// again; the value is taken only when every lane saw the key and the same
  /// even version twice, so all its pieces are of that one version.
  /// `value_out`: where a found value goes (any alignment of Value), written
  /// by the tile together, each lane its pieces; null for contains, which
  /// reads no value.
  template <class Tile>
  __device__ status find_into(const Tile& tile, Key key, Value* value_out) const {
    constexpr unsigned pieces_per_lane =
        (layout::value_pieces + copy_tile_size - 1) / copy_tile_size;
    probe_sequence probe = start(key);
    for (std::uint64_t step = 0; step < capacity_; ++step, probe.advance()) {
      slot_type& slot = slots_[probe.position];
      const auto* row = reinterpret_cast<const word128*>(rows_[probe.position].words);
      for (std::uint32_t attempt = 0;; ++attempt) {
        const auto [seen, before] = load_slot_acquire(slot);
        const bool match = equal_(seen, key);
        if ((tile.ballot(match) & 1U) == 0) {  // the first lane's reading decides
          if ((tile.ballot(seen == busy_key) & 1U) != 0) {
            spin_pause();
            continue;
          }
          if ((tile.ballot(seen == empty_key) & 1U) != 0) return status::not_found;
          break;  // another key or a tombstone: the next slot
        }
        if (value_out == nullptr) return status::found;
        word128 pieces[pieces_per_lane];
        GPUHASH_UNROLL
        for (unsigned k = 0; k < pieces_per_lane; ++k) {
          const std::size_t piece = tile.thread_rank() + k * copy_tile_size;
          if (piece < layout::value_pieces) pieces[k] = load_relaxed(row + piece);
        }
        fence_acquire();  // the pieces before the version's second load
        const std::uint64_t after = load_relaxed(&slot.version);
        const bool stable =
            match && before % 2 == 0 && after == before && before == tile.shfl(before, 0);
        if (!tile.all(stable)) {
          spin_backoff(attempt);  // a write of the value: as read() does
          continue;
        }
        GPUHASH_UNROLL
        for (unsigned k = 0; k < pieces_per_lane; ++k) {
          const std::size_t piece = tile.thread_rank() + k * copy_tile_size;
          if (piece < layout::value_pieces) store_value_piece(value_out, piece, pieces[k]);
        }
        return status::found;
      }
    }
    return status::not_found;
  }
#endif

 private:
  using search::capacity_;
  using search::equal_;
  using search::slots_;
  using search::start;

#if defined(__CUDACC__)
  struct slot_reading {
    Key key;
    std::uint64_t version;
  };
  /// The slot's key and version, the loads after it ordered behind both (the
  /// slot of a key of up to 8 bytes is one 16-byte acquire load).
  __device__ static slot_reading load_slot_acquire(slot_type& slot) {
    if constexpr (sizeof(Key) <= 8) {  // the key's word, then the version at byte 8
      const word128 both = load_acquire(reinterpret_cast<const word128*>(&slot));
      return {static_cast<Key>(static_cast<std::uint64_t>(both)),
              static_cast<std::uint64_t>(both >> 64)};
    } else {
      const Key key = load_acquire(&slot.key);
      return {key, load_acquire(&slot.version)};
    }
  }

  /// Stores the value's 16-byte piece `piece` into `value_out`: one vector
  /// store where the output is 16-byte aligned and the piece whole, else
  /// the piece's 4-byte words that fall inside the value (a wide value is a
  /// whole number of them).
  __device__ static void store_value_piece(Value* value_out, std::size_t piece, word128 bits) {
    auto* out = reinterpret_cast<unsigned char*>(value_out) + 16 * piece;
    if (reinterpret_cast<std::uintptr_t>(value_out) % 16 == 0 &&
        16 * (piece + 1) <= sizeof(Value)) {
      *reinterpret_cast<ulonglong2*>(out) =
          make_ulonglong2(static_cast<std::uint64_t>(bits), static_cast<std::uint64_t>(bits >> 64));
      return;
    }
    GPUHASH_UNROLL
    for (unsigned word = 0; word < 4; ++word) {
      if (16 * piece + 4 * (word + 1) <= sizeof(Value))
        reinterpret_cast<std::uint32_t*>(out)[word] =
            static_cast<std::uint32_t>(bits >> (32 * word));
    }
  }
#endif

  template <write_mode Mode, class Op = no_apply_op>
  GPUHASH_HD status write(Key key, const Value& value, Op op = {}) const {
    probe_sequence probe = start(key);
    for (std::uint64_t step = 0; step < capacity_; ++step, probe.advance()) {
      slot_type& slot = slots_[probe.position];
      row_type& row = rows_[probe.position];
      Key seen = layout::settled_key(slot);
      for (;;) {
        if (equal_(seen, key)) {
          if constexpr (Mode == write_mode::insert_if_absent) {
            return status::exists;
          } else if constexpr (Mode == write_mode::insert_or_apply) {
            layout::modify(slot, row, [&](Value& stored) { op(stored, value); });
          } else {
            layout::modify(slot, row, [&](Value& stored) { stored = value; });
          }
          return status::updated;
        }
        if (seen != empty_key) break;
        if constexpr (Mode == write_mode::update_if_present) return status::not_found;
        seen = compare_exchange_relaxed(&slot.key, empty_key, busy_key);
        if (seen == empty_key) {
          layout::store_value(row, value);
          store_relaxed(&slot.version, std::uint64_t{0});
          store_release(&slot.key, key);  // publishes the value and version written above
          return status::inserted;
        }
        if (seen == busy_key) seen = layout::settled_key(slot);
      }
    }
    return Mode == write_mode::update_if_present ? status::not_found : status::full;
  }

  row_type* rows_ = nullptr;
};

/// Runs find and contains batches of wide values one tile of threads per key
/// (wide_view's cooperative find) on backends that have tiles. This primary
/// template is for backends that do not; the CUDA specialization is in
/// wide_find.cuh (nvcc only).
template <class Backend>
struct wide_finds {
  static constexpr bool available = false;
};

/// The view of a table in global memory for a key word and a stored value
/// (a word, or a wide value: gpuhash/key_types.hpp).
template <class KeyWord, class Stored, class Home = hashed_home<KeyWord>, class Equal = word_equal>
using table_view_for =
    std::conditional_t<is_wide_value_v<Stored>, wide_view<KeyWord, Stored, Home, Equal>,
                       view_for<KeyWord, Stored, Home, slot_memory::global, Equal>>;

}  // namespace gpuhash::detail::linear_probing
