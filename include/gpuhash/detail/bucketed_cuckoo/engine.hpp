#pragma once
// The bucketed cuckoo engine: storage and the two-phase batch execution of the
// design (docs/designs/bucketed_cuckoo.md). The public face is
// gpuhash::bucketed_cuckoo_map, and bucketed_cuckoo_map_with for the other
// configurations (gpuhash/bucketed_cuckoo_config.hpp). Keys and values of
// the user's types (gpuhash/key_types.hpp) are stored as words: every batch
// runs over the words (their bytes are the keys' and values'), refs go
// through typed_view.
//
// This header only declares; the members are defined in engine_impl.hpp and
// compiled into the library for 32/32 and 64/64-bit unsigned pairs with the
// default configuration and policies on each backend
// (src/cpu/bucketed_cuckoo.cpp, src/cuda/bucketed_cuckoo.cu). Other types
// and configurations are header-only: gpuhash/bucketed_cuckoo_map_impl.hpp,
// from the user's own .cpp (CPU) or .cu (CUDA) file.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>

#include "gpuhash/bucketed_cuckoo_config.hpp"
#include "gpuhash/detail/batch.hpp"
#include "gpuhash/detail/bucketed_cuckoo/find_path.hpp"
#include "gpuhash/detail/bucketed_cuckoo/table_views.hpp"
#include "gpuhash/detail/bucketed_cuckoo/view.hpp"
#include "gpuhash/detail/counters.hpp"
#include "gpuhash/detail/launch_share.hpp"
#include "gpuhash/detail/typed_view.hpp"
#include "gpuhash/key_types.hpp"

namespace gpuhash::detail::bucketed_cuckoo {

/// Config: a bucketed_cuckoo_config (gpuhash/bucketed_cuckoo_config.hpp).
template <class Key, class Value, class Backend, class Config = default_config<Key, Value>,
          class Hash = key_bytes_hash<Key>, class KeyEqual = bitwise_equal<Key>>
class engine {
  static_assert(is_word_sized_v<Key>,
                "gpuhash::bucketed_cuckoo_map stores keys of 4, 8 or 16 bytes of a trivially "
                "copyable type (std::uint32_t, std::uint64_t, or a type of your own: see "
                "gpuhash/key_types.hpp)");
  static_assert(is_word_sized_v<Value>,
                "gpuhash::bucketed_cuckoo_map stores values of 4, 8 or 16 bytes of a trivially "
                "copyable type; for wider values (an embedding row) use "
                "gpuhash::linear_probing_map or gpuhash::hashgraph_dynamic_map "
                "(docs/designs/bucketed_cuckoo.md says why)");

  using views = table_views<Key, Value, Config, Hash, KeyEqual>;
  using key_word = typename views::key_word;
  using value_word = typename views::value_word;
  using hash_type = typename views::hash_type;
  using equal_type = typename views::equal_type;

 public:
  using key_type = Key;
  using mapped_type = Value;
  using backend_type = Backend;
  using stream_type = typename Backend::stream_type;
  /// The per-key algorithms over words, which every batch runs.
  using word_view_type = typename views::word_view_type;
  /// What refs call (table_views.hpp).
  using view_type = typename views::view_type;
  using slot_type = typename word_view_type::slot_type;

  static constexpr std::string_view name = "bucketed_cuckoo";
  static constexpr float default_max_load_factor = 0.9f;
  /// Erase leaves a tombstone; eviction walks and rebuilds reuse them.
  static constexpr bool erase_frees_slot = false;
  static constexpr std::uint32_t bucket_bytes = Config::bucket_bytes;
  static constexpr std::uint32_t choices = Config::choices;
  /// Sixteenths of the buckets that choices 2 and on draw from (0: none).
  static constexpr std::uint32_t backyard_sixteenths = Config::backyard_sixteenths;
  static constexpr bucketed_cuckoo_eviction eviction = Config::eviction;
  /// How find and contains batches run (the tile only on the GPU).
  static constexpr bucketed_cuckoo_find_path finds = Config::find_path;
  /// Exchanges an eviction walk makes before its key counts as homeless.
  static constexpr std::uint32_t max_exchanges = 4096;
  /// The GPU's threads in flight for batches and eviction walks: 5/8 of
  /// the resident blocks, measured best for inserts on the H200 (+8% to
  /// +14% at loads 0.5 to 0.95 over 8/8; finds +6% to +12%)
  /// (launch_share.hpp).
  static constexpr launch_share batch_share{5};

  static_assert(finds != bucketed_cuckoo_find_path::tile ||
                    ((bucket_bytes & (bucket_bytes - 1)) == 0 && bucket_bytes <= 512),
                "gpuhash::bucketed_cuckoo_map: bucketed_cuckoo_find_path::tile gives each key "
                "BucketBytes / 16 lanes of a warp, so it needs a power-of-two bucket of at most "
                "512 bytes");
  static_assert(finds != bucketed_cuckoo_find_path::tile || word_view_type::has_tile_find,
                "gpuhash::bucketed_cuckoo_map: bucketed_cuckoo_find_path::tile takes keys and "
                "values of at most 8 bytes each (std::uint32_t or std::uint64_t pairs) compared "
                "by their bytes (bitwise_equal); use bucketed_cuckoo_find_path::per_thread, the "
                "default, for other types");

  static constexpr bool is_reserved(Key key) noexcept {
    return word_view_type::is_reserved(to_word(key));
  }
  static constexpr std::span<const Key> reserved_keys() noexcept { return reserved_keys_; }

  engine(std::size_t min_capacity, std::uint64_t seed, stream_type stream);

  std::size_t capacity() const noexcept { return buckets_ * word_view_type::slots_per_bucket; }
  std::size_t memory_bytes() const noexcept { return capacity() * sizeof(slot_type); }

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
  using word_batch = batch<key_word, value_word>;

  struct phase_one_totals {
    std::uint64_t inserted;
    std::uint64_t erased;
    std::uint64_t pending;
  };

  /// The reserved words, as keys.
  static constexpr auto reserved_keys_ = [] {
    constexpr auto& words = word_view_type::reserved_keys;
    std::array<Key, words.size()> keys{};
    for (std::size_t i = 0; i < words.size(); ++i) keys[i] = from_word<Key>(words[i]);
    return keys;
  }();

  word_view_type word_view() const {
    return word_view_type(const_cast<slot_type*>(slots_.data()), buckets_, seed_,
                          hash_type{Hash{}, 0});
  }
  /// The batch over the words its keys and values are stored as (the same
  /// bytes, as retrieve_all writes them).
  static word_batch words_of(const batch<Key, Value>& args) {
    return {args.kind,
            args.n,
            reinterpret_cast<const key_word*>(args.keys),
            reinterpret_cast<value_word*>(args.values),
            args.ops,
            args.statuses,
            args.flags};
  }

  phase_one_totals run_phase_one(const word_batch& args, stream_type stream);
  std::uint64_t place_pending(const word_batch& args, std::uint64_t pending, stream_type stream);
  /// Inserts keys known to be absent and distinct (rebuilds, homeless keys).
  void insert_unique(const key_word* keys, const value_word* values, std::size_t n,
                     stream_type stream);

  typename Backend::template buffer<slot_type> slots_;
  std::uint64_t buckets_ = 0;
  std::uint64_t seed_ = 0;
  std::uint64_t walks_ = 0;  // phase-2 runs so far: varies the walks' randomness
};

}  // namespace gpuhash::detail::bucketed_cuckoo
