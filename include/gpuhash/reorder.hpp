#pragma once
// Reordering a batch of keys by bucket on its own: the step DACHash and
// Cuckoo Node Hashing run a batch through when their settings switch the
// reorder on (docs/designs/dachash.md, "Mappings, reorder and presets"), for
// timing it alone (gpuhash-bench's cnh.fig6) or for ordering keys before the
// caller sends them on. It launches work on the backend: include this
// header from a .cpp file for the CPU backend or a .cu file (nvcc) for the
// CUDA backend.

#include <cstdint>

#include "gpuhash/detail/reorder.hpp"
#include "gpuhash/errors.hpp"
#include "gpuhash/reorder_scheme.hpp"

namespace gpuhash {

/// How reorder_by_bucket groups keys.
struct reorder_options {
  reorder_scheme scheme = reorder_scheme::rows;
  /// The range of the key-to-bucket function: a table's bucket count.
  std::uint64_t buckets = 1;
  /// Buckets that share one row of the new order (the thesis' length of
  /// combined buckets, the paper's combining factor); 0 counts as 1.
  std::uint64_t combined_buckets = 1;
  /// warp_cooperative only: positions per row. 0 gives rows slack (a row's
  /// mean count plus four standard deviations), as the tables run it; the
  /// paper's exact ceil(n / rows) leaves none, and its last keys then scan
  /// long runs of full rows (detail/reorder.hpp says why).
  std::uint64_t row_width = 0;
};

/// Writes to order[0, n) the positions of keys[0, n) (a permutation of
/// [0, n)) grouped by row: bucket_of(key), a GPUHASH_HD callable giving a
/// key's bucket in [0, options.buckets), over options.combined_buckets.
/// `keys` and `order` are in the backend's memory.
template <class Backend, class Key, class BucketOf>
void reorder_by_bucket(const Key* keys, std::uint64_t n, const BucketOf& bucket_of,
                       const reorder_options& options, std::uint64_t* order,
                       typename Backend::stream_type stream = {}) {
  if (options.scheme == reorder_scheme::warp_cooperative) {
    detail::reorder_cooperatively<Backend>(keys, n, bucket_of, options.buckets,
                                           options.combined_buckets, options.row_width, order,
                                           stream);
    return;
  }
  if (options.row_width != 0)
    throw error(
        "gpuhash::reorder_by_bucket: row_width is for reorder_scheme::warp_cooperative; "
        "reorder_scheme::rows sizes its rows itself (leave row_width 0)");
  detail::reorder_in_rows<Backend>(keys, n, bucket_of, options.buckets, options.combined_buckets,
                                   order, stream);
}

}  // namespace gpuhash
