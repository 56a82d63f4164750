// The server's index on the GPU: signature_index<cuda_backend> on its own
// stream. A batch's searches are one round trip: their signatures go to the
// device straight from the pinned memory the engine wrote them in, the
// search runs, and its results come back in one copy (gpu_results.cuh) that
// the engine reads in place. The batch's inserts and erases are queued
// behind the searches and not waited for (defers_mutations): they run while
// the engine answers the batch, the next batch's searches see them, and
// their statuses come back with the next batch. So every batch waits for a
// search's round trip only, whatever it holds.

#include <memory>
#include <stdexcept>

#include "index/index_service.hpp"

#if GPUHASH_HAS_CUDA
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory_resource>
#include <new>

#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/cuda/error.hpp"
#include "gpuhash/signature_index.hpp"
#include "index/gpu_results.cuh"
#endif

namespace gpuhash::server::index {

#if GPUHASH_HAS_CUDA
namespace {

/// Page-locked host memory for batches, so their copies to the device run at
/// full speed straight from where the engine writes them. One for the
/// process: it outlives every index (the engine keeps its batch when the
/// index moves to the CPU). When the GPU has failed, page-locked memory may
/// not be had: a block then comes from the heap, and says so in a header,
/// so the server carries on with its index on the CPU.
class pinned_memory final : public std::pmr::memory_resource {
 public:
  static pinned_memory& instance() {
    static pinned_memory memory;
    return memory;
  }

 private:
  static constexpr std::size_t header = alignof(std::max_align_t);
  enum : unsigned char { from_cuda = 1, from_heap = 2 };

  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    if (alignment > header) throw std::bad_alloc();
    void* block = nullptr;
    unsigned char kind = from_cuda;
    if (cudaMallocHost(&block, bytes + header) != cudaSuccess) {
      cudaGetLastError();  // clear it: the heap will do
      block = ::operator new(bytes + header);
      kind = from_heap;
    }
    *static_cast<unsigned char*>(block) = kind;
    return static_cast<unsigned char*>(block) + header;
  }
  void do_deallocate(void* pointer, std::size_t, std::size_t) override {
    unsigned char* block = static_cast<unsigned char*>(pointer) - header;
    if (*block == from_heap) {
      ::operator delete(block);
    } else {
      GPUHASH_CUDA_REPORT(cudaFreeHost(block));
    }
  }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }
};

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
  gpu_index(std::size_t capacity, std::uint64_t seed)
      : index_(index_options{capacity, 0.0f, seed}, stream_) {
    description_ = "gpu (" + cuda_backend::device_name() + ")";
  }

  std::string description() const override { return description_; }
  bool on_device() const noexcept override { return true; }
  signature_type signature(std::string_view key) const noexcept override {
    return index_.signature(key);
  }

  std::pmr::memory_resource* batch_memory() const noexcept override {
    return &pinned_memory::instance();
  }

  bool defers_mutations() const noexcept override { return true; }

  index_results apply(const index_batch& batch) override {
    const std::size_t n = batch.size();
    const std::size_t searches = batch.searches();
    const std::size_t mutations = n - searches;
    reserve(n);
    auto* results = device_results_.data();
    if (searches != 0) {
      auto* signatures = reinterpret_cast<signature_type*>(device_searches_.data());
      upload(signatures, batch.signatures.data(), searches);
      index_.find_async(signatures, searches, full_matches_.data(), results + 1, stream_);
      if (++batches_ == 0) {  // wrapped round (after 2^32 batches): start the word again
        GPUHASH_CUDA_TRY(cudaMemsetAsync(results, 0, sizeof(std::uint32_t), stream_));
        batches_ = 1;
      }
      pack_results(full_matches_.data(), searches, batches_, results, stream_);
      GPUHASH_CUDA_TRY(cudaMemcpyAsync(host_results_.data(), results, result_bytes(searches),
                                       cudaMemcpyDeviceToHost, stream_));
    }
    GPUHASH_CUDA_TRY(cudaEventRecord(searched_, stream_));
    // The inserts and erases, behind the searches: their arguments in one
    // block (staged here), their statuses to the buffer not handed out last.
    const std::size_t writing = unsettled_buffer_ ^ 1;
    if (mutations != 0) {
      // The last batch's copy from its staging buffer may not have run yet
      // (nothing waited for it); the one before it has, since every apply
      // waits for the batch queued before it (signature_index::use_stream).
      staging_ ^= 1;
      unsigned char* staged = host_mutations_[staging_].data();
      std::memcpy(staged, batch.signatures.data() + searches, mutations * 4);
      std::memcpy(staged + mutations * 4, batch.locations.data() + searches, mutations * 4);
      std::memcpy(staged + mutations * 8, batch.ops.data() + searches, mutations);
      unsigned char* device = device_mutations_.data();
      GPUHASH_CUDA_TRY(cudaMemcpyAsync(device, staged, mutation_bytes(mutations),
                                       cudaMemcpyHostToDevice, stream_));
      auto* signatures = reinterpret_cast<signature_type*>(device);
      auto* locations = signatures + mutations;
      auto* ops = reinterpret_cast<operation*>(device + mutations * 8);
      index_.apply_async(ops, signatures, locations, locations, mutations,
                         full_matches_.data() + searches * max_matches, mutation_counts_.data(),
                         device_statuses_.data(), stream_, batch.inserts);
      GPUHASH_CUDA_TRY(cudaMemcpyAsync(host_statuses_[writing].data(), device_statuses_.data(),
                                       mutations, cudaMemcpyDeviceToHost, stream_));
    }
    GPUHASH_CUDA_TRY(cudaEventSynchronize(searched_));

    // The last earlier batch's inserts and erases came before these
    // searches on the stream: their statuses are in.
    const std::uint32_t* host = host_results_.data();
    index_results view{host + 1 + searches, host + 1};
    view.match_stride = packed_matches;
    view.statuses = host_statuses_[unsettled_buffer_].data();
    view.settled = unsettled_;
    unsettled_ = mutations;
    if (mutations != 0) unsettled_buffer_ = writing;
    if (searches != 0 && host[0] == batches_) {
      // some search found more than two: fetch the full rows
      GPUHASH_CUDA_TRY(cudaMemcpyAsync(host_full_matches_.data(), full_matches_.data(),
                                       searches * max_matches * sizeof(location_type),
                                       cudaMemcpyDeviceToHost, stream_));
      GPUHASH_CUDA_TRY(cudaStreamSynchronize(stream_));
      view.matches = host_full_matches_.data();
      view.match_stride = max_matches;
    }
    return view;
  }
  std::size_t entries() const noexcept override { return index_.size(); }
  std::size_t capacity() const noexcept override { return index_.capacity(); }
  std::size_t memory_bytes() const noexcept override { return index_.memory_bytes(); }
  std::size_t rebuilds() const noexcept override { return index_.rebuilds(); }

 private:
  template <class T>
  void upload(T* device, const T* host, std::size_t n) {
    GPUHASH_CUDA_TRY(cudaMemcpyAsync(device, host, n * sizeof(T), cudaMemcpyHostToDevice, stream_));
  }
  void reserve(std::size_t n) {
    if (n <= reserved_) return;
    // the mutations' statuses may still be on their way to the host
    GPUHASH_CUDA_TRY(cudaStreamSynchronize(stream_));
    const std::size_t size = std::max<std::size_t>(n + n / 2, 4096);
    device_searches_ = cuda_backend::allocate<signature_type>(size, stream_);
    // the first word holds batch numbers, which only grow: it starts at 0
    const std::size_t words = size * (1 + packed_matches) + 1;
    device_results_ = cuda_backend::allocate<std::uint32_t>(words, stream_);
    GPUHASH_CUDA_TRY(
        cudaMemsetAsync(device_results_.data(), 0, words * sizeof(std::uint32_t), stream_));
    host_results_ = cuda_backend::allocate_host<std::uint32_t>(words);
    device_mutations_ = cuda_backend::allocate<unsigned char>(mutation_bytes(size), stream_);
    for (auto& staging : host_mutations_)
      staging = cuda_backend::allocate_host<unsigned char>(mutation_bytes(size));
    mutation_counts_ = cuda_backend::allocate<std::uint32_t>(size, stream_);
    device_statuses_ = cuda_backend::allocate<status>(size, stream_);
    for (std::size_t b = 0; b < 2; ++b) {
      cuda::pinned_buffer<status> grown = cuda_backend::allocate_host<status>(size);
      if (b == unsettled_buffer_ && unsettled_ != 0)
        std::memcpy(grown.data(), host_statuses_[b].data(), unsettled_);
      host_statuses_[b] = std::move(grown);
    }
    full_matches_ = cuda_backend::allocate<location_type>(size * max_matches, stream_);
    host_full_matches_ = cuda_backend::allocate_host<location_type>(size * max_matches);
    reserved_ = size;
  }

  owned_stream stream_;  // first: destroyed last
  signature_index<cuda_backend> index_;
  std::string description_;
  owned_event searched_;  // recorded after a batch's searches
  std::size_t reserved_ = 0;
  std::uint32_t batches_ = 0;  // batches with searches so far (pack_results)
  cuda::device_buffer<signature_type> device_searches_;
  cuda::device_buffer<std::uint32_t> device_results_;
  cuda::pinned_buffer<std::uint32_t> host_results_;
  cuda::device_buffer<unsigned char> device_mutations_;
  cuda::pinned_buffer<unsigned char> host_mutations_[2];  // staging, in turn
  std::size_t staging_ = 0;
  cuda::device_buffer<std::uint32_t> mutation_counts_;  // unused: a mutation has no matches
  cuda::device_buffer<status> device_statuses_;
  cuda::pinned_buffer<status> host_statuses_[2];  // one written while the other is read
  std::size_t unsettled_buffer_ = 0;              // where the statuses not handed out yet are
  std::size_t unsettled_ = 0;                     // how many
  cuda::device_buffer<location_type> full_matches_;
  cuda::pinned_buffer<location_type> host_full_matches_;
};

}  // namespace

bool gpu_available() noexcept {
  return cuda_backend::available();
}

std::unique_ptr<index_service> make_gpu_index(std::size_t capacity, std::uint64_t seed) {
  if (!gpu_available()) throw std::runtime_error("no GPU is available");
  return std::make_unique<gpu_index>(capacity, seed);
}

#else

bool gpu_available() noexcept {
  return false;
}

std::unique_ptr<index_service> make_gpu_index(std::size_t, std::uint64_t) {
  throw std::runtime_error("gpuhash-server was built without the CUDA backend");
}

#endif

}  // namespace gpuhash::server::index
