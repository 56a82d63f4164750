#pragma once
// gpuhash::map_ref: a table's device-side API (docs/device_api.md). A small,
// trivially copyable handle to a table's storage, taken from the owning table
// with table.ref() and passed by value into the caller's own CUDA kernels or
// CPU threads, where each thread calls it for its own keys:
//
//   auto ref = table.ref();                      // host, between batches
//   ...                                          // in a kernel or a thread:
//   if (ref.insert(key, value) == gpuhash::status::full) { /* keep for later */ }
//   ref.insert_or_apply(group, amount, gpuhash::plus{});
//
// Every method runs the design's own per-key algorithm (the one its batches
// run), so it returns the statuses a batch returns for that key: reserved
// keys give invalid_key, and an insert that finds no room gives `full`. A
// table does not grow inside a kernel: the caller keeps the `full` keys and
// inserts them from the host (a synchronous insert grows and never returns
// full; docs/device_api.md shows the pattern).
//
// One ref type offers every operation (cuCollections hands out one ref per
// set of operations, so that a kernel's ref type says what it may do; here
// every design's algorithms are one view whose operations are all safe
// together, so a finer split would add types, not guarantees).
//
// Validity and ordering. A ref stays valid until the table's next call that
// may rebuild or grow it (insert, insert_or_assign, apply and their _async
// forms, reserve, compact, clear): take a new one after those. A kernel
// that uses a ref runs on the table's stream (or is synchronized with it)
// between the table's batches, never at the same time as one.
//
// Warps. On the GPU the threads of a warp that call a method together also
// leave it together (their coalesced group synchronizes after the work), so
// that the caller's code after the call runs converged: its stores coalesce
// and the next keys' loads go out together. Without it, a kernel of ref
// inserts ran at 6.5 G/s (the bulk insert: 10) and one of group-by sums at
// 16 G rows/s; with it, 9.3 and 33 (H100, 2^26 keys, load 0.5;
// docs/results/device_api.md). A thread that never returns from a call
// would stall the others of its group, and none does: every method returns
// once its own key is done (locks are released before).
//
// Size. The ref counts its inserts and erases into the table's counters
// (warp-aggregated on the GPU, a shard per thread on the CPU), so size()
// after such a kernel is right, and the table's growth checks see the keys
// the kernel added: once a table has handed out a ref, each batch that may
// insert first reads the counters back (one synchronization).
//
// Concurrent calls of a ref's methods from many threads give, per key, the
// outcome of some serial order of those calls, as an `apply` batch does; each
// design says in docs/designs/ where its refs guarantee less (bucketed
// cuckoo's insert answers `full` where its batches would move keys).

#include <cstdint>
#include <type_traits>

#include "gpuhash/apply_ops.hpp"
#include "gpuhash/detail/counters.hpp"
#include "gpuhash/host_device.hpp"
#include "gpuhash/status.hpp"

#if defined(__CUDACC__)
#include <cooperative_groups.h>
#endif

namespace gpuhash {

namespace detail {
/// Threads per key of a view's cooperative find (find(tile, ...)); 0: none.
template <class View>
inline constexpr unsigned cooperative_find_tile = 0;
template <class View>
requires requires {
  View::find_tile_size;
}
inline constexpr unsigned cooperative_find_tile<View> = View::find_tile_size;
}  // namespace detail

template <class Engine>
class basic_map;
template <class Key, class Value>
class local_linear_probing;

template <class View>
class map_ref {
 public:
  using key_type = typename View::key_type;
  using mapped_type = typename View::mapped_type;

  /// Threads per key of the design's cooperative find (find(tile, ...)), or
  /// 0 where it has none.
  static constexpr unsigned cooperative_find_tile = detail::cooperative_find_tile<View>;

  map_ref() = default;

  /// Keys the design reserves as sentinels: every method answers invalid_key.
  GPUHASH_HD static constexpr bool is_reserved(key_type key) { return View::is_reserved(key); }

  /// found (*value set, if value is not null) or not_found.
  GPUHASH_HD status find(key_type key, mapped_type* value) const {
    return together(
        [&] { return is_reserved(key) ? status::invalid_key : view_.find(key, value); });
  }
  /// Whether the key is stored (false for reserved keys).
  GPUHASH_HD bool contains(key_type key) const { return find(key, nullptr) == status::found; }
  /// Inserts an absent key: inserted, exists (value unchanged) or full.
  GPUHASH_HD status insert(key_type key, mapped_type value) const {
    return counted(
        [&] { return is_reserved(key) ? status::invalid_key : view_.insert(key, value); });
  }
  /// Upsert: inserted, updated or full.
  GPUHASH_HD status insert_or_assign(key_type key, mapped_type value) const {
    return counted([&] {
      return is_reserved(key) ? status::invalid_key : view_.insert_or_assign(key, value);
    });
  }
  /// erased or not_found.
  GPUHASH_HD status erase(key_type key) const {
    return counted([&] { return is_reserved(key) ? status::invalid_key : view_.erase(key); });
  }
  /// Inserts (key, value) if the key is absent (inserted); otherwise calls
  /// op(stored, value) on its stored value, atomically (updated): `stored`
  /// is a mapped_type& that op changes in place, and op may run more than
  /// once on stale copies before one is stored, so it must have no other
  /// effect. full where an absent key finds no room. gpuhash::plus is one
  /// atomic add (apply_ops.hpp).
  template <class Op>
  GPUHASH_HD status insert_or_apply(key_type key, mapped_type value, Op op) const {
    return counted([&] {
      return is_reserved(key) ? status::invalid_key : view_.insert_or_apply(key, value, op);
    });
  }

#if defined(__CUDACC__)
  /// Device only, for designs with a cooperative find (bucketed cuckoo;
  /// cooperative_find_tile > 0): every thread of `tile`, a tile of
  /// cooperative_find_tile threads (cooperative_groups::tiled_partition),
  /// calls it with the same key and gets the same answer. Faster than the
  /// one-thread find for misses at high load and for buckets over 32 bytes
  /// (docs/designs/bucketed_cuckoo.md).
  template <class Tile>
  __device__ status find(const Tile& tile, key_type key, mapped_type* value) const requires
      requires(const View& v, const Tile& t, key_type k, mapped_type* p) {
    v.find(t, k, p);
  }
  {
    if (is_reserved(key)) return status::invalid_key;
    return view_.find(tile, key, value);
  }
  template <class Tile>
  __device__ bool contains(const Tile& tile, key_type key) const requires
      requires(const View& v, const Tile& t, key_type k) {
    v.contains(t, k);
  }
  { return !is_reserved(key) && view_.contains(tile, key); }
#endif

 private:
  template <class Engine>
  friend class basic_map;
  template <class Key, class Value>
  friend class local_linear_probing;

  GPUHASH_HD map_ref(View view, detail::ref_counts* counts) : view_(view), counts_(counts) {}

  template <class Work>
  GPUHASH_HD status together(Work&& work) const {
    return detail::run_together(work);
  }
  template <class Work>
  GPUHASH_HD status counted(Work&& work) const {
    return detail::run_counted(counts_, work);
  }

  View view_{};
  detail::ref_counts* counts_ = nullptr;  // null: a table without an owner keeping its size
};

}  // namespace gpuhash
