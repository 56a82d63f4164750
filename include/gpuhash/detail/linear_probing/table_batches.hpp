#pragma once
// Batches over the views of table_views.hpp, for the engines that store
// linear probing's slots (linear_probing_map and hashgraph_dynamic_map).
// Kept apart from table_views.hpp, which refs include, because batches need
// a backend to run on.

#include "gpuhash/detail/batch.hpp"
#include "gpuhash/detail/counters.hpp"
#include "gpuhash/detail/linear_probing/table_views.hpp"
#include "gpuhash/detail/linear_probing/wide_view.hpp"
#include "gpuhash/key_types.hpp"

namespace gpuhash::detail::linear_probing {

/// Runs a batch over `words`, the word view of Views (a table_views): find
/// and contains batches of wide values by one tile of threads per key where
/// the backend has tiles (wide_finds: a value read in coalesced pieces),
/// everything else by run_batch, one thread per key, with `share` of the
/// threads the GPU holds in flight.
template <class Backend, class Views, class Key, class Value>
void run_table_batch(const typename Views::word_view_type& words, const batch<Key, Value>& args,
                     table_counters* counters, typename Backend::stream_type stream,
                     launch_share share) {
  if constexpr (is_wide_value_v<typename Views::value_word> && wide_finds<Backend>::available) {
    if (args.kind == batch_kind::find || args.kind == batch_kind::contains) {
      wide_finds<Backend>::run(words, args, stream);
      return;
    }
  }
  run_batch<Backend>(typename Views::view_type(words), args, counters, stream, share);
}

}  // namespace gpuhash::detail::linear_probing
