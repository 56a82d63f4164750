#pragma once
// The bucketed cuckoo engine: storage and the two-phase batch execution of the
// design (docs/designs/bucketed_cuckoo.md). The public face is
// gpuhash::bucketed_cuckoo_map. Members are defined in engine_impl.hpp and
// compiled into the library for 32/32 and 64/64-bit pairs with the default
// bucket size, two choices, the random walk and one thread per find; other
// configurations instantiate engine_impl.hpp in the user's own .cpp (CPU) or
// .cu (CUDA) file.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "gpuhash/detail/batch.hpp"
#include "gpuhash/detail/bucketed_cuckoo/find_path.hpp"
#include "gpuhash/detail/bucketed_cuckoo/view.hpp"
#include "gpuhash/detail/counters.hpp"

namespace gpuhash::detail::bucketed_cuckoo {

/// Default bucket: four slots, so one 32-byte sector for 32/32 pairs (the
/// cheapest random read at large footprints; docs/results/limits.md).
template <class Key>
inline constexpr std::uint32_t default_bucket_bytes = sizeof(Key) == 4 ? 32 : 64;

template <class Key, class Value, class Backend,
          std::uint32_t BucketBytes = default_bucket_bytes<Key>, std::uint32_t Choices = 2,
          eviction_policy Eviction = eviction_policy::lookahead,
          find_path FindPath = find_path::per_thread>
class engine {
  static_assert((sizeof(Key) == 4 && sizeof(Value) == 4) ||
                    (sizeof(Key) == 8 && sizeof(Value) == 8),
                "gpuhash::bucketed_cuckoo_map stores 32/32 or 64/64-bit key/value pairs: use "
                "std::uint32_t or std::uint64_t for both");
  static_assert(FindPath != find_path::tile ||
                    ((BucketBytes & (BucketBytes - 1)) == 0 && BucketBytes <= 512),
                "gpuhash::bucketed_cuckoo_map: find_path::tile gives each key BucketBytes / 16 "
                "lanes of a warp, so it needs a power-of-two bucket of at most 512 bytes");

 public:
  using key_type = Key;
  using mapped_type = Value;
  using backend_type = Backend;
  using stream_type = typename Backend::stream_type;
  using view_type = table_view<Key, Value, BucketBytes, Choices, Eviction>;
  using slot_type = typename view_type::slot_type;

  static constexpr std::string_view name = "bucketed_cuckoo";
  static constexpr float default_max_load_factor = 0.9f;
  /// Erase leaves a tombstone; eviction walks and rebuilds reuse them.
  static constexpr bool erase_frees_slot = false;
  static constexpr std::uint32_t bucket_bytes = BucketBytes;
  static constexpr std::uint32_t choices = Choices;
  static constexpr eviction_policy eviction = Eviction;
  /// How find and contains batches run (the tile only on the GPU).
  static constexpr find_path finds = FindPath;
  /// Exchanges an eviction walk makes before its key counts as homeless.
  static constexpr std::uint32_t max_exchanges = 4096;

  static constexpr bool is_reserved(Key key) noexcept { return view_type::is_reserved(key); }
  static constexpr std::span<const Key> reserved_keys() noexcept {
    return view_type::reserved_keys;
  }

  engine(std::size_t min_capacity, std::uint64_t seed, stream_type stream);

  std::size_t capacity() const noexcept { return buckets_ * view_type::slots_per_bucket; }
  std::size_t memory_bytes() const noexcept { return capacity() * sizeof(slot_type); }

  void execute_async(const batch<Key, Value>& args, table_counters* counters, stream_type stream);
  /// Rebuilds the table with at least `min_capacity` slots, dropping tombstones.
  void rehash(std::size_t min_capacity, stream_type stream);
  void clear(stream_type stream);
  /// Writes the `count` stored pairs (count must equal the table's size).
  void retrieve_all(Key* keys, Value* values, std::size_t count, stream_type stream) const;

  /// The design's per-key algorithms over this table's storage, for batches
  /// and refs (map_ref.hpp); valid until the storage moves (rehash).
  view_type view() const {
    return view_type(const_cast<slot_type*>(slots_.data()), buckets_, seed_);
  }

 private:
  struct phase_one_totals {
    std::uint64_t inserted;
    std::uint64_t erased;
    std::uint64_t pending;
  };

  phase_one_totals run_phase_one(const batch<Key, Value>& args, stream_type stream);
  std::uint64_t place_pending(const batch<Key, Value>& args, std::uint64_t pending,
                              stream_type stream);
  /// Inserts keys known to be absent and distinct (rebuilds, homeless keys).
  void insert_unique(const Key* keys, const Value* values, std::size_t n, stream_type stream);

  typename Backend::template buffer<slot_type> slots_;
  std::uint64_t buckets_ = 0;
  std::uint64_t seed_ = 0;
  std::uint64_t walks_ = 0;  // phase-2 runs so far: varies the walks' randomness
};

}  // namespace gpuhash::detail::bucketed_cuckoo
