#pragma once
// The linear probing engine: storage and batch execution of the design. The
// public face is gpuhash::linear_probing_map (linear_probing_map.hpp), which
// adds growth, retries and the host-container forms shared by all designs.
//
// This header only declares; the members are defined in engine_impl.hpp and
// compiled into the library for 32/32 and 64/64-bit pairs on each backend
// (src/cpu/linear_probing.cpp, src/cuda/linear_probing.cu), so code that uses
// the table compiles without nvcc and without re-instantiating kernels.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "gpuhash/detail/batch.hpp"
#include "gpuhash/detail/counters.hpp"
#include "gpuhash/detail/linear_probing/view.hpp"

namespace gpuhash::detail::linear_probing {

template <class Key, class Value, class Backend>
class engine {
  static_assert((sizeof(Key) == 4 && sizeof(Value) == 4) ||
                    (sizeof(Key) == 8 && sizeof(Value) == 8),
                "gpuhash::linear_probing_map stores 32/32 or 64/64-bit key/value pairs: use "
                "std::uint32_t or std::uint64_t for both");

 public:
  using key_type = Key;
  using mapped_type = Value;
  using backend_type = Backend;
  using stream_type = typename Backend::stream_type;
  using view_type = view_for<Key, Value>;
  using slot_type = typename view_type::slot_type;

  static constexpr std::string_view name = "linear_probing";
  static constexpr float default_max_load_factor = 0.8f;
  /// Erase leaves a tombstone that keeps its slot occupied until a rehash.
  static constexpr bool erase_frees_slot = false;

  static constexpr bool is_reserved(Key key) noexcept { return view_type::is_reserved(key); }
  static constexpr std::span<const Key> reserved_keys() noexcept {
    return view_type::reserved_keys;
  }

  engine(std::size_t min_capacity, std::uint64_t seed, stream_type stream);

  std::size_t capacity() const noexcept { return capacity_; }
  std::size_t memory_bytes() const noexcept { return capacity_ * sizeof(slot_type); }

  void execute_async(const batch<Key, Value>& args, table_counters* counters, stream_type stream);
  /// Rebuilds the table with at least `min_capacity` slots, dropping tombstones.
  void rehash(std::size_t min_capacity, stream_type stream);
  void clear(stream_type stream);
  /// Writes the `count` stored pairs (count must equal the table's size).
  void retrieve_all(Key* keys, Value* values, std::size_t count, stream_type stream) const;

  /// The design's per-key algorithms over this table's storage, for batches
  /// and refs (map_ref.hpp); valid until the storage moves (rehash).
  view_type view() const {
    return view_type(const_cast<slot_type*>(slots_.data()), capacity_,
                     hashed_home<Key>{seeded_hash<Key>{seed_}, capacity_});
  }

 private:
  typename Backend::template buffer<slot_type> slots_;
  std::size_t capacity_ = 0;
  std::uint64_t seed_ = 0;
};

}  // namespace gpuhash::detail::linear_probing
