#pragma once
// The resident search: one block that stays on the GPU and takes a shard's
// small search batches from a mailbox in page-locked host memory, so that a
// batch costs no kernel launch. Measured on the H200 (docs/results/server.md,
// gpuhash-index-round-trip): 64 searches take 8 us from the call to the
// answer, against 15 us for a launched search and packing kernel waited for
// with an event.
//
//   host                                   device (one block, resident_threads)
//   signatures -> page-locked batch
//   mailbox: count, pointers, view         thread 0 polls `request`;
//   request = s; waits until taken = s     taken = s
//                                          the block searches, writes the
//                                          results block (gpu_results.cuh)
//                                          and every search's full row,
//                                          fences
//   polls `answered` until s               answered = s
//
// A kernel ends at its first idle poll after `lifetime`; a post that finds
// it ended, or that it ends without taking, launches the next. The bound
// matters: a call that waits for the whole device (cudaFreeHost, loading a
// kernel on its first launch) waits for the resident kernels to end, so it
// waits at most that long instead of for ever. A kernel that has taken a
// batch answers it before it ends or heeds `stop`, so whatever is queued to
// wait for the answer (order_after_posted) is released.
// The kernel reads the index's buckets from L2 (index_view::find_from_l2):
// inserts and erases run in other kernels between its searches, and its
// L1 may hold lines from before them. The caller settles them before a
// post (signature_index::settle_async), as a launched search would.

#include <cuda_runtime.h>

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "gpuhash/detail/signature_index/view.hpp"

namespace gpuhash::server::index {

/// Written by the host, then read by the kernel, on cache lines of their
/// own: the kernel polls the first line and reads the second, a batch's
/// fields; it writes the third.
struct search_mailbox {
  struct alignas(64) request_words {
    std::uint32_t request = 0;  ///< the posted batch's number; its fields are written first
    std::uint32_t stop = 0;     ///< nonzero: end once every posted batch is answered
  };
  struct alignas(64) batch_fields {
    std::uint32_t count = 0;                    ///< searches
    std::uint32_t batch = 0;                    ///< for the results block's first word
    const std::uint32_t* signatures = nullptr;  ///< page-locked
    std::uint32_t* results = nullptr;           ///< page-locked results block
    std::uint32_t* rows = nullptr;              ///< page-locked, max_matches per search
    detail::signature_index::index_view view;
  };
  struct alignas(64) answer_words {
    std::uint32_t taken = 0;     ///< the last batch a kernel took
    std::uint32_t answered = 0;  ///< the last batch answered
    std::uint32_t ended = 0;     ///< the generation of the last kernel that ended
  };
  request_words request;
  batch_fields fields;
  answer_words answer;
};
static_assert(sizeof(search_mailbox::batch_fields) == 64, "a batch's fields fill one line");

class resident_search {
 public:
  /// Batches larger than this are launched as usual: one block takes about
  /// 1.3 us per search per thread, so a launch is faster beyond it.
  static constexpr std::size_t max_searches = 2048;
  /// How long a kernel lives (see above); tests shorten it.
  static constexpr std::chrono::microseconds default_lifetime{5000};

  explicit resident_search(std::chrono::microseconds lifetime = default_lifetime);
  /// Lets the kernel answer what it has taken, stops it and waits for it.
  ~resident_search();
  resident_search(const resident_search&) = delete;
  resident_search& operator=(const resident_search&) = delete;

  /// Posts `n` (1 .. max_searches) searches of `view`, their signatures in
  /// page-locked memory: the kernel writes the results block of `batch`
  /// into `results` (page-locked, as pack_results does) and each search's
  /// full row of locations into `rows` (page-locked, max_matches per
  /// search: read them where the block's first word says some search found
  /// more than two). Returns once a kernel has taken the batch.
  void post(const detail::signature_index::index_view& view, const std::uint32_t* signatures,
            std::size_t n, std::uint32_t batch, std::uint32_t* results, std::uint32_t* rows);
  /// Queues on `stream` a wait for the posted batch's answer: work queued
  /// behind it (inserts and erases) runs only after the searches.
  void order_after_posted(cudaStream_t stream);
  /// Waits until the posted batch is answered; throws cuda_error if the
  /// device fails meanwhile.
  void wait();

  /// Kernels launched so far.
  std::uint64_t launches() const noexcept { return launches_; }

 private:
  void launch();
  /// Returns once a kernel has taken the last batch posted, launching one
  /// if the current kernel ends without it.
  void make_taken();
  bool current_kernel_ended() const;
  /// Every so many spins, throws if the kernel's stream has failed.
  void check_device(std::uint32_t spins) const;

  std::uint64_t lifetime_ns_;
  search_mailbox* mailbox_ = nullptr;  // page-locked
  cudaStream_t stream_ = nullptr;      // the resident kernel's own
  std::uint32_t requests_ = 0;         // batches posted
  std::uint32_t generation_ = 0;       // the current kernel's number (wraps: compared for equality)
  bool launched_ = false;              // a kernel was ever launched
  std::uint64_t launches_ = 0;
};

}  // namespace gpuhash::server::index
