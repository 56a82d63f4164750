#pragma once
// The views of a table whose slots are linear probing's, for keys and values
// of the user's types (gpuhash/key_types.hpp): linear_probing_map, whose
// probe starts at a hashed slot, and hashgraph_dynamic_map, whose probe
// starts at the key's bucket. Both engines store words, so they share how a
// key type's policies reach the word view and how its reserved words read
// as keys; only the Home (where a key's probe starts) is theirs. Refs name
// their view type from here (gpuhash/linear_probing_ref.hpp), so this header
// holds device code only; batches run through table_batches.hpp.

#include <array>
#include <cstddef>
#include <type_traits>

#include "gpuhash/detail/linear_probing/view.hpp"
#include "gpuhash/detail/linear_probing/wide_view.hpp"
#include "gpuhash/detail/typed_view.hpp"
#include "gpuhash/key_types.hpp"

namespace gpuhash::detail::linear_probing {

/// Keys of type Key and values of type Value under KeyEqual, over slots
/// probed from Home (a callable of the key's word).
template <class Key, class Value, class Home, class KeyEqual>
struct table_views {
  using key_word = word_of<Key>;
  using value_word = stored_value_t<Value>;

 private:
  /// Any view of these words, for their sentinels.
  using reserved_type = table_view_for<key_word, value_word>;
  using equal_type = word_equality<Key, KeyEqual, reserved_type>;

 public:
  /// The per-key algorithms over words.
  using word_view_type = table_view_for<key_word, value_word, Home, equal_type>;
  /// What batches and refs call: the word view itself for the library's
  /// integer types, else typed_view's conversions around it.
  using view_type =
      std::conditional_t<std::is_same_v<Key, key_word> && std::is_same_v<Value, value_word>,
                         word_view_type, typed_view<word_view_type, Key, Value>>;

  static constexpr bool is_reserved(Key key) noexcept {
    return word_view_type::is_reserved(to_word(key));
  }
  /// The reserved words, as keys.
  static constexpr auto reserved_keys = [] {
    constexpr auto& words = word_view_type::reserved_keys;
    std::array<Key, words.size()> keys{};
    for (std::size_t i = 0; i < words.size(); ++i) keys[i] = from_word<Key>(words[i]);
    return keys;
  }();
};

/// linear_probing_map's views: a key's probe starts at its policy hash
/// reduced onto the slots. The engine and gpuhash/linear_probing_ref.hpp
/// both name them here, so that a map's ref_type and the ref a kernel names
/// are one type.
template <class Key, class Value, class Hash, class KeyEqual>
using hashed_table_views = table_views<Key, Value, policy_home<Key, Hash>, KeyEqual>;

}  // namespace gpuhash::detail::linear_probing
