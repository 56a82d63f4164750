// The resident search kernel and its host side (gpu_search.cuh).

#include <atomic>
#include <chrono>
#include <cstring>
#include <new>
#include <type_traits>

#include "gpuhash/cuda/error.hpp"
#include "index/gpu_results.cuh"
#include "index/gpu_search.cuh"
#include "index/index_service.hpp"

namespace gpuhash::server::index {

namespace {

namespace si = detail::signature_index;

constexpr unsigned resident_threads = 512;
static_assert(std::is_trivially_copyable_v<si::index_view> && sizeof(si::index_view) % 8 == 0);

__device__ std::uint64_t now_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
/// `request` and `stop` in one read.
__device__ std::uint64_t load_request_and_stop(const search_mailbox* box) {
  std::uint64_t word;
  asm volatile("ld.volatile.global.u64 %0, [%1];" : "=l"(word) : "l"(&box->request) : "memory");
  return word;
}
__device__ void store_release_system(std::uint32_t* address, std::uint32_t value) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(address), "r"(value) : "memory");
}

__device__ void store_volatile(std::uint32_t* address, std::uint32_t value) {
  *static_cast<volatile std::uint32_t*>(address) = value;
}

__global__ void __launch_bounds__(resident_threads)
    resident_search_kernel(search_mailbox* box, std::uint32_t generation, std::uint32_t seen,
                           std::uint64_t lifetime_ns) {
  __shared__ search_mailbox::batch_fields posted;
  __shared__ std::uint32_t request;
  __shared__ bool ending;
  const std::uint64_t deadline = now_ns() + lifetime_ns;
  for (;;) {
    if (threadIdx.x == 0) {
      ending = false;
      for (std::uint32_t idle = 0;; ++idle) {
        const std::uint64_t word = load_request_and_stop(box);
        const auto posted_request = static_cast<std::uint32_t>(word);
        // A posted batch first: a kernel that has taken one answers it.
        if (posted_request != seen) {
          request = posted_request;
          store_volatile(&box->answer.taken, posted_request);
          break;
        }
        if ((word >> 32) != 0 || now_ns() >= deadline) {
          ending = true;
          break;
        }
        // Idle a while: poll the host's memory less often.
        if (idle >= 1024) __nanosleep(500);
      }
      // The host wrote the batch's fields before `request`.
      asm volatile("fence.acq_rel.sys;" ::: "memory");
    }
    __syncthreads();
    if (ending) break;
    // The fields: eight lanes read eight bytes each at once, volatile (past
    // any line cached from the last batch).
    if (threadIdx.x < sizeof(posted) / 8) {
      const volatile std::uint64_t* from =
          reinterpret_cast<const volatile std::uint64_t*>(&box->fields);
      reinterpret_cast<std::uint64_t*>(&posted)[threadIdx.x] = from[threadIdx.x];
    }
    __syncthreads();
    const search_mailbox::batch_fields batch = posted;
    const std::uint32_t answer = request;
    for (std::uint32_t i = threadIdx.x; i < batch.count; i += blockDim.x) {
      const std::uint32_t signature = __ldcv(batch.signatures + i);
      si::location_type matches[si::max_matches];
      const std::uint32_t count = batch.view.find_from_l2(signature, matches);
      std::uint32_t* row = batch.rows + std::size_t{i} * si::max_matches;
      for (std::uint32_t k = 0; k < count; ++k) row[k] = matches[k];
      write_result(batch.results, batch.count, i, count, matches, batch.batch);
    }
    // Every thread's writes, then the answer (and `posted` is read by all
    // before thread 0 overwrites it).
    __threadfence_system();
    __syncthreads();
    if (threadIdx.x == 0) store_release_system(&box->answer.answered, answer);
    seen = answer;
  }
  if (threadIdx.x == 0) {
    __threadfence_system();
    store_release_system(&box->answer.ended, generation);
  }
}

/// Holds its stream until the resident kernel has answered batch `request`.
__global__ void wait_for_answer_kernel(const search_mailbox* box, std::uint32_t request) {
  const volatile std::uint32_t* answered = &box->answer.answered;
  while (static_cast<std::int32_t>(*answered - request) < 0) __nanosleep(100);
  asm volatile("fence.acq_rel.sys;" ::: "memory");
}

void pause() {
#if defined(__x86_64__)
  __builtin_ia32_pause();
#endif
}

std::uint32_t load_acquire(const std::uint32_t& word) {
  return std::atomic_ref<std::uint32_t>(const_cast<std::uint32_t&>(word))
      .load(std::memory_order_acquire);
}
void store_release(std::uint32_t& word, std::uint32_t value) {
  std::atomic_ref<std::uint32_t>(word).store(value, std::memory_order_release);
}

}  // namespace

resident_search::resident_search(std::chrono::microseconds lifetime)
    : lifetime_ns_(static_cast<std::uint64_t>(lifetime.count()) * 1000) {
  void* memory = nullptr;
  GPUHASH_CUDA_TRY(cudaMallocHost(&memory, sizeof(search_mailbox)));
  mailbox_ = new (memory) search_mailbox{};
  // Loaded now, not at their first launch: loading a kernel waits for the
  // resident kernels running then (gpu_search.cuh).
  cudaFuncAttributes attributes{};
  cudaError_t ready = cudaFuncGetAttributes(&attributes, resident_search_kernel);
  if (ready == cudaSuccess) ready = cudaFuncGetAttributes(&attributes, wait_for_answer_kernel);
  if (ready == cudaSuccess) ready = cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
  if (ready != cudaSuccess) {
    cudaFreeHost(memory);
    GPUHASH_CUDA_TRY(ready);
  }
}

resident_search::~resident_search() {
  // A kernel answers a batch it has taken (post() returns only then) before
  // it heeds `stop`, so whatever waits on its answer is released too.
  std::atomic_ref<std::uint32_t>(mailbox_->request.stop).store(1, std::memory_order_release);
  GPUHASH_CUDA_REPORT(cudaStreamSynchronize(stream_));
  GPUHASH_CUDA_REPORT(cudaStreamDestroy(stream_));
  GPUHASH_CUDA_REPORT(cudaFreeHost(mailbox_));
}

void resident_search::launch() {
  // The new kernel takes every batch after the last one answered.
  const std::uint32_t seen = load_acquire(mailbox_->answer.answered);
  // The generation moves on only once the launch has taken: a launch that
  // failed leaves the last kernel's `ended` still matching, so the next post
  // launches again instead of waiting for a kernel that never ran.
  resident_search_kernel<<<1, resident_threads, 0, stream_>>>(mailbox_, generation_ + 1, seen,
                                                              lifetime_ns_);
  GPUHASH_CUDA_TRY(cudaGetLastError());
  ++generation_;
  launched_ = true;
  ++launches_;
}

bool resident_search::current_kernel_ended() const {
  return !launched_ || load_acquire(mailbox_->answer.ended) == generation_;
}

void resident_search::check_device(std::uint32_t spins) const {
  if (spins % 4096 != 0) return;
  const cudaError_t state = cudaStreamQuery(stream_);
  if (state != cudaSuccess && state != cudaErrorNotReady) GPUHASH_CUDA_TRY(state);
}

void resident_search::post(const detail::signature_index::index_view& view,
                           const std::uint32_t* signatures, std::size_t n, std::uint32_t batch,
                           std::uint32_t* results, std::uint32_t* rows) {
  // A batch left unanswered (an exception between post and wait): taken
  // (a failed launch may have left it untaken) and answered first, so that
  // its fields do not change under the kernel reading them.
  if (load_acquire(mailbox_->answer.answered) != requests_) {
    make_taken();
    wait();
  }
  search_mailbox::batch_fields& fields = mailbox_->fields;
  fields.count = static_cast<std::uint32_t>(n);
  fields.batch = batch;
  fields.signatures = signatures;
  fields.results = results;
  fields.rows = rows;
  fields.view = view;
  store_release(mailbox_->request.request, ++requests_);
  // Until a kernel has taken the batch, one may end without it (its last
  // idle poll came just before the post): launch another then. Posted
  // first, then launched: the kernel has the batch even where launches run
  // one at a time to the end (compute-sanitizer, CUDA_LAUNCH_BLOCKING).
  // Once taken, the batch is answered whatever comes, so work queued
  // behind order_after_posted cannot wait for ever.
  make_taken();
}

void resident_search::make_taken() {
  for (std::uint32_t spins = 1; load_acquire(mailbox_->answer.taken) != requests_; ++spins) {
    if (current_kernel_ended()) launch();
    check_device(spins);
    pause();
  }
}

void resident_search::order_after_posted(cudaStream_t stream) {
  wait_for_answer_kernel<<<1, 1, 0, stream>>>(mailbox_, requests_);
  GPUHASH_CUDA_TRY(cudaGetLastError());
}

void resident_search::wait() {
  for (std::uint32_t spins = 1; load_acquire(mailbox_->answer.answered) != requests_; ++spins) {
    check_device(spins);
    pause();
  }
}

}  // namespace gpuhash::server::index
