#pragma once
// The resident search: one block that stays on the GPU and takes a shard's
// small search batches from a mailbox in page-locked host memory, so that a
// batch costs no kernel launch. Measured on the H200 (docs/results/server.md):
// 64 searches take 6 us from post to answer against 15 us for a launched
// search and packing kernel waited for with an event.
//
//   host                                   device (one block, resident_threads)
//   signatures -> page-locked batch
//   mailbox: view, count, ... ; request=s  thread 0 polls `request`
//                                          the block searches, writes the
//                                          results block (gpu_results.cuh)
//                                          and the full rows, fences
//   polls `answered` until s               answered = s
//
// A kernel lives at most `lifetime` and is launched again by the next post
// after it ends. The bound matters: a call that waits for the whole device
// (cudaFreeHost, loading a kernel's module on first use) waits for a
// resident kernel to end, so it waits at most that long instead of for ever.
// The kernel reads the index's buckets from L2 (index_view::find_from_l2):
// inserts and erases run in other kernels between its searches, and its
// L1 may hold lines from before them. The caller settles them before a
// post (signature_index::settle_async), as a launched search would.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "gpuhash/detail/signature_index/view.hpp"

namespace gpuhash::server::index {

/// Written by the host, then read by the kernel, on cache lines of their
/// own: the kernel polls the first line, then reads the second, a batch's
/// fields, in one 64-byte read; it writes the third.
struct search_mailbox {
  struct alignas(64) request_words {
    std::uint32_t request = 0;  ///< the posted batch's number; its fields are written first
    std::uint32_t stop = 0;     ///< nonzero: the kernel ends now
  };
  struct alignas(64) batch_fields {
    std::uint32_t count = 0;                    ///< searches
    std::uint32_t batch = 0;                    ///< for the results block's first word
    const std::uint32_t* signatures = nullptr;  ///< page-locked
    std::uint32_t* results = nullptr;           ///< page-locked results block
    std::uint32_t* full_matches = nullptr;      ///< device, max_matches per search
    detail::signature_index::index_view view;
  };
  struct alignas(64) answer_words {
    std::uint32_t answered = 0;  ///< the last batch answered
    std::uint32_t ended = 0;     ///< the generation of the last kernel that ended
  };
  request_words request;
  batch_fields fields;
  answer_words answer;
};
static_assert(sizeof(search_mailbox::batch_fields) == 64, "one read of 64 bytes");

class resident_search {
 public:
  /// Batches larger than this are launched as usual: one block takes about
  /// 1.3 us per search per thread, so a launch is faster beyond it.
  static constexpr std::size_t max_searches = 2048;

  resident_search();
  /// Stops the kernel and waits for it.
  ~resident_search();
  resident_search(const resident_search&) = delete;
  resident_search& operator=(const resident_search&) = delete;

  /// Posts `n` (1 .. max_searches) searches of `view`, their signatures in
  /// page-locked memory: the kernel writes the results block of `batch`
  /// into `results` (page-locked, as pack_results does) and every search's
  /// full row into `full_matches` (device). Returns at once.
  void post(const detail::signature_index::index_view& view, const std::uint32_t* signatures,
            std::size_t n, std::uint32_t batch, std::uint32_t* results,
            std::uint32_t* full_matches);
  /// Queues on `stream` a wait for the posted batch's answer: work queued
  /// behind it (inserts and erases) runs only after the searches.
  void order_after_posted(cudaStream_t stream);
  /// Waits until the posted batch is answered; throws cuda_error if the
  /// device fails meanwhile.
  void wait();

 private:
  void launch();

  search_mailbox* mailbox_ = nullptr;  // page-locked
  cudaStream_t stream_ = nullptr;      // the resident kernel's own
  std::uint32_t requests_ = 0;         // batches posted
  std::uint32_t generation_ = 0;       // kernels launched
};

}  // namespace gpuhash::server::index
