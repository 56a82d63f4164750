#pragma once
// The linear probing engine: storage and batch execution of the design. The
// public face is gpuhash::linear_probing_map (linear_probing_map.hpp), which
// adds growth, retries and the host-container forms shared by all designs.
//
// This header only declares; the members are defined in engine_impl.hpp and
// compiled into the library for 32/32 and 64/64-bit unsigned pairs with the
// default policies on each backend (src/cpu/linear_probing.cpp,
// src/cuda/linear_probing.cu), so code that uses those tables compiles
// without nvcc and without re-instantiating kernels. Other key and value
// types (gpuhash/key_types.hpp) are header-only: gpuhash/linear_probing_map.hpp
// says how.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "gpuhash/detail/batch.hpp"
#include "gpuhash/detail/counters.hpp"
#include "gpuhash/detail/launch_share.hpp"
#include "gpuhash/detail/linear_probing/table_views.hpp"
#include "gpuhash/detail/typed_view.hpp"
#include "gpuhash/key_types.hpp"

namespace gpuhash::detail::linear_probing {

template <class Key, class Value, class Backend, class Hash = key_bytes_hash<Key>,
          class KeyEqual = bitwise_equal<Key>>
class engine {
  static_assert(is_storable_pair_v<Key, Value>,
                "gpuhash::linear_probing_map stores keys of 4, 8 or 16 bytes and values of 4, 8 "
                "or 16 bytes or wider ones of whole 4-byte words, of trivially copyable types "
                "(std::uint32_t, std::uint64_t, or a type of your own: see "
                "gpuhash/key_types.hpp)");
  using home_type = policy_home<Key, Hash>;
  using views = hashed_table_views<Key, Value, Hash, KeyEqual>;
  using key_word = typename views::key_word;
  using value_word = typename views::value_word;

 public:
  using key_type = Key;
  using mapped_type = Value;
  using backend_type = Backend;
  using stream_type = typename Backend::stream_type;
  /// The per-key algorithms over words; batches and refs of other key and
  /// value types go through typed_view.
  using word_view_type = typename views::word_view_type;
  using view_type = typename views::view_type;
  using slot_type = typename word_view_type::slot_type;

  static constexpr std::string_view name = "linear_probing";
  static constexpr float default_max_load_factor = 0.8f;
  /// Erase leaves a tombstone that keeps its slot occupied until a rehash.
  static constexpr bool erase_frees_slot = false;
  /// The GPU's threads in flight for batches: 6/8 of the resident blocks,
  /// measured best on the H200 (inserts +9% to +11% at loads 0.5 to 0.95
  /// over 8/8; finds from -3% to +11%) (launch_share.hpp).
  static constexpr launch_share batch_share{6};

  static constexpr bool is_reserved(Key key) noexcept { return views::is_reserved(key); }
  static constexpr std::span<const Key> reserved_keys() noexcept { return views::reserved_keys; }

  engine(std::size_t min_capacity, std::uint64_t seed, stream_type stream);

  std::size_t capacity() const noexcept { return capacity_; }
  std::size_t memory_bytes() const noexcept {
    return storage_slots<word_view_type>(capacity_) * sizeof(slot_type);
  }

  void execute_async(const batch<Key, Value>& args, table_counters* counters, stream_type stream);
  /// Rebuilds the table with at least `min_capacity` slots, dropping tombstones.
  void rehash(std::size_t min_capacity, stream_type stream);
  void clear(stream_type stream);
  /// Writes the `count` stored pairs (count must equal the table's size).
  void retrieve_all(Key* keys, Value* values, std::size_t count, stream_type stream) const;

  /// The design's per-key algorithms over this table's storage, for batches
  /// and refs (map_ref.hpp); valid until the storage moves (rehash).
  view_type view() const { return view_type(word_view()); }

 private:
  word_view_type word_view() const {
    return word_view_type(const_cast<slot_type*>(slots_.data()), capacity_,
                          home_type{{Hash{}, seed_}, capacity_});
  }

  typename Backend::template buffer<slot_type> slots_;
  std::size_t capacity_ = 0;
  std::uint64_t seed_ = 0;
};

}  // namespace gpuhash::detail::linear_probing
