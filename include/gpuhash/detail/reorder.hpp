#pragma once
// Reordering a batch by bucket, the building block the chained designs
// share (DACHash, Cuckoo Node Hashing): keys that hash to the same bucket,
// or to a neighbourhood of `combined` buckets, are brought together without
// a full sort, so that neighbouring threads work on the same or nearby
// chains and share cached nodes. Two algorithms (reorder_scheme), each
// writing the batch's new order as positions into it; run_in_order then
// runs a batch in that order and puts its results back in the caller's.
// Included by engine implementations and by gpuhash/reorder.hpp, which runs
// a reorder on its own (it launches work through exec).
//
// rows, the DACHash thesis' Alg. 1 (chapter 5): a row per group of
// `combined` buckets; a key takes the next position of its row by an atomic
// add and, when the row is full, of the rows after it (wrapping around).
// The filled positions, read row by row, are the new order. Two departures
// from the thesis, both measured on the H200 (docs/results/dachash.md,
// fig7_2):
//  * Rows are ceil(n / rows) plus four standard deviations of a row's count
//    wide, not ceil(n / rows): with no slack the space is exactly full, the
//    last keys walk long runs of full rows (linear probing at load 1), and a
//    batch of 2^22 keys with one bucket per row took 0.5 s.
//  * The thesis stores the keys themselves; we store their positions so that
//    results go back to the caller's order (both algorithms).
//
// warp_cooperative, the Cuckoo Node Hashing paper's Alg. 3 (its IV.A): the
// same rows (its "reorder buckets") and the same slack, but placed by warps: the warp takes its
// keys one at a time, its 32 lanes read the fill counts of 32 consecutive rows from the key's row
// on (one coalesced read), and the first lane that sees room claims a position there by an atomic
// increment. If no lane sees room the key's search moves 32 rows on; if the claim loses a race the
// warp looks again at the same 32 rows (the paper's prose; its listing moves on in both cases). On
// the GPU a warp is the hardware's (cuda/warp_reorder.cuh); elsewhere one task runs the same steps
// for a group of 32 keys, lane by lane. The paper's rows are exactly ceil(n / rows) wide; on the
// H200 that made the reorder of 2^25 keys for 2^21 buckets (its Fig. 6) take 1.3 s at a combining
// factor of 1 (the last keys scan long runs of full rows, 32 at a time), so the rows get Alg. 1's
// slack unless the caller asks for the paper's width (reorder_cooperatively's max_bucket_size;
// cnh.fig6 measures both).

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "gpuhash/detail/atomic.hpp"
#include "gpuhash/detail/batch.hpp"
#include "gpuhash/detail/exec.hpp"
#include "gpuhash/errors.hpp"
#include "gpuhash/host_device.hpp"
#include "gpuhash/reorder_scheme.hpp"

namespace gpuhash::detail {

inline constexpr std::uint64_t no_position = ~std::uint64_t{0};
/// Keys a group of Alg. 3 handles together: a warp's.
inline constexpr std::uint32_t reorder_group = 32;

/// Positions per row for n keys over `rows` rows: the mean plus four
/// standard deviations of a row's count (see above).
inline std::uint64_t row_width(std::uint64_t n, std::uint64_t rows) {
  const std::uint64_t mean = (n + rows - 1) / rows;
  const auto spread = static_cast<std::uint64_t>(4.0 * std::sqrt(static_cast<double>(mean)));
  return mean + spread + 1;
}

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
void reorder_in_rows(const Key* keys, std::uint64_t n, const BucketOf& bucket_of,
                     std::uint64_t buckets, std::uint64_t combined, std::uint64_t* order,
                     typename Backend::stream_type stream) {
  if (n == 0) return;
  combined = combined == 0 ? 1 : combined;
  const std::uint64_t rows = (buckets + combined - 1) / combined;
  const std::uint64_t width = row_width(n, rows);
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

/// Alg. 3 for the keys of one group of 32 (backends without warps): the
/// warp's steps, lane by lane. Key i's row search starts at its own row;
/// the 32 rows from there are examined in lane order, the first with room
/// is claimed, and when none has room the search moves 32 rows on.
template <class Key, class BucketOf>
struct place_group_cooperatively {
  const Key* keys;
  std::uint64_t n;
  BucketOf bucket_of;
  std::uint64_t combined;
  std::uint64_t rows;
  std::uint32_t width;   ///< the paper's max_bucket_size
  std::uint32_t* sizes;  ///< the paper's reorder_bucket_sizes (may pass width)
  std::uint64_t* space;  ///< rows x width batch positions, no_position where unused

  GPUHASH_HD void operator()(std::uint64_t group) const {
    const std::uint64_t first = group * reorder_group;
    const std::uint64_t last = first + reorder_group < n ? first + reorder_group : n;
    for (std::uint64_t i = first; i < last; ++i) {
      std::uint64_t start = bucket_of(keys[i]) / combined;
      for (bool placed = false; !placed; start = (start + reorder_group) % rows) {
        for (std::uint32_t lane = 0; lane < reorder_group && !placed; ++lane) {
          const std::uint64_t row = (start + lane) % rows;
          if (load_relaxed(sizes + row) >= width) continue;
          const std::uint32_t index = fetch_add_relaxed(sizes + row, std::uint32_t{1});
          if (index < width) {
            space[row * width + index] = i;
            placed = true;
          }
        }
      }
    }
  }
};

/// How a backend runs Alg. 3's placement. This primary template runs one
/// task per group of 32 keys; CUDA's specialization (cuda/warp_reorder.cuh,
/// nvcc only) one warp.
template <class Backend>
struct cooperative_placement {
  template <class Key, class BucketOf>
  static void run(const place_group_cooperatively<Key, BucketOf>& f,
                  typename Backend::stream_type stream) {
    exec<Backend>::for_each((f.n + reorder_group - 1) / reorder_group, f, stream);
  }
};

/// Alg. 3: writes to order[0, n) the positions of keys[0, n), grouped by
/// row as the warp-cooperative placement leaves them. Rows are
/// `max_bucket_size` wide (the paper's: ceil(n / rows)); 0 gives them
/// Alg. 1's slack.
template <class Backend, class Key, class BucketOf>
void reorder_cooperatively(const Key* keys, std::uint64_t n, const BucketOf& bucket_of,
                           std::uint64_t buckets, std::uint64_t combined,
                           std::uint64_t max_bucket_size, std::uint64_t* order,
                           typename Backend::stream_type stream) {
  if (n == 0) return;
  combined = combined == 0 ? 1 : combined;
  const std::uint64_t rows = (buckets + combined - 1) / combined;
  const std::uint64_t width = max_bucket_size != 0 ? max_bucket_size : row_width(n, rows);
  if (width * rows < n || width > 0xffffffffULL)
    throw error("gpuhash: reorder rows of " + std::to_string(width) + " positions cannot hold " +
                std::to_string(n) + " keys in " + std::to_string(rows) + " rows");
  // Rows of exactly n / rows positions leave no gap: the space is the
  // order itself. Otherwise the unused positions are dropped afterwards.
  const bool exact = rows * width == n;
  auto sizes = Backend::template allocate<std::uint32_t>(rows, stream);
  typename Backend::template buffer<std::uint64_t> spare;
  if (!exact) spare = Backend::template allocate<std::uint64_t>(rows * width, stream);
  std::uint64_t* space = exact ? order : spare.data();
  Backend::fill_bytes(sizes.data(), rows * sizeof(std::uint32_t), 0, stream);
  Backend::fill_bytes(space, rows * width * sizeof(std::uint64_t), 0xff, stream);
  cooperative_placement<Backend>::run(
      place_group_cooperatively<Key, BucketOf>{keys, n, bucket_of, combined, rows,
                                               static_cast<std::uint32_t>(width), sizes.data(),
                                               space},
      stream);
  if (exact) return;  // every key loops until placed: the n positions are all filled
  const std::uint64_t placed =
      exec<Backend>::select_if(space, rows * width, order, is_position{}, stream);
  if (placed != n)
    throw error("gpuhash: reorder placed " + std::to_string(placed) + " of " + std::to_string(n) +
                " keys");
}

/// The batch's new order by the given scheme (see the top of this file).
template <class Backend, class Key, class BucketOf>
void reorder_batch(reorder_scheme scheme, const Key* keys, std::uint64_t n,
                   const BucketOf& bucket_of, std::uint64_t buckets, std::uint64_t combined,
                   std::uint64_t* order, typename Backend::stream_type stream) {
  if (scheme == reorder_scheme::warp_cooperative)
    reorder_cooperatively<Backend>(keys, n, bucket_of, buckets, combined, 0, order, stream);
  else
    reorder_in_rows<Backend>(keys, n, bucket_of, buckets, combined, order, stream);
}

/// Runs `args` in the order `order` (positions into it, a permutation):
/// gathers its inputs into that order, calls run(permuted batch), and
/// scatters the outputs back to the caller's positions.
template <class Backend, class Key, class Value, class Run>
void run_in_order(const batch<Key, Value>& args, const std::uint64_t* order, Run&& run,
                  typename Backend::stream_type stream) {
  static_assert(sizeof(std::size_t) == sizeof(std::uint64_t));
  const std::size_t n = args.n;
  const auto* positions = reinterpret_cast<const std::size_t*>(order);

  // The batch's arrays in the new order; outputs get room of their own.
  batch<Key, Value> permuted = args;
  auto keys = Backend::template allocate<Key>(n, stream);
  Backend::gather(args.keys, positions, n, keys.data(), stream);
  permuted.keys = keys.data();
  typename Backend::template buffer<Value> values;
  if (args.values != nullptr) {  // inputs of writes; searches keep what they do not find
    values = Backend::template allocate<Value>(n, stream);
    Backend::gather(static_cast<const Value*>(args.values), positions, n, values.data(), stream);
    permuted.values = values.data();
  }
  typename Backend::template buffer<operation> ops;
  if (args.ops != nullptr) {
    ops = Backend::template allocate<operation>(n, stream);
    Backend::gather(args.ops, positions, n, ops.data(), stream);
    permuted.ops = ops.data();
  }
  typename Backend::template buffer<status> statuses;
  if (args.statuses != nullptr) {
    statuses = Backend::template allocate<status>(n, stream);
    permuted.statuses = statuses.data();
  }
  typename Backend::template buffer<bool> flags;
  if (args.flags != nullptr) {
    flags = Backend::template allocate<bool>(n, stream);
    permuted.flags = flags.data();
  }

  run(static_cast<const batch<Key, Value>&>(permuted));

  if (args.statuses != nullptr)
    Backend::scatter(static_cast<const status*>(statuses.data()), positions, n, args.statuses,
                     stream);
  if (args.flags != nullptr)
    Backend::scatter(static_cast<const bool*>(flags.data()), positions, n, args.flags, stream);
  if (args.kind == batch_kind::find || args.kind == batch_kind::apply)
    Backend::scatter(static_cast<const Value*>(values.data()), positions, n, args.values, stream);
}

}  // namespace gpuhash::detail

#if defined(__CUDACC__)
#include "gpuhash/detail/cuda/warp_reorder.cuh"
#endif
