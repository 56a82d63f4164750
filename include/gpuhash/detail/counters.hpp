#pragma once
// Running totals of a table's changes, kept in backend memory; the host
// derives size and occupancy from them whenever it synchronizes.
//  * Batch kernels add their statuses to table_counters, one atomic add per
//    warp or CPU chunk, not per key.
//  * Refs (gpuhash/map_ref.hpp) add their inserts and erases to ref_counts,
//    spread over shards so that threads of a user's kernel, which the table
//    cannot tally at the kernel's end as a batch kernel does, do not all add
//    to one address: on the GPU one add per group of a warp's threads that
//    called the ref together (map_ref.hpp), on the CPU one per call into a
//    shard of the thread's own.

#include <cstdint>

#include "gpuhash/detail/atomic.hpp"
#include "gpuhash/host_device.hpp"
#include "gpuhash/status.hpp"
#include "gpuhash/status_counts.hpp"

#if defined(__CUDACC__)
#include <cooperative_groups.h>
#endif
// Host only: NVRTC has no <atomic> (docs/device_api.md, "Kernels compiled
// at run time").
#if !defined(__CUDACC_RTC__)
#include <atomic>
#endif

namespace gpuhash::detail {

/// Statuses of a table's batches since construction or clear (full counts
/// the keys that came back without room, which the frontend retries).
using table_counters = status_counts;

/// Adds a batch's totals, counted apart (an engine's passes), to the table's
/// counters: run by one thread (exec's for_each(1, ...)).
struct add_counts {
  table_counters* counters;
  std::uint64_t inserted;
  std::uint64_t erased;
  GPUHASH_HD void operator()(std::uint64_t) const {
    if (inserted != 0) fetch_add_relaxed(&counters->inserted, inserted);
    if (erased != 0) fetch_add_relaxed(&counters->erased, erased);
  }
};

/// Per-thread tally of the statuses that change a table's bookkeeping.
struct status_tally {
  std::uint32_t inserted = 0;
  std::uint32_t erased = 0;
  std::uint32_t full = 0;

  GPUHASH_HD void count(status s) {
    inserted += s == status::inserted;
    erased += s == status::erased;
    full += s == status::full;
  }
  GPUHASH_HD bool empty() const { return (inserted | erased | full) == 0; }
};

/// One shard of the refs' counts, on a cache line (CPU) and a set of L2
/// sectors (GPU) of its own.
struct alignas(64) ref_count_shard {
  std::uint64_t inserted = 0;
  std::uint64_t erased = 0;
};

/// Inserts and erases done through refs since construction or clear.
struct ref_counts {
  static constexpr std::uint32_t shards = 64;
  ref_count_shard shard[shards];

#if defined(__CUDA_ARCH__)
  /// Counts the inserts and erases among `result` of the threads of
  /// `group` (a warp's coalesced group; all of its threads call this, with
  /// their own results): one add per kind, by its first thread, into the
  /// shard of its warp.
  __device__ void count(const ::cooperative_groups::coalesced_group& group, status result) {
    const auto inserts =
        static_cast<std::uint64_t>(__popc(group.ballot(result == status::inserted)));
    const auto erases = static_cast<std::uint64_t>(__popc(group.ballot(result == status::erased)));
    if (group.thread_rank() == 0) {
      const unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
      ref_count_shard& mine = shard[warp % shards];
      if (inserts != 0) fetch_add_relaxed(&mine.inserted, inserts);
      if (erases != 0) fetch_add_relaxed(&mine.erased, erases);
    }
  }
#else
  /// Counts one insert or erase (other statuses count nothing) by this thread.
  void count(status result) {
    if (result != status::inserted && result != status::erased) return;
    ref_count_shard& mine = shard[host_thread_shard()];
    fetch_add_relaxed<std::uint64_t>(result == status::inserted ? &mine.inserted : &mine.erased, 1);
  }
#endif

  /// The totals over the shards (read on the host, between kernels).
  status_counts total() const {
    status_counts sum;
    for (const ref_count_shard& s : shard) {
      sum.inserted += s.inserted;
      sum.erased += s.erased;
    }
    return sum;
  }

 private:
#if !defined(__CUDA_ARCH__)
  /// A shard per CPU thread (round robin as threads first count), so that
  /// threads do not share a cache line up to `shards` of them.
  static std::uint32_t host_thread_shard() {
    static std::atomic<std::uint32_t> next{0};
    thread_local const std::uint32_t mine = next.fetch_add(1, std::memory_order_relaxed) % shards;
    return mine;
  }
#endif
};

/// Runs work() for the calling thread's key and returns its status; on the
/// GPU the threads that called together wait for each other before they
/// return (gpuhash/map_ref.hpp, "Warps", says why).
template <class Work>
GPUHASH_HD status run_together(Work&& work) {
#if defined(__CUDA_ARCH__)
  const ::cooperative_groups::coalesced_group group = ::cooperative_groups::coalesced_threads();
  const status result = work();
  group.sync();
  return result;
#else
  return work();
#endif
}

/// run_together(work), counting the inserts and erases into `counts` (none
/// where it is null): on the GPU one add per group of threads that called
/// together.
template <class Work>
GPUHASH_HD status run_counted(ref_counts* counts, Work&& work) {
#if defined(__CUDA_ARCH__)
  const ::cooperative_groups::coalesced_group group = ::cooperative_groups::coalesced_threads();
  const status result = work();
  group.sync();
  // The count's group is taken again after the sync, from the threads that
  // run together now, never reused from the entry: with the entry group's
  // mask, the partition's match right after the sync hangs on sm_90 (CUDA
  // 13.0) when the group's threads reach the sync at different times, some
  // of them spinning on a wide value's version (docs/device_api.md,
  // "Warps").
  const ::cooperative_groups::coalesced_group together = ::cooperative_groups::coalesced_threads();
  // Threads of one group may use refs of different tables: each table
  // counts its own threads.
  const ::cooperative_groups::coalesced_group same_table = ::cooperative_groups::labeled_partition(
      together, reinterpret_cast<unsigned long long>(counts));
  if (counts != nullptr) counts->count(same_table, result);
  return result;
#else
  const status result = work();
  if (counts != nullptr) counts->count(result);
  return result;
#endif
}

/// What a table keeps in backend memory for its bookkeeping.
struct counter_block {
  table_counters batches;
  ref_counts refs;
};

}  // namespace gpuhash::detail
