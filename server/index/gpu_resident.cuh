#pragma once
// The resident kernel: one block that stays on the GPU and takes a shard's
// small index batches from a mailbox in page-locked host memory, so that a
// batch costs no kernel launch. It runs a batch's searches and answers them,
// then runs its inserts and erases through the index's ref (each entry's
// step, then the eviction walks of the inserts that found no room, as
// signature_index's own batches run them) while the host answers the
// clients. For a small batch, launching kernels and waiting for them costs
// the host more than the work itself; the resident kernel answers in about
// half the time (docs/results/server.md). Each read of host memory costs the
// block a trip over PCIe, so a small batch's signatures and arguments ride
// in the mailbox with its fields (one read for all).
//
//   host                                   device (one block, resident_threads)
//   signatures, staged mutations
//   mailbox: counts, pointers, view, and
//   a small batch's signatures and
//   arguments inline (payload)             thread 0 polls `request`;
//   request = s; waits until taken = s     taken = s
//                                          the block reads the fields and
//                                          the payload at once (one trip
//                                          over PCIe), searches, writes the
//                                          results block (gpu_results.cuh)
//                                          and every search's full row,
//                                          fences
//   polls `answered` until s               answered = s
//                                          inserts and erases: phase 1, the
//                                          walks of the pending inserts,
//                                          their statuses and tallies, fences
//   (before the next batch) polls          finished = s
//   `finished`, accounts for the tallies
//   (signature_index::adopt_batch)
//
// A kernel ends at its first idle poll after `lifetime`; a post that finds
// it ended, or that it ends without taking, launches the next. The bound
// matters: a call that waits for the whole device (cudaFreeHost, loading a
// kernel on its first launch) waits for the resident kernels to end, so it
// waits at most that long instead of for ever. A kernel that has taken a
// batch finishes it before it ends or heeds `stop`.
// The kernel reads the index's buckets from L2 (bucket_reads::from_l2): its
// own earlier batches and launched kernels change them between its batches,
// and its L1 may hold lines from before. A launched batch must not overlap
// a resident one: the caller waits for `finished` before launching (and
// settles a launched batch before posting).

#include <cuda_runtime.h>

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "gpuhash/signature_index_ref.hpp"
#include "gpuhash/status.hpp"
#include "gpuhash/status_counts.hpp"
#include "index/index_service.hpp"

namespace gpuhash::server::index {

/// Written by the host, then read by the kernel, on cache lines of their
/// own: the kernel polls the first line and reads the next two, a batch's
/// fields, together with the payload after them; it writes the last.
struct resident_mailbox {
  struct alignas(64) request_words {
    std::uint32_t request = 0;  ///< the posted batch's number; its fields are written first
    std::uint32_t stop = 0;     ///< nonzero: end once every posted batch is finished
  };
  struct alignas(64) search_fields {
    std::uint32_t count = 0;                    ///< searches, at most resident_kernel::max_searches
    std::uint32_t batch = 0;                    ///< for the results block's first word
    const std::uint32_t* signatures = nullptr;  ///< page-locked
    std::uint32_t* results = nullptr;           ///< page-locked results block
    std::uint32_t* rows = nullptr;              ///< page-locked, max_matches per search
    signature_index_ref view;
  };
  struct alignas(64) mutation_fields {
    std::uint32_t count = 0;  ///< inserts and erases, at most resident_kernel::max_mutations
    std::uint32_t max_exchanges = 0;
    std::uint64_t random = 0;  ///< varies the walks from batch to batch
    /// Page-locked: count signatures, count locations, count operations.
    const unsigned char* arguments = nullptr;
    status* statuses = nullptr;  ///< page-locked, count
  };
  struct alignas(64) answer_words {
    std::uint32_t taken = 0;     ///< the last batch a kernel took
    std::uint32_t answered = 0;  ///< the last batch whose searches are answered
    std::uint32_t finished = 0;  ///< the last batch whose inserts and erases have run too
    std::uint32_t ended = 0;     ///< the generation of the last kernel that ended
    // The finished batch's tallies (signature_index::adopt_batch):
    std::uint32_t inserted = 0;        ///< phase 1: placed in an empty slot
    std::uint32_t erased = 0;          ///< phase 1
    std::uint32_t pending = 0;         ///< phase 1: found both buckets full (walks ran for these)
    std::uint32_t walks_placed = 0;    ///< walks that placed their entry
    std::uint32_t walks_homeless = 0;  ///< walks that ended with an entry in hand
  };
  /// The fields and the payload, read by the kernel in one wave of 8-byte
  /// loads: each read of host memory costs the kernel a trip over PCIe
  /// (docs/results/server.md), so a small batch's inputs come with its
  /// fields instead of from their arrays after them.
  static constexpr std::size_t read_bytes = 2048;
  static constexpr std::size_t payload_bytes =
      read_bytes - sizeof(search_fields) - sizeof(mutation_fields);
  /// Whether a batch's searches' signatures (4 bytes each) and its
  /// mutations' arguments (9 bytes each, laid out as `arguments`) travel in
  /// the payload; otherwise the kernel reads them from their arrays.
  static constexpr bool fits_payload(std::size_t searches, std::size_t mutations) noexcept {
    return searches * 4 + mutations * 9 <= payload_bytes;
  }

  request_words request;
  search_fields searches;
  mutation_fields mutations;
  /// The signatures, then the arguments, when fits_payload.
  alignas(64) unsigned char payload[payload_bytes];
  answer_words answer;
};
static_assert(sizeof(resident_mailbox::search_fields) == 64, "a batch's searches fill one line");
static_assert(sizeof(resident_mailbox::mutation_fields) == 64, "its mutations fill one more");
static_assert(offsetof(resident_mailbox, payload) ==
                      offsetof(resident_mailbox, searches) + 2 * 64 &&
                  resident_mailbox::read_bytes % 8 == 0,
              "the fields and the payload are one run of 8-byte words");

/// What the host posts: a batch's searches (count may be 0) and its inserts
/// and erases (count may be 0), as the mailbox holds them. The searches'
/// results: the kernel writes the results block of `batch` into `results`
/// (page-locked, as pack_results does) and each search's full row of
/// locations into `rows` (page-locked, max_matches per search: read them
/// where the block's first word says some search found more than two). The
/// inserts and erases' arguments stay untouched until the batch is
/// finished; `random` is mixed (murmur3_fmix64) and new for each batch.
struct resident_batch {
  resident_mailbox::search_fields searches;
  resident_mailbox::mutation_fields mutations;
};

/// What a finished batch's inserts and erases did (for adopt_batch).
struct resident_outcome {
  status_counts phase_one;  ///< inserted, erased; full: pending
  status_counts walks;      ///< inserted: placed; full: homeless
  /// The walks' entries left in hand, by pending position, phase_one.full
  /// of them (empty slots where the walk placed its entry); device memory,
  /// valid until the next batch is posted.
  const signature_index_ref::entry_type* held = nullptr;
};

class resident_kernel {
 public:
  /// Batches larger than these are launched as usual: one block's time
  /// grows with the batch, a launched kernel's spreads over the whole GPU,
  /// so a launch is faster beyond them (docs/results/server.md).
  static constexpr std::size_t max_searches = 2048;
  static constexpr std::size_t max_mutations = 2048;
  /// How long a kernel lives (see above); tests shorten it. A batch that
  /// finds its kernel ended pays a launch, several times its own round
  /// trip (docs/results/server.md), so the lifetime is long against the
  /// milliseconds that pass between a shard's requests at low load. The
  /// calls that wait for the device (above) are not made while the server
  /// runs: the page-locked pool is never given back and every kernel is
  /// loaded at the start, so a long lifetime costs nothing there.
  static constexpr std::chrono::microseconds default_lifetime{100000};

  explicit resident_kernel(std::chrono::microseconds lifetime = default_lifetime);
  /// Lets the kernel finish what it has taken, stops it and waits for it.
  ~resident_kernel();
  resident_kernel(const resident_kernel&) = delete;
  resident_kernel& operator=(const resident_kernel&) = delete;

  /// Posts a batch; returns once a kernel has taken it. The last batch
  /// posted must be finished (wait_finished) if it had inserts or erases:
  /// the view must be of the index as they left it.
  void post(const resident_batch& batch);
  /// Waits until the posted batch's searches are answered; throws
  /// cuda_error if the device fails meanwhile. Until the answer comes, it
  /// does `while_waiting`'s work, a step at a time, if there is any.
  void wait(wait_work* while_waiting = nullptr);
  /// Waits until the posted batch's inserts and erases have run too, and
  /// tells what they did.
  resident_outcome wait_finished();

  /// Ends the running kernel, if any, once it has finished what it took:
  /// the next post launches a new one. compute-sanitizer checks a kernel's
  /// accesses against the allocations made before its launch, so a batch
  /// in memory allocated since (batch arrays grow now and then) goes to a
  /// new kernel.
  void end_kernel();

  /// When the running kernel will have lived half its lifetime: the time
  /// to renew() it, between batches, so that no batch finds it ended and
  /// pays for a launch (several times a lone batch's round trip:
  /// docs/results/server.md). Before the first launch: long past.
  std::chrono::steady_clock::time_point renew_at() const noexcept;
  /// Ends the running kernel, once the last batch has finished, and
  /// launches a new one.
  void renew();

  /// Kernels launched so far.
  std::uint64_t launches() const noexcept { return launches_; }

 private:
  void launch();
  /// Returns once a kernel has taken the last batch posted, launching one
  /// if the current kernel ends without it.
  void make_taken();
  bool current_kernel_ended() const;
  /// Waits until the answer word `word` says the last batch posted.
  void wait_for(const std::uint32_t& word);
  /// Every so many spins, throws if the kernel's stream has failed.
  void check_device(std::uint32_t spins) const;

  std::uint64_t lifetime_ns_;
  resident_mailbox* mailbox_ = nullptr;  // page-locked
  cudaStream_t stream_ = nullptr;        // the resident kernel's own
  // Device memory for a batch's pending inserts: their positions, how many
  // (phase 1 counts them), then the entries their walks leave in hand (held_).
  unsigned char* pending_ = nullptr;
  signature_index_ref::entry_type* held_ = nullptr;
  std::uint32_t requests_ = 0;        // batches posted
  std::size_t posted_mutations_ = 0;  // the last batch posted: its inserts and erases
  std::uint32_t generation_ = 0;      // the current kernel's number (wraps: compared for equality)
  bool launched_ = false;             // a kernel was ever launched
  std::chrono::steady_clock::time_point launched_at_{};  // the current kernel's launch
  std::uint64_t launches_ = 0;
};

}  // namespace gpuhash::server::index
