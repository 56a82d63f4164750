#pragma once
// string_map's per-key algorithms (gpuhash/string_map.hpp), shared by the
// CPU and CUDA backends: linear probing over slots that hold where a key's
// bytes are, not the bytes.
//
// Storage. The keys' bytes live once in an arena (one buffer, appended to);
// a slot holds the key's place in it (its handle: the arena offset), its
// length, a 32-bit tag (the hash's low half) and the value, 32 bytes in all,
// one memory sector. A search compares the tag and the length first and the
// bytes only when both match, so a miss reads the arena about once in 2^32
// probes.
//
// Slot protocol (linear probing's busy-then-publish, docs/designs/
// linear_probing.md, with the handle as the key word):
//  * A handle only moves forward,  empty -> busy -> published -> tombstone,
//    while batches and refs run; only clear() and a rehash, which run alone,
//    make a slot empty again. The one exception is a ref's insert that
//    claimed a slot and then found no room in the arena: it puts its own
//    busy slot back to empty, which no one can have passed (every probe
//    that meets a busy slot waits for it).
//  * An insert claims an empty slot (busy), writes the value, and publishes
//    the handle with its tag and length by a release store; the key's bytes
//    are in the arena before that (a batch copies them in before its
//    kernel; a ref's insert copies them after claiming). A search waits
//    while a slot is busy, so it never sees a key without its bytes and
//    value, and two inserts of one key end with one stored (the second
//    finds the first's).
//  * Erase turns the handle into a tombstone by CAS; the bytes stay in the
//    arena until a rehash copies the live keys into a new one.
// On the GPU the slot's first 16 bytes (handle, tag, length) are changed
// together by 128-bit atomics (sm_90) and read for probing by weak 16-byte
// loads (probed_head says why a stale one is safe), with an acquire fence
// before a match's bytes are read; on the CPU the handle alone is atomic,
// and the tag and length, written before it is published and never after,
// are read after it.

#include <cstddef>
#include <cstdint>

#include "gpuhash/detail/atomic.hpp"
#include "gpuhash/hash.hpp"
#include "gpuhash/host_device.hpp"
#include "gpuhash/key_types.hpp"
#include "gpuhash/status.hpp"
#include "gpuhash/string_keys.hpp"

namespace gpuhash::detail::string_map {

inline constexpr std::uint64_t empty_handle = ~std::uint64_t{0};
inline constexpr std::uint64_t tombstone_handle = ~std::uint64_t{0} - 1;
inline constexpr std::uint64_t busy_handle = ~std::uint64_t{0} - 2;

/// A published handle: the arena offset of a stored key.
GPUHASH_HD constexpr bool is_published(std::uint64_t handle) {
  return handle < busy_handle;
}

/// A slot's first 16 bytes.
struct slot_head {
  std::uint64_t handle = empty_handle;
  std::uint32_t tag = ~0U;
  std::uint32_t length = ~0U;
};

/// One slot; every byte of an empty one is 0xff (the head above).
template <class ValueWord>
struct alignas(32) slot {
  slot_head head;
  ValueWord value;
};

/// How a search and a write find a key: its bytes, length and hash.
struct string_key {
  const char* bytes;
  std::uint32_t length;
  std::uint64_t hash;
  GPUHASH_HD std::uint32_t tag() const { return static_cast<std::uint32_t>(hash); }
};

/// The arena: `capacity` bytes at `bytes`, of which `*used` are taken.
struct arena_view {
  char* bytes = nullptr;
  std::uint64_t capacity = 0;
  std::uint64_t* used = nullptr;

  /// Takes `length` bytes for one key (a ref's insert, a rehash's copy) and
  /// copies `key` there: the key's handle, or empty_handle when the arena
  /// has no room left (the counter then stays past capacity: every later
  /// take fails too, until the table grows).
  GPUHASH_HD std::uint64_t take(const char* key, std::uint32_t length) const {
    const std::uint64_t at = fetch_add_varying(used, std::uint64_t{length});
    if (at + length > capacity) return empty_handle;
    for (std::uint32_t i = 0; i < length; ++i) bytes[at + i] = key[i];
    return at;
  }
};

template <class Value, class Hash>
class view {
 public:
  using mapped_type = Value;
  using value_word = word_of<Value>;
  using slot_type = slot<value_word>;

  view() = default;
  GPUHASH_HD view(slot_type* slots, std::uint64_t capacity, arena_view arena, std::uint64_t seed,
                  Hash hash = {})
      : slots_(slots), capacity_(capacity), arena_(arena), seed_(seed), hash_(hash) {}

  GPUHASH_HD string_key key(const char* bytes, std::uint32_t length) const {
    return {bytes, length, hash_(bytes, length, seed_)};
  }
  GPUHASH_HD const arena_view& arena() const { return arena_; }

  /// found (*value_out set, unless null) or not_found.
  GPUHASH_HD status find(const string_key& key, Value* value_out) const {
    status result = status::not_found;
    probe(key, [&](slot_type& slot, slot_head seen) {
      if (seen.handle == empty_handle) return true;
      if (!matches(seen, key)) return false;
      if (value_out != nullptr) *value_out = from_word<Value>(load_relaxed(&slot.value));
      result = status::found;
      return true;
    });
    return result;
  }

  /// Inserts an absent key whose bytes are at `handle` in the arena (a
  /// batch's), or copied there by the arena's take (handle = empty_handle:
  /// a ref's); with `assign`, a present key's value is changed (updated),
  /// else left (exists). full when no slot or no arena room is left.
  GPUHASH_HD status write(const string_key& key, Value value, bool assign,
                          std::uint64_t handle = empty_handle) const {
    status result = status::full;
    probe(key, [&](slot_type& slot, slot_head seen) {
      for (;;) {
        if (seen.handle == empty_handle) {
          if (!claim(slot, key, seen)) continue;  // seen: what took the slot
          const std::uint64_t at =
              handle != empty_handle ? handle : arena_.take(key.bytes, key.length);
          if (at == empty_handle) {
            unclaim(slot);
            return true;  // full
          }
          store_relaxed(&slot.value, to_word(value));
          publish(slot, {at, key.tag(), key.length});
          result = status::inserted;
          return true;
        }
        if (!matches(seen, key)) return false;
        if (assign) store_relaxed(&slot.value, to_word(value));
        result = assign ? status::updated : status::exists;
        return true;
      }
    });
    return result;
  }

  /// erased or not_found.
  GPUHASH_HD status erase(const string_key& key) const {
    status result = status::not_found;
    probe(key, [&](slot_type& slot, slot_head seen) {
      if (seen.handle == empty_handle) return true;
      // A concurrent erase may win the slot: the probe then goes on past
      // the tombstone, where the key may have been inserted again.
      if (!matches(seen, key) || !retire(slot, seen)) return false;
      result = status::erased;
      return true;
    });
    return result;
  }

  // ---- Rehash and whole-table passes ---------------------------------------

  GPUHASH_HD std::uint64_t capacity() const { return capacity_; }
  GPUHASH_HD slot_type* slots() const { return slots_; }

  /// Stores a key known to be absent from this table (a rehash's), whose
  /// bytes are at `handle` in this table's arena: the first empty slot of
  /// its probe is claimed. full when no slot is left.
  GPUHASH_HD status place(const char* bytes, std::uint32_t length, value_word value,
                          std::uint64_t handle) const {
    const string_key k = key(bytes, length);
    status result = status::full;
    probe(k, [&](slot_type& slot, slot_head seen) {
      if (seen.handle != empty_handle || !claim(slot, k, seen)) return false;
      store_relaxed(&slot.value, value);
      publish(slot, {handle, k.tag(), length});
      result = status::inserted;
      return true;
    });
    return result;
  }

 private:
  /// Calls visit(slot, head) for the slots of the key's probe sequence, each
  /// head read once no insert is half-way through it, until visit returns
  /// true or every slot was seen.
  template <class Visit>
  GPUHASH_HD void probe(const string_key& key, Visit&& visit) const {
    std::uint64_t position = reduce_range(key.hash, capacity_);
    for (std::uint64_t step = 0; step < capacity_; ++step) {
      slot_type& slot = slots_[position];
      if (visit(slot, probed_head(slot))) return;
      position = position + 1 == capacity_ ? 0 : position + 1;
    }
  }

  /// Whether a published head is the key's. The bytes are read after an
  /// acquire fence: the head may have come from a weak load (probed_head).
  GPUHASH_HD bool matches(const slot_head& seen, const string_key& key) const {
    if (!is_published(seen.handle) || seen.tag != key.tag() || seen.length != key.length)
      return false;
    fence_acquire();
    return bytes_equal(arena_.bytes + seen.handle, key.bytes, key.length);
  }

  /// A head for probing. On the GPU a weak 16-byte load, which L1 may serve
  /// and which may be stale or torn between its two halves: the handle
  /// only moves forward and tag and length are written once (by the
  /// claim), so a stale head is an earlier state of the slot (every change
  /// is a CAS against the head seen, or a wait), and a torn one (a handle
  /// set without its tag and length) is read again as settled_head does,
  /// as is a busy one. On the CPU, settled_head.
  GPUHASH_HD static slot_head probed_head(slot_type& slot) {
#if defined(__CUDA_ARCH__)
    const word_pair pair = load_pair_for_probe(reinterpret_cast<const std::uint64_t*>(&slot.head));
    const slot_head seen{pair.first, static_cast<std::uint32_t>(pair.second),
                         static_cast<std::uint32_t>(pair.second >> 32)};
    if (seen.handle == empty_handle || (seen.handle != busy_handle && pair.second != ~0ULL))
      return seen;
#endif
    return settled_head(slot);
  }

  GPUHASH_HD static slot_head settled_head(slot_type& slot) {
    slot_head seen = read_head(slot);
    while (seen.handle == busy_handle) {
      spin_pause();
      seen = read_head(slot);
    }
    return seen;
  }

#if defined(__CUDA_ARCH__)
  __device__ static word128 as_word(const slot_head& head) {
    return b128::join(head.handle, (std::uint64_t{head.length} << 32) | std::uint64_t{head.tag});
  }
  __device__ static slot_head as_head(word128 word) {
    const std::uint64_t high = b128::high(word);
    return {b128::low(word), static_cast<std::uint32_t>(high),
            static_cast<std::uint32_t>(high >> 32)};
  }
  __device__ static word128* head_word(slot_type& slot) {
    return reinterpret_cast<word128*>(&slot.head);
  }
#endif

  /// The head, by an acquire load: a published handle's bytes and value
  /// are visible after it.
  GPUHASH_HD static slot_head read_head(slot_type& slot) {
#if defined(__CUDA_ARCH__)
    return as_head(b128::load<true>(head_word(slot)));
#else
    slot_head seen;
    seen.handle = load_acquire(&slot.head.handle);
    seen.tag = load_relaxed(&slot.head.tag);
    seen.length = load_relaxed(&slot.head.length);
    return seen;
#endif
  }

  /// Claims an empty slot for `key` (busy). On failure `seen` is the head
  /// that took it, settled.
  GPUHASH_HD static bool claim(slot_type& slot, const string_key& key, slot_head& seen) {
#if defined(__CUDA_ARCH__)
    const word128 empty = as_word(slot_head{});
    const word128 found = b128::compare_exchange<false>(
        head_word(slot), empty, as_word({busy_handle, key.tag(), key.length}));
    if (found == empty) return true;
#else
    (void)key;
    if (compare_exchange_relaxed(&slot.head.handle, empty_handle, busy_handle) == empty_handle)
      return true;
#endif
    seen = settled_head(slot);
    return false;
  }

  /// Gives a claimed slot back (a ref's insert with no arena room left).
  GPUHASH_HD static void unclaim(slot_type& slot) {
#if defined(__CUDA_ARCH__)
    b128::store<true>(head_word(slot), as_word(slot_head{}));
#else
    store_release(&slot.head.handle, empty_handle);
#endif
  }

  /// Publishes a claimed slot: its value was stored before.
  GPUHASH_HD static void publish(slot_type& slot, const slot_head& head) {
#if defined(__CUDA_ARCH__)
    b128::store<true>(head_word(slot), as_word(head));
#else
    store_relaxed(&slot.head.tag, head.tag);
    store_relaxed(&slot.head.length, head.length);
    store_release(&slot.head.handle, head.handle);
#endif
  }

  /// Turns a published head into a tombstone; false if it changed first.
  GPUHASH_HD static bool retire(slot_type& slot, const slot_head& seen) {
#if defined(__CUDA_ARCH__)
    return b128::compare_exchange<false>(head_word(slot), as_word(seen),
                                         as_word({tombstone_handle, seen.tag, seen.length})) ==
           as_word(seen);
#else
    return compare_exchange_relaxed(&slot.head.handle, seen.handle, tombstone_handle) ==
           seen.handle;
#endif
  }

  slot_type* slots_ = nullptr;
  std::uint64_t capacity_ = 0;
  arena_view arena_;
  std::uint64_t seed_ = 0;
  Hash hash_{};
};

}  // namespace gpuhash::detail::string_map
