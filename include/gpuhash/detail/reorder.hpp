#pragma once
// reorder_by_bucket: the DACHash thesis' reorder (chapter 5, Alg. 1), a
// building block of the chained designs. It groups a batch's keys by bucket
// (buckets combined `combined` at a time into one row) without sorting, so
// that neighbouring threads work on the same or nearby chains and share
// cached nodes. Included by engine implementations only (it launches work
// through exec).
//
// Alg. 1: a row per group of `combined` buckets; a key takes the next
// position of its row by an atomic add and, when the row is full, of the
// rows after it (wrapping around). The rows hold the keys' batch positions;
// the filled positions, read row by row, are the batch's new order. Two
// departures from the thesis, both measured on the H200 (docs/results/
// dachash.md, fig7_2):
//  * Rows are ceil(n / rows) plus four standard deviations of a row's count
//    wide, not ceil(n / rows): with no slack the space is exactly full, the
//    last keys walk long runs of full rows (linear probing at load 1), and a
//    batch of 2^22 keys with one bucket per row took 0.5 s.
//  * The thesis stores the keys themselves; we store their positions so that
//    results go back to the caller's order.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "gpuhash/detail/atomic.hpp"
#include "gpuhash/detail/exec.hpp"
#include "gpuhash/detail/host_device.hpp"
#include "gpuhash/errors.hpp"

namespace gpuhash::detail {

inline constexpr std::uint64_t no_position = ~std::uint64_t{0};

/// Alg. 1, lines 5 to 12, for the key at position i.
template <class Key, class BucketOf>
struct place_in_row {
  const Key* keys;
  BucketOf bucket_of;
  std::uint64_t combined;  ///< buckets per row
  std::uint64_t rows;
  std::uint64_t width;    ///< positions per row
  std::uint64_t* record;  ///< positions taken per row (may pass width)
  std::uint64_t* space;   ///< rows x width batch positions, no_position where unused

  GPUHASH_HD void operator()(std::uint64_t i) const {
    std::uint64_t row = bucket_of(keys[i]) / combined;
    std::uint64_t index = fetch_add_relaxed(record + row, std::uint64_t{1});
    while (index >= width) {  // full: the next rows (line 9-11)
      row = row + 1 == rows ? 0 : row + 1;
      index = fetch_add_relaxed(record + row, std::uint64_t{1});
    }
    space[row * width + index] = i;
  }
};

struct is_position {
  GPUHASH_HD bool operator()(std::uint64_t position) const { return position != no_position; }
};

/// Writes to order[0, n) the positions of keys[0, n), grouped by bucket:
/// `bucket_of(key)` is a key's bucket in [0, buckets), and `combined`
/// buckets share a row (the thesis' "length of combined buckets").
template <class Backend, class Key, class BucketOf>
void reorder_by_bucket(const Key* keys, std::uint64_t n, const BucketOf& bucket_of,
                       std::uint64_t buckets, std::uint64_t combined, std::uint64_t* order,
                       typename Backend::stream_type stream) {
  if (n == 0) return;
  combined = combined == 0 ? 1 : combined;
  const std::uint64_t rows = (buckets + combined - 1) / combined;
  const std::uint64_t mean = (n + rows - 1) / rows;
  const auto spread = static_cast<std::uint64_t>(4.0 * std::sqrt(static_cast<double>(mean)));
  const std::uint64_t width = mean + spread + 1;
  auto record = Backend::template allocate<std::uint64_t>(rows, stream);
  auto space = Backend::template allocate<std::uint64_t>(rows * width, stream);
  Backend::fill_bytes(record.data(), rows * sizeof(std::uint64_t), 0, stream);
  Backend::fill_bytes(space.data(), rows * width * sizeof(std::uint64_t), 0xff, stream);
  exec<Backend>::for_each(n,
                          place_in_row<Key, BucketOf>{keys, bucket_of, combined, rows, width,
                                                      record.data(), space.data()},
                          stream);
  const std::uint64_t placed =
      exec<Backend>::select_if(space.data(), rows * width, order, is_position{}, stream);
  if (placed != n)  // rows x width > n: every key finds a position
    throw error("gpuhash: reorder placed " + std::to_string(placed) + " of " + std::to_string(n) +
                " keys");
}

}  // namespace gpuhash::detail
