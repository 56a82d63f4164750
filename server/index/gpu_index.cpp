// The server's index on the GPU: signature_index<cuda_backend> on its own
// stream. A batch is one round trip: its arrays go to the device straight
// from the pinned memory the engine wrote them in, the batch runs (a search-
// only batch without waiting in between), and its results come back in one
// copy (gpu_results.cuh) that the engine reads in place.

#include <memory>
#include <stdexcept>

#include "index/index_service.hpp"

#if GPUHASH_HAS_CUDA
#include <algorithm>
#include <cstddef>
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

  index_results apply(const index_batch& batch) override {
    const std::size_t n = batch.size();
    reserve(n);
    auto* signatures = reinterpret_cast<signature_type*>(device_arguments_.data());
    auto* locations = signatures + n;
    auto* ops = reinterpret_cast<operation*>(device_arguments_.data() + n * 8);
    auto* results = device_results_.data();
    auto* counts = results + 1;
    auto* statuses = reinterpret_cast<status*>(results + 1 + n + n * packed_matches);
    upload(signatures, batch.signatures.data(), n);
    GPUHASH_CUDA_TRY(cudaMemsetAsync(results, 0, sizeof(std::uint32_t) * (1 + n), stream_));
    std::size_t result_size = result_bytes(n);
    // Nothing waits but the engine, for the results: the copies in, the
    // batch's kernels, the packing and one copy out are queued in order.
    if (batch.searches_only()) {
      index_.find_async(signatures, n, full_matches_.data(), counts, stream_);
      result_size -= n;  // no statuses
    } else {
      upload(locations, batch.locations.data(), n);
      upload(ops, batch.ops.data(), n);
      index_.apply_async(ops, signatures, locations, locations, n, full_matches_.data(), counts,
                         statuses, stream_, batch.inserts);
    }
    pack_results(full_matches_.data(), n, results, stream_);
    GPUHASH_CUDA_TRY(cudaMemcpyAsync(host_results_.data(), results, result_size,
                                     cudaMemcpyDeviceToHost, stream_));
    GPUHASH_CUDA_TRY(cudaStreamSynchronize(stream_));
    index_.settle_async(stream_);  // the index's own accounts (and, rarely, growth)

    const std::uint32_t* host = host_results_.data();
    index_results view{host + 1 + n, host + 1, reinterpret_cast<const status*>(host + 1 + 3 * n),
                       packed_matches};
    if (host[0] != 0) {  // some search found more than two: fetch the full rows
      GPUHASH_CUDA_TRY(cudaMemcpyAsync(host_full_matches_.data(), full_matches_.data(),
                                       n * max_matches * sizeof(location_type),
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
    const std::size_t size = std::max<std::size_t>(n + n / 2, 4096);
    device_arguments_ = cuda_backend::allocate<unsigned char>(argument_bytes(size), stream_);
    // results: u32 words, the statuses' bytes rounded up to words
    const std::size_t words = (result_bytes(size) + 3) / 4;
    host_results_ = cuda_backend::allocate_host<std::uint32_t>(words);
    device_results_ = cuda_backend::allocate<std::uint32_t>(words, stream_);
    full_matches_ = cuda_backend::allocate<location_type>(size * max_matches, stream_);
    host_full_matches_ = cuda_backend::allocate_host<location_type>(size * max_matches);
    reserved_ = size;
  }

  owned_stream stream_;  // first: destroyed last
  signature_index<cuda_backend> index_;
  std::string description_;
  std::size_t reserved_ = 0;
  cuda::device_buffer<unsigned char> device_arguments_;
  cuda::pinned_buffer<std::uint32_t> host_results_;
  cuda::device_buffer<std::uint32_t> device_results_;
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
