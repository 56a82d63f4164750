#pragma once
// The views of a bucketed cuckoo table, for keys and values of the user's
// types (gpuhash/key_types.hpp): the word view every batch runs and the view
// refs call. Both the engine (engine.hpp) and gpuhash/bucketed_cuckoo_ref.hpp
// name them from here, so that a map's ref_type and the ref a kernel names
// are one type; this header holds device code only, so that a ref's header
// compiles where kernels are compiled alone (NVRTC; docs/device_api.md,
// "Kernels compiled at run time").

#include <cstdint>
#include <type_traits>

#include "gpuhash/bucketed_cuckoo_config.hpp"
#include "gpuhash/detail/bucketed_cuckoo/view.hpp"
#include "gpuhash/detail/slot_steps.hpp"
#include "gpuhash/detail/typed_view.hpp"
#include "gpuhash/key_types.hpp"

namespace gpuhash::detail::bucketed_cuckoo {

/// Default bucket: four slots. For 32/32 pairs that is one 32-byte sector
/// (the cheapest random read at large footprints; docs/results/limits.md),
/// 64 bytes for 64/64 pairs and the other pairs of 16-byte slots, 128 bytes
/// for pairs with a 16-byte word (32-byte slots). For types that cannot be
/// stored, any size: the engine's static_assert says what went wrong.
template <class Key, class Value>
inline constexpr std::uint32_t default_bucket_bytes = [] {
  if constexpr (is_word_sized_v<Key> && is_word_sized_v<Value>)
    return static_cast<std::uint32_t>(
        4 * sizeof(typename slot_steps_for<word_of<Key>, word_of<Value>>::slot_type));
  else
    return std::uint32_t{64};
}();

/// The default configuration: default_bucket_bytes, four choices (the last
/// two in a backyard of 3/16 of the buckets), lookahead eviction, one thread
/// per find.
template <class Key, class Value>
using default_config =
    bucketed_cuckoo_config<default_bucket_bytes<Key, Value>, 4, bucketed_cuckoo_eviction::lookahead,
                           bucketed_cuckoo_find_path::per_thread, 3>;

/// Keys of type Key and values of type Value in a table of Config (a
/// bucketed_cuckoo_config) under the policies Hash and KeyEqual; Key and
/// Value of 4, 8 or 16 bytes (the engine's static_asserts say so).
template <class Key, class Value, class Config, class Hash, class KeyEqual>
struct table_views {
  using key_word = word_of<Key>;
  using value_word = word_of<Value>;
  using hash_type = policy_hash<Key, Hash>;
  using equal_type = word_equality<Key, KeyEqual, slot_steps_for<key_word, value_word>>;
  /// The per-key algorithms over words.
  using word_view_type =
      table_view<key_word, value_word, Config::bucket_bytes, Config::choices, Config::eviction,
                 hash_type, equal_type, Config::backyard_sixteenths>;
  /// What refs call: the word view itself for the library's integer types,
  /// else typed_view's conversions around it.
  using view_type =
      std::conditional_t<std::is_same_v<Key, key_word> && std::is_same_v<Value, value_word>,
                         word_view_type, typed_view<word_view_type, Key, Value>>;
};

}  // namespace gpuhash::detail::bucketed_cuckoo
