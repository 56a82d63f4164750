#pragma once
// The views of a table whose slots are linear probing's, for keys and values
// of the user's types (gpuhash/key_types.hpp): linear_probing_map, whose
// probe starts at a hashed slot, and hashgraph_dynamic_map, whose probe
// starts at the key's bucket. Both engines store words, so they share how a
// key type's policies reach the word view and how its reserved words read
// as keys; only the Home (where a key's probe starts) is theirs.

#include <array>
#include <cstddef>
#include <type_traits>

#include "gpuhash/detail/batch.hpp"
#include "gpuhash/detail/counters.hpp"
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

  /// Runs a batch over the words' view `words`: find and contains batches
  /// of wide values by one tile of threads per key where the backend has
  /// tiles (wide_finds: a value read in coalesced pieces), everything else
  /// by run_batch, one thread per key.
  template <class Backend>
  static void run(const word_view_type& words, const batch<Key, Value>& args,
                  table_counters* counters, typename Backend::stream_type stream) {
    if constexpr (is_wide_value_v<value_word> && wide_finds<Backend>::available) {
      if (args.kind == batch_kind::find || args.kind == batch_kind::contains) {
        wide_finds<Backend>::run(words, args, stream);
        return;
      }
    }
    run_batch<Backend>(view_type(words), args, counters, stream);
  }

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

}  // namespace gpuhash::detail::linear_probing
