#pragma once
// gpuhash::local_linear_probing: a linear probing table in memory the caller
// owns, used through the same ref as linear_probing_map's (map_ref.hpp). Its
// use is a table local to a CUDA block, in shared memory: the block's threads
// aggregate their rows there at shared-memory speed and then write one
// result per key to a global table (docs/device_api.md, the block-local
// example). On the CPU the same code runs over a thread's own array.
//
//   __shared__ local::slot_type slots[1024];
//   for (unsigned i = threadIdx.x; i < 1024; i += blockDim.x) slots[i] = local::empty_slot();
//   __syncthreads();
//   const auto table = local::ref(slots, 1024, seed);   // using local = local_linear_probing<K, V>
//   table.insert_or_apply(key, 1, gpuhash::plus{});
//
// There is no owner: the caller empties the slots before use and sizes them
// (an insert that finds every slot taken answers `full`; keep the load below
// about 0.7, probes grow long beyond), and nothing counts the keys. Searches
// read one slot at a time (a table's own storage is read in 16-byte windows,
// which must be global memory). Reserved keys, slots and every guarantee are
// linear_probing_map's (docs/designs/linear_probing.md).

#include <cstdint>

#include "gpuhash/detail/linear_probing/view.hpp"
#include "gpuhash/hash.hpp"
#include "gpuhash/host_device.hpp"
#include "gpuhash/map_ref.hpp"

namespace gpuhash {

template <class Key, class Value>
class local_linear_probing {
  static_assert((sizeof(Key) == 4 && sizeof(Value) == 4) ||
                    (sizeof(Key) == 8 && sizeof(Value) == 8),
                "gpuhash::local_linear_probing stores 32/32 or 64/64-bit key/value pairs: use "
                "std::uint32_t or std::uint64_t for both");
  using home_type = detail::linear_probing::hashed_home<Key>;
  using view_type = detail::linear_probing::view_for<Key, Value, home_type,
                                                     detail::linear_probing::slot_memory::any>;

 public:
  using key_type = Key;
  using mapped_type = Value;
  using ref_type = map_ref<view_type>;
  /// One slot: a 64-bit word (32/32) or a 16-byte pair (64/64).
  using slot_type = typename view_type::slot_type;

  /// What every slot holds before the first insert.
  GPUHASH_HD static constexpr slot_type empty_slot() {
    if constexpr (sizeof(Key) == 4)
      return view_type::empty_slot;
    else
      return {view_type::empty_key, ~Value{0}};
  }

  /// The table over slots[0, capacity), with the hash seed `seed`.
  GPUHASH_HD static ref_type ref(slot_type* slots, std::uint64_t capacity, std::uint64_t seed = 0) {
    return ref_type(view_type(slots, capacity, home_type{seeded_hash<Key>{seed}, capacity}),
                    nullptr);
  }

  /// A slot's pair, read once the threads that wrote the table are done
  /// (after a __syncthreads(), or a join): whether it holds a key, the key
  /// and its value.
  GPUHASH_HD static bool holds_key(const slot_type& slot) { return view_type::is_live(slot); }
  GPUHASH_HD static Key key_of(const slot_type& slot) { return view_type::key_of(slot); }
  GPUHASH_HD static Value value_of(const slot_type& slot) { return view_type::value_of(slot); }
};

}  // namespace gpuhash
