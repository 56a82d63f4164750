// The server's index on the GPU: signature_index<cuda_backend> on its own
// stream. A batch takes one of two ways:
//  - small (up to resident_kernel::max_searches searches and max_mutations
//    inserts and erases, 2,048 each): to the resident kernel
//    (gpu_resident.cuh), with no launch (about half a launched batch's
//    time: docs/results/server.md). It answers the searches, then runs the
//    inserts and erases while the engine answers the batch; the next apply
//    waits for them (usually done by then) and has the index account for
//    them;
//  - larger: launched. The searches up to in_place_limit (4,096) read their
//    signatures from the page-locked memory the engine wrote them in, and a
//    packing kernel writes the results block (gpu_results.cuh) into
//    page-locked memory the engine reads in place; more are copied in and
//    out, which moves them faster. The inserts and erases are queued behind
//    the searches and not waited for (signature_index::apply_async); the
//    next batch settles them first (a stream synchronize).
// Either way the statuses of a batch's inserts and erases come back with
// the next batch (defers_mutations). Timings: docs/results/server.md.

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string_view>

#include "index/index_service.hpp"

#if GPUHASH_HAS_CUDA
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory_resource>
#include <vector>

#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/cuda/error.hpp"
#include "gpuhash/hash.hpp"
#include "gpuhash/signature_index.hpp"
#include "index/gpu_resident.cuh"
#include "index/gpu_results.cuh"
#include "index/pinned_memory.hpp"
#endif

namespace gpuhash::server::index {

#if GPUHASH_HAS_CUDA
namespace {

/// The index's stream, destroyed after everything allocated on it (it is
/// the first member).
class owned_stream {
 public:
  owned_stream() { GPUHASH_CUDA_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~owned_stream() {
    cudaStreamSynchronize(stream_);
    cudaStreamDestroy(stream_);
  }
  owned_stream(const owned_stream&) = delete;
  owned_stream& operator=(const owned_stream&) = delete;
  operator cudaStream_t() const noexcept { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

/// An event for waiting on part of a stream's work.
class owned_event {
 public:
  owned_event() { GPUHASH_CUDA_TRY(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming)); }
  ~owned_event() { cudaEventDestroy(event_); }
  owned_event(const owned_event&) = delete;
  owned_event& operator=(const owned_event&) = delete;
  operator cudaEvent_t() const noexcept { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

class gpu_index final : public index_service {
 public:
  gpu_index(std::size_t capacity, std::uint64_t seed, std::chrono::microseconds resident_lifetime)
      : index_(index_options{capacity, 0.0f, seed}, stream_), resident_(resident_lifetime) {
    description_ = "gpu (" + cuda_backend::device_name() + ")";
  }

  // The last batch's inserts and erases may still be reading and writing
  // the page-locked blocks, which the members free.
  ~gpu_index() override { cudaStreamSynchronize(stream_); }

  std::string description() const override { return description_; }
  bool on_device() const noexcept override { return true; }

  std::pmr::memory_resource* batch_memory() const noexcept override { return &pinned_memory(); }

  bool defers_mutations() const noexcept override { return true; }

  index_results apply(const index_batch& batch, wait_work* while_waiting) override {
    const std::size_t n = batch.size();
    const std::size_t searches = batch.searches();
    const std::size_t mutations = n - searches;
    // The last resident batch's inserts and erases first (usually run by
    // now, while the engine answered their batch).
    settle_resident();
    if (n == 0) return settled_alone();
    if (reserve(n)) buffers_moved_ = true;
    std::uint32_t* results = host_results_.data();
    if (searches != 0 && ++batches_ == 0) {
      // wrapped round (after 2^32 batches): start the block's first word again
      results[0] = 0;
      GPUHASH_CUDA_TRY(cudaMemsetAsync(device_results_.data(), 0, sizeof(std::uint32_t), stream_));
      batches_ = 1;
    }
    const signature_type* signatures = batch.signatures.data();
    const bool resident = searches <= resident_kernel::max_searches &&
                          mutations <= resident_kernel::max_mutations &&
                          (searches == 0 || page_locked(signatures));
    // The inserts and erases' statuses go to the buffer not handed out last.
    const std::size_t writing = unsettled_buffer_ ^ 1;
    if (resident) {
      post_resident(batch, writing, while_waiting);
    } else {
      launch_searches(signatures, searches, results);
      GPUHASH_CUDA_TRY(cudaEventRecord(searched_, stream_));
      if (mutations != 0) launch_mutations(batch, writing);
      wait_for(searched_, while_waiting);
    }

    // The last earlier batch's inserts and erases came before these
    // searches: their statuses are in.
    index_results view{results + 1 + searches, results + 1};
    view.match_stride = packed_matches;
    view.statuses = host_statuses_[unsettled_buffer_].data();
    view.settled = unsettled_;
    unsettled_ = mutations;
    if (mutations != 0) unsettled_buffer_ = writing;
    if (searches != 0 && results[0] == batches_) {
      // Some search found more than two: the full rows (written in place
      // by the resident kernel; fetched otherwise).
      if (!resident) {
        GPUHASH_CUDA_TRY(cudaMemcpyAsync(host_full_matches_.data(), full_matches_.data(),
                                         searches * max_matches * sizeof(location_type),
                                         cudaMemcpyDeviceToHost, stream_));
        GPUHASH_CUDA_TRY(cudaStreamSynchronize(stream_));
      }
      view.matches = host_full_matches_.data();
      view.match_stride = max_matches;
    }
    return view;
  }
  std::optional<std::chrono::steady_clock::time_point> renew_at() const override {
    return resident_.renew_at();
  }
  void renew() override {
    settle_resident();
    resident_.renew();
  }
  std::size_t entries() const noexcept override { return index_.size(); }
  std::size_t capacity() const noexcept override { return index_.capacity(); }
  std::size_t memory_bytes() const noexcept override { return index_.memory_bytes(); }
  std::size_t rebuilds() const noexcept override { return index_.rebuilds(); }

 private:
  /// An empty batch (a move asks for its rebuild's statuses so): the last
  /// batch's inserts and erases waited for and accounted for, their
  /// statuses handed out; nothing is posted or launched.
  index_results settled_alone() {
    index_.settle_async(stream_);  // a launched batch's (a resident one's: settle_resident)
    GPUHASH_CUDA_TRY(cudaStreamSynchronize(stream_));  // its statuses' copy, if any
    index_results view;
    view.statuses = host_statuses_[unsettled_buffer_].data();
    view.settled = unsettled_;
    unsettled_ = 0;
    return view;
  }

  /// A small batch, searches and mutations both, to the resident kernel:
  /// returns once its searches are answered. Its inserts and erases run
  /// after that, and are accounted for at the next apply (settle_resident).
  void post_resident(const index_batch& batch, std::size_t writing, wait_work* while_waiting) {
    const std::size_t searches = batch.searches();
    const std::size_t mutations = batch.size() - searches;
    // A launched batch's inserts and erases come first, then the growth
    // the new inserts may need: the kernel gets the index as they leave it.
    index_.settle_async(stream_);
    if (batch.inserts != 0) index_.make_room_for(batch.inserts, stream_);
    resident_batch posted;
    resident_mailbox::search_fields& searched = posted.searches;
    searched.view = index_.ref();
    // A resident kernel reads only memory allocated before its launch (for
    // compute-sanitizer: resident_kernel::end_kernel). Memory moves rarely:
    // when batches grow, and when the index does.
    const bool moved = buffers_moved_ ||
                       (searches != 0 && batch.signatures.data() != posted_signatures_) ||
                       std::memcmp(&searched.view, &posted_view_, sizeof searched.view) != 0;
    if (moved) resident_.end_kernel();
    buffers_moved_ = false;
    posted_view_ = searched.view;
    if (searches != 0) posted_signatures_ = batch.signatures.data();
    searched.count = static_cast<std::uint32_t>(searches);
    searched.batch = batches_;
    searched.signatures = batch.signatures.data();
    searched.results = host_results_.data();
    searched.rows = host_full_matches_.data();
    if (mutations != 0) {
      resident_mailbox::mutation_fields& changed = posted.mutations;
      changed.count = static_cast<std::uint32_t>(mutations);
      changed.max_exchanges = signature_index<cuda_backend>::max_exchanges;
      changed.random = murmur3_fmix64(index_.seed() ^ ++walks_);
      // (staged even when they travel in the mailbox's payload, which
      // copies them from here: the kernel reads this block otherwise)
      changed.arguments = stage_mutations(batch);
      changed.statuses = host_statuses_[writing].data();
    }
    resident_.post(posted);
    resident_mutations_ = mutations != 0;
    if (searches != 0) resident_.wait(while_waiting);
  }

  /// Waits for an event, doing the caller's work until it has happened.
  static void wait_for(cudaEvent_t event, wait_work* while_waiting) {
    if (while_waiting != nullptr) {
      for (;;) {
        const cudaError_t state = cudaEventQuery(event);
        if (state == cudaSuccess) return;
        if (state != cudaErrorNotReady) GPUHASH_CUDA_TRY(state);
        if (!while_waiting->step()) break;
      }
    }
    GPUHASH_CUDA_TRY(cudaEventSynchronize(event));
  }

  /// Waits for the last resident batch's inserts and erases, if it had any,
  /// and has the index account for them (and store the entries their walks
  /// left homeless: rare, and the index grows for them).
  void settle_resident() {
    if (!resident_mutations_) return;
    resident_mutations_ = false;
    const resident_outcome outcome = resident_.wait_finished();
    index_.adopt_batch(outcome.phase_one, outcome.walks, outcome.held, outcome.phase_one.full,
                       stream_);
  }

  /// A batch's searches, launched: read in place from page-locked memory,
  /// or, if many, copied both ways.
  void launch_searches(const signature_type* signatures, std::size_t searches,
                       std::uint32_t* results) {
    if (searches == 0) return;
    if (searches > in_place_limit) {
      // Large: copied both ways, which moves them faster than the kernels
      // reading and writing host memory do.
      GPUHASH_CUDA_TRY(cudaMemcpyAsync(device_searches_.data(), signatures,
                                       searches * sizeof(signature_type), cudaMemcpyHostToDevice,
                                       stream_));
      index_.find_async(device_searches_.data(), searches, full_matches_.data(),
                        match_counts_.data(), stream_);
      pack_results(full_matches_.data(), match_counts_.data(), searches, batches_,
                   device_results_.data(), stream_);
      GPUHASH_CUDA_TRY(cudaMemcpyAsync(results, device_results_.data(), result_bytes(searches),
                                       cudaMemcpyDeviceToHost, stream_));
      return;
    }
    // Read in place, unless the arrays are not page-locked (a batch not
    // from batch_memory(), or one from the heap because page-locked memory
    // could not be had).
    if (!page_locked(signatures)) {
      std::memcpy(host_searches_.data(), signatures, searches * sizeof(signature_type));
      signatures = host_searches_.data();
    }
    index_.find_async(signatures, searches, full_matches_.data(), match_counts_.data(), stream_);
    pack_results(full_matches_.data(), match_counts_.data(), searches, batches_, results, stream_);
  }

  /// A batch's inserts and erases, launched behind its searches and not
  /// waited for: read by the device from their page-locked staging block
  /// (or copied, if many); their statuses to host_statuses_[writing].
  void launch_mutations(const index_batch& batch, std::size_t writing) {
    const std::size_t searches = batch.searches();
    const std::size_t mutations = batch.size() - searches;
    const unsigned char* arguments = stage_mutations(batch);
    status* statuses = host_statuses_[writing].data();
    const bool in_place = mutations <= in_place_limit;
    if (!in_place) {
      GPUHASH_CUDA_TRY(cudaMemcpyAsync(device_mutations_.data(), arguments,
                                       mutation_bytes(mutations), cudaMemcpyHostToDevice, stream_));
      arguments = device_mutations_.data();
      statuses = device_statuses_.data();
    }
    const auto* signatures = reinterpret_cast<const signature_type*>(arguments);
    const auto* locations = reinterpret_cast<const location_type*>(arguments + mutations * 4);
    const auto* ops = reinterpret_cast<const operation*>(arguments + mutations * 8);
    index_.apply_async(ops, signatures, locations, locations, mutations,
                       full_matches_.data() + searches * max_matches,
                       match_counts_.data() + searches, statuses, stream_, batch.inserts);
    if (!in_place)
      GPUHASH_CUDA_TRY(cudaMemcpyAsync(host_statuses_[writing].data(), statuses, mutations,
                                       cudaMemcpyDeviceToHost, stream_));
  }

  /// Copies a batch's inserts and erases into a page-locked block of their
  /// own (gpu_results.cuh's layout: the engine reuses its batch while they
  /// may still be running), the two blocks in turn: the last batch's may
  /// not have run yet, the ones before it have (every apply settles the
  /// batch before it).
  const unsigned char* stage_mutations(const index_batch& batch) {
    const std::size_t searches = batch.searches();
    const std::size_t mutations = batch.size() - searches;
    staging_ ^= 1;
    unsigned char* staged = host_mutations_[staging_].data();
    std::memcpy(staged, batch.signatures.data() + searches, mutations * 4);
    std::memcpy(staged + mutations * 4, batch.locations.data() + searches, mutations * 4);
    std::memcpy(staged + mutations * 8, batch.ops.data() + searches, mutations);
    return staged;
  }

  /// Whether the device can read `data` where it is (the engine's batch
  /// arrays move only when they grow: the answer is kept for the address).
  bool page_locked(const void* data) {
    if (data != checked_) {
      cudaPointerAttributes attributes{};
      const cudaError_t asked = cudaPointerGetAttributes(&attributes, data);
      if (asked != cudaSuccess) cudaGetLastError();  // clear it: not an error here
      page_locked_ = asked == cudaSuccess && attributes.type == cudaMemoryTypeHost;
      checked_ = data;
    }
    return page_locked_;
  }

  /// Searches up to this many are read and answered in host memory; more
  /// are copied. In place saves a small batch its copy calls, but every
  /// read and write of it crosses PCIe on its own, which a large batch pays
  /// more for than two bulk copies (docs/results/server.md).
  static constexpr std::size_t in_place_limit = 4096;

  /// Makes room for batches of n; true if the buffers grew (moved).
  bool reserve(std::size_t n) {
    if (n <= reserved_) return false;
    // the mutations may still be reading their staging block and writing
    // their statuses
    GPUHASH_CUDA_TRY(cudaStreamSynchronize(stream_));
    const std::size_t size = std::max<std::size_t>(n + n / 2, 4096);
    retire(host_searches_);
    host_searches_ = cuda_backend::allocate_host<signature_type>(size);
    device_searches_ = cuda_backend::allocate<signature_type>(size, stream_);
    // the first word holds batch numbers, which only grow: it starts at 0
    const std::size_t words = size * (1 + packed_matches) + 1;
    retire(host_results_);
    host_results_ = cuda_backend::allocate_host<std::uint32_t>(words);
    host_results_.data()[0] = 0;
    device_results_ = cuda_backend::allocate<std::uint32_t>(words, stream_);
    GPUHASH_CUDA_TRY(cudaMemsetAsync(device_results_.data(), 0, sizeof(std::uint32_t), stream_));
    for (auto& staging : host_mutations_) {
      retire(staging);
      staging = cuda_backend::allocate_host<unsigned char>(mutation_bytes(size));
    }
    device_mutations_ = cuda_backend::allocate<unsigned char>(mutation_bytes(size), stream_);
    device_statuses_ = cuda_backend::allocate<status>(size, stream_);
    match_counts_ = cuda_backend::allocate<std::uint32_t>(size, stream_);
    for (std::size_t b = 0; b < 2; ++b) {
      cuda::pinned_buffer<status> grown = cuda_backend::allocate_host<status>(size);
      if (b == unsettled_buffer_ && unsettled_ != 0)
        std::memcpy(grown.data(), host_statuses_[b].data(), unsettled_);
      retire(host_statuses_[b]);
      host_statuses_[b] = std::move(grown);
    }
    full_matches_ = cuda_backend::allocate<location_type>(size * max_matches, stream_);
    retire(host_full_matches_);
    host_full_matches_ = cuda_backend::allocate_host<location_type>(size * max_matches);
    reserved_ = size;
    return true;
  }

  /// Keeps a page-locked buffer that is being replaced until the index goes:
  /// freeing it now would wait for every shard's resident kernel and hold up
  /// their CUDA calls meanwhile (pinned_memory.hpp).
  template <class T>
  void retire(cuda::pinned_buffer<T>& buffer) {
    if (buffer.data() != nullptr)
      retired_.push_back(std::make_shared<cuda::pinned_buffer<T>>(std::move(buffer)));
  }

  owned_stream stream_;  // first: destroyed last
  signature_index<cuda_backend> index_;
  std::string description_;
  owned_event searched_;                        // recorded after a batch's searches
  std::vector<std::shared_ptr<void>> retired_;  // page-locked buffers outgrown (retire())
  std::size_t reserved_ = 0;
  std::uint32_t batches_ = 0;      // batches with searches so far (pack_results)
  const void* checked_ = nullptr;  // page_locked()'s last address, and its answer
  bool page_locked_ = false;
  // Page-locked blocks that the kernels read or write in place.
  cuda::pinned_buffer<signature_type> host_searches_;  // used if the batch's is not page-locked
  cuda::pinned_buffer<std::uint32_t> host_results_;    // the results block
  // Where large batches' searches and results are copied to and from.
  cuda::device_buffer<signature_type> device_searches_;
  cuda::device_buffer<std::uint32_t> device_results_;
  cuda::pinned_buffer<unsigned char> host_mutations_[2];  // staging, in turn
  cuda::device_buffer<unsigned char> device_mutations_;   // large batches' copies
  cuda::device_buffer<status> device_statuses_;
  std::size_t staging_ = 0;
  cuda::pinned_buffer<status> host_statuses_[2];     // one written while the other is read
  std::size_t unsettled_buffer_ = 0;                 // where the statuses not handed out yet are
  std::size_t unsettled_ = 0;                        // how many
  cuda::device_buffer<std::uint32_t> match_counts_;  // the searches', then the mutations' (unused)
  cuda::device_buffer<location_type> full_matches_;  // launched searches' full rows
  cuda::pinned_buffer<location_type> host_full_matches_;  // the resident kernel's, written here
  // What the resident kernel was last given, and whether reserve() has
  // moved the buffers since (post_resident).
  signature_index_ref posted_view_;
  const void* posted_signatures_ = nullptr;
  bool buffers_moved_ = false;
  bool resident_mutations_ = false;  // the last batch posted to resident_ had inserts or erases
  std::uint64_t walks_ = 0;          // such batches so far (their walks' randomness)
  // Small batches. Last, so destroyed first: its kernel ends before the
  // blocks above are freed (cudaFreeHost waits for the device).
  resident_kernel resident_;
};

}  // namespace

bool gpu_available() noexcept {
  return cuda_backend::available();
}

void load_kernels_at_start() noexcept {
  const char* chosen = std::getenv("CUDA_MODULE_LOADING");
  if (chosen != nullptr && std::string_view(chosen) != "EAGER")
    std::fprintf(stderr,
                 "gpuhash-server: CUDA_MODULE_LOADING=%s kept: a kernel's first launch may then "
                 "wait up to %lld us for the resident kernels\n",
                 chosen, static_cast<long long>(resident_kernel::default_lifetime.count()));
  setenv("CUDA_MODULE_LOADING", "EAGER", /*overwrite=*/0);
}

std::unique_ptr<index_service> make_gpu_index(std::size_t capacity, std::uint64_t seed,
                                              std::uint64_t resident_lifetime_us) {
  if (!gpu_available()) throw std::runtime_error("no GPU is available");
  const auto lifetime = resident_lifetime_us == 0 ? resident_kernel::default_lifetime
                                                  : std::chrono::microseconds(resident_lifetime_us);
  return std::make_unique<gpu_index>(capacity, seed, lifetime);
}

#else

bool gpu_available() noexcept {
  return false;
}

void load_kernels_at_start() noexcept {}

std::unique_ptr<index_service> make_gpu_index(std::size_t, std::uint64_t, std::uint64_t) {
  throw std::runtime_error("gpuhash-server was built without the CUDA backend");
}

#endif

}  // namespace gpuhash::server::index
