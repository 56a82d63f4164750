// The resident kernel and its host side (gpu_resident.cuh).

#include <cuda/atomic>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <new>
#include <type_traits>

#include "gpuhash/cuda/error.hpp"
#include "gpuhash/hash.hpp"
#include "gpuhash/operation.hpp"
#include "index/gpu_resident.cuh"
#include "index/gpu_results.cuh"

namespace gpuhash::server::index {

namespace {

using l2_ref = basic_signature_index_ref<bucket_reads::from_l2>;
using entry_type = signature_index_ref::entry_type;
using signature_type = signature_index_ref::signature_type;
using location_type = signature_index_ref::location_type;
constexpr std::uint32_t max_matches = signature_index_ref::max_matches;

constexpr unsigned resident_threads = 512;
static_assert(
    resident_mailbox::fits_payload(0, 1) &&
        !resident_mailbox::fits_payload(0, resident_mailbox::payload_bytes / mutation_bytes(1) + 1),
    "fits_payload counts a mutation's arguments as mutation_bytes does");
static_assert(std::is_trivially_copyable_v<signature_index_ref> &&
              sizeof(signature_index_ref) % 8 == 0);

/// Where a batch's pending inserts go on the device (one allocation): their
/// positions, then the entries their walks leave in hand.
struct pending_memory {
  static constexpr std::size_t positions_bytes =
      resident_kernel::max_mutations * sizeof(std::uint32_t);
  static constexpr std::size_t held_bytes = resident_kernel::max_mutations * sizeof(entry_type);
  static constexpr std::size_t bytes = positions_bytes + held_bytes;
};

__device__ std::uint64_t now_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
/// `request` and `stop` in one read.
__device__ std::uint64_t load_request_and_stop(const resident_mailbox* box) {
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

/// The batch's searches: each writes its part of the results block and its
/// full row. `inline_signatures`: the signatures, from the payload in shared
/// memory; null: read from batch.signatures.
__device__ void run_searches(const resident_mailbox::search_fields& batch,
                             const std::uint32_t* inline_signatures) {
  const l2_ref table = batch.view.reading_from_l2();
  for (std::uint32_t i = threadIdx.x; i < batch.count; i += blockDim.x) {
    const std::uint32_t signature =
        inline_signatures != nullptr ? inline_signatures[i] : __ldcv(batch.signatures + i);
    location_type matches[max_matches];
    const std::uint32_t count = table.find(signature, matches);
    std::uint32_t* row = batch.rows + std::size_t{i} * max_matches;
    for (std::uint32_t k = 0; k < count; ++k) row[k] = matches[k];
    write_result(batch.results, batch.count, i, count, matches, batch.batch);
  }
}

/// Adds `count` to a tally in shared memory.
__device__ void add_shared(std::uint64_t& total, std::uint64_t count) {
  if (count != 0)
    ::cuda::atomic_ref<std::uint64_t, ::cuda::thread_scope_block>(total).fetch_add(
        count, ::cuda::std::memory_order_relaxed);
}

/// The block's tally of the statuses its threads counted (a barrier for
/// every thread of the block, before and after).
__device__ status_counts add_up(const status_counts& mine, status_counts& shared) {
  __syncthreads();
  if (threadIdx.x == 0) shared = {};
  __syncthreads();
  add_shared(shared.inserted, mine.inserted);
  add_shared(shared.erased, mine.erased);
  add_shared(shared.full, mine.full);
  __syncthreads();
  return shared;
}

/// One insert or erase, as signature_index's batches run it (no entry moves).
__device__ status run_mutation(const l2_ref& table, operation op, signature_type signature,
                               location_type location) {
  if (l2_ref::is_reserved(signature)) return status::invalid_key;
  switch (op) {
    case operation::insert: return table.insert(signature, location);
    case operation::erase: return table.erase(signature, location);
    default: return status::invalid_operation;
  }
}

/// The batch's inserts and erases, as signature_index::apply_async runs
/// them: each entry's step for all (no entry moves), then the eviction walks
/// of the inserts that found both buckets full, once every step is done.
/// Returns the tallies in the answer line. `inline_arguments`: the
/// arguments, from the payload in shared memory; null: read from
/// batch.arguments.
__device__ void run_mutations(const resident_mailbox::mutation_fields& batch, const l2_ref& table,
                              const unsigned char* inline_arguments,
                              unsigned char* pending_memory_base, resident_mailbox* box) {
  // The arguments, copied into shared memory, where both passes read them
  // (from host memory past L1: the host rewrites these blocks).
  __shared__ signature_type signatures[resident_kernel::max_mutations];
  __shared__ location_type locations[resident_kernel::max_mutations];
  __shared__ operation ops[resident_kernel::max_mutations];
  __shared__ status_counts tally;
  __shared__ std::uint32_t pending_count;
  const std::uint32_t n = batch.count;
  if (inline_arguments != nullptr) {
    const auto* from_signatures = reinterpret_cast<const std::uint32_t*>(inline_arguments);
    const auto* from_locations = from_signatures + n;
    const auto* from_ops = reinterpret_cast<const operation*>(from_locations + n);
    for (std::uint32_t i = threadIdx.x; i < n; i += blockDim.x) {
      signatures[i] = from_signatures[i];
      locations[i] = from_locations[i];
      ops[i] = from_ops[i];
    }
  } else {
    const auto* from_signatures = reinterpret_cast<const std::uint32_t*>(batch.arguments);
    const auto* from_locations = from_signatures + n;
    const auto* from_ops = reinterpret_cast<const unsigned char*>(from_locations + n);
    for (std::uint32_t i = threadIdx.x; i < n; i += blockDim.x) {
      signatures[i] = __ldcv(from_signatures + i);
      locations[i] = __ldcv(from_locations + i);
      ops[i] = static_cast<operation>(*static_cast<const volatile unsigned char*>(from_ops + i));
    }
  }
  auto* pending = reinterpret_cast<std::uint32_t*>(pending_memory_base);
  auto* held = reinterpret_cast<entry_type*>(pending_memory_base + pending_memory::positions_bytes);
  if (threadIdx.x == 0) pending_count = 0;
  __syncthreads();

  status_counts mine;
  for (std::uint32_t i = threadIdx.x; i < n; i += blockDim.x) {
    const status result = run_mutation(table, ops[i], signatures[i], locations[i]);
    batch.statuses[i] = result;
    if (result == status::full) pending[atomicAdd(&pending_count, 1U)] = i;
    mine.count(result);
  }
  const status_counts first = add_up(mine, tally);

  // first.full inserts are pending, their positions recorded. The walks
  // move entries, so they start only now that every step above is done (the
  // barrier in add_up), and no search runs until the next batch.
  status_counts walked;
  for (std::uint32_t t = threadIdx.x; t < first.full; t += blockDim.x) {
    held[t] = signature_index_ref::no_entry;
    const std::uint32_t i = pending[t];
    // A 17th entry under its signature: no slot could ever take it, so it
    // is refused and its status stays full.
    if (table.count(signatures[i]) == max_matches) continue;
    batch.statuses[i] = status::inserted;
    const auto placement = table.insert_by_eviction(
        signatures[i], locations[i], murmur3_fmix64(batch.random ^ t), batch.max_exchanges);
    // Left in hand: the walk's own entry is stored (reported inserted) and
    // the one in hand goes back to the index by adopt_batch.
    held[t] = placement.held;
    walked.count(placement.placed ? status::inserted : status::full);
  }
  const status_counts second = add_up(walked, tally);

  // The statuses (host memory) and held entries before the tallies.
  __threadfence_system();
  __syncthreads();
  if (threadIdx.x == 0) {
    store_volatile(&box->answer.inserted, static_cast<std::uint32_t>(first.inserted));
    store_volatile(&box->answer.erased, static_cast<std::uint32_t>(first.erased));
    store_volatile(&box->answer.pending, static_cast<std::uint32_t>(first.full));
    store_volatile(&box->answer.walks_placed, static_cast<std::uint32_t>(second.inserted));
    store_volatile(&box->answer.walks_homeless, static_cast<std::uint32_t>(second.full));
  }
}

__global__ void __launch_bounds__(resident_threads)
    resident_kernel_loop(resident_mailbox* box, unsigned char* pending_memory_base,
                         std::uint32_t generation, std::uint32_t seen, std::uint64_t lifetime_ns) {
  // The fields and the payload as posted (resident_mailbox::read_bytes).
  constexpr std::uint32_t read_words = resident_mailbox::read_bytes / 8;
  static_assert(read_words <= resident_threads, "one wave of loads");
  __shared__ std::uint64_t posted[read_words];
  __shared__ std::uint32_t request;
  __shared__ bool ending;
  const std::uint64_t deadline = now_ns() + lifetime_ns;
  for (;;) {
    if (threadIdx.x == 0) {
      ending = false;
      for (std::uint32_t idle = 0;; ++idle) {
        const std::uint64_t word = load_request_and_stop(box);
        const auto posted_request = static_cast<std::uint32_t>(word);
        // A posted batch first: a kernel that has taken one finishes it.
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
    // The fields (two lines) and the payload after them: one wave of
    // 8-byte loads, volatile (past any line cached from the last batch).
    if (threadIdx.x < read_words)
      posted[threadIdx.x] =
          reinterpret_cast<const volatile std::uint64_t*>(&box->searches)[threadIdx.x];
    __syncthreads();
    resident_mailbox::search_fields searches;
    resident_mailbox::mutation_fields mutations;
    std::memcpy(&searches, posted, sizeof searches);
    std::memcpy(&mutations, posted + sizeof searches / 8, sizeof mutations);
    const auto* payload = reinterpret_cast<const unsigned char*>(posted) + 2 * 64;
    const bool in_payload = resident_mailbox::fits_payload(searches.count, mutations.count);
    const std::uint32_t answer = request;
    run_searches(searches, in_payload ? reinterpret_cast<const std::uint32_t*>(payload) : nullptr);
    // Every thread's writes, then the answer: each thread's fence makes its
    // writes visible to the host before the barrier, and thread 0 writes
    // the answer after it (the fields are read by all before thread 0
    // overwrites them with the next batch's).
    __threadfence_system();
    __syncthreads();
    if (threadIdx.x == 0) store_volatile(&box->answer.answered, answer);
    if (mutations.count != 0)
      run_mutations(mutations, searches.view.reading_from_l2(),
                    in_payload ? payload + std::size_t{searches.count} * 4 : nullptr,
                    pending_memory_base, box);
    if (threadIdx.x == 0) store_release_system(&box->answer.finished, answer);
    seen = answer;
  }
  if (threadIdx.x == 0) {
    __threadfence_system();
    store_release_system(&box->answer.ended, generation);
  }
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

resident_kernel::resident_kernel(std::chrono::microseconds lifetime)
    : lifetime_ns_(static_cast<std::uint64_t>(lifetime.count()) * 1000) {
  void* memory = nullptr;
  GPUHASH_CUDA_TRY(cudaMallocHost(&memory, sizeof(resident_mailbox)));
  mailbox_ = new (memory) resident_mailbox{};
  void* pending = nullptr;
  cudaError_t ready = cudaMalloc(&pending, pending_memory::bytes);
  // Loaded now, not at its first launch: loading a kernel waits for the
  // resident kernels running then (gpu_resident.cuh).
  cudaFuncAttributes attributes{};
  if (ready == cudaSuccess) ready = cudaFuncGetAttributes(&attributes, resident_kernel_loop);
  if (ready == cudaSuccess) ready = cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
  if (ready != cudaSuccess) {
    cudaFree(pending);
    cudaFreeHost(memory);
    GPUHASH_CUDA_TRY(ready);
  }
  auto* base = static_cast<unsigned char*>(pending);
  pending_ = base;
  held_ = reinterpret_cast<entry_type*>(base + pending_memory::positions_bytes);
}

resident_kernel::~resident_kernel() {
  // A kernel finishes a batch it has taken (post() returns only then)
  // before it heeds `stop`.
  std::atomic_ref<std::uint32_t>(mailbox_->request.stop).store(1, std::memory_order_release);
  GPUHASH_CUDA_REPORT(cudaStreamSynchronize(stream_));
  GPUHASH_CUDA_REPORT(cudaStreamDestroy(stream_));
  GPUHASH_CUDA_REPORT(cudaFree(pending_));
  GPUHASH_CUDA_REPORT(cudaFreeHost(mailbox_));
}

void resident_kernel::launch() {
  // The new kernel takes every batch after the last one finished.
  const std::uint32_t seen = load_acquire(mailbox_->answer.finished);
  // The generation moves on only once the launch has taken: a launch that
  // failed leaves the last kernel's `ended` still matching, so the next post
  // launches again instead of waiting for a kernel that never ran.
  resident_kernel_loop<<<1, resident_threads, 0, stream_>>>(mailbox_, pending_, generation_ + 1,
                                                            seen, lifetime_ns_);
  GPUHASH_CUDA_TRY(cudaGetLastError());
  ++generation_;
  launched_ = true;
  launched_at_ = std::chrono::steady_clock::now();
  ++launches_;
}

std::chrono::steady_clock::time_point resident_kernel::renew_at() const noexcept {
  return launched_at_ + std::chrono::nanoseconds(lifetime_ns_ / 2);
}

void resident_kernel::renew() {
  if (load_acquire(mailbox_->answer.finished) != requests_) {
    make_taken();
    wait_for(mailbox_->answer.finished);
  }
  end_kernel();
  launch();
}

bool resident_kernel::current_kernel_ended() const {
  return !launched_ || load_acquire(mailbox_->answer.ended) == generation_;
}

void resident_kernel::check_device(std::uint32_t spins) const {
  if (spins % 4096 != 0) return;
  const cudaError_t state = cudaStreamQuery(stream_);
  if (state != cudaSuccess && state != cudaErrorNotReady) GPUHASH_CUDA_TRY(state);
}

void resident_kernel::post(const resident_batch& batch) {
  // A batch left unfinished (an exception between post and wait): taken (a
  // failed launch may have left it untaken) and finished first, so that its
  // fields and arguments do not change under the kernel reading them.
  if (load_acquire(mailbox_->answer.finished) != requests_) {
    make_taken();
    wait_for(mailbox_->answer.finished);
  }
  mailbox_->searches = batch.searches;
  mailbox_->mutations = batch.mutations;
  const std::size_t searches = batch.searches.count;
  const std::size_t mutations = batch.mutations.count;
  if (resident_mailbox::fits_payload(searches, mutations)) {
    if (searches != 0)
      std::memcpy(mailbox_->payload, batch.searches.signatures, searches * sizeof(std::uint32_t));
    if (mutations != 0)
      std::memcpy(mailbox_->payload + searches * sizeof(std::uint32_t), batch.mutations.arguments,
                  mutation_bytes(mutations));
  }
  posted_mutations_ = mutations;
  store_release(mailbox_->request.request, ++requests_);
  // Until a kernel has taken the batch, one may end without it (its last
  // idle poll came just before the post): launch another then. Posted
  // first, then launched: the kernel has the batch even where launches run
  // one at a time to the end (compute-sanitizer, CUDA_LAUNCH_BLOCKING).
  make_taken();
}

void resident_kernel::end_kernel() {
  if (current_kernel_ended()) return;
  std::atomic_ref<std::uint32_t> stop(mailbox_->request.stop);
  stop.store(1, std::memory_order_release);
  for (std::uint32_t spins = 1; !current_kernel_ended(); ++spins) {
    check_device(spins);
    pause();
  }
  stop.store(0, std::memory_order_release);
}

void resident_kernel::make_taken() {
  for (std::uint32_t spins = 1; load_acquire(mailbox_->answer.taken) != requests_; ++spins) {
    if (current_kernel_ended()) launch();
    check_device(spins);
    pause();
  }
}

void resident_kernel::wait_for(const std::uint32_t& word) {
  for (std::uint32_t spins = 1; load_acquire(word) != requests_; ++spins) {
    check_device(spins);
    pause();
  }
}

void resident_kernel::wait(wait_work* while_waiting) {
  const std::uint32_t& answered = mailbox_->answer.answered;
  if (while_waiting != nullptr)
    while (load_acquire(answered) != requests_ && while_waiting->step()) {
    }
  wait_for(answered);
}

resident_outcome resident_kernel::wait_finished() {
  wait_for(mailbox_->answer.finished);
  resident_outcome outcome;
  outcome.held = held_;
  if (posted_mutations_ == 0) return outcome;  // the tallies are an earlier batch's
  const resident_mailbox::answer_words& answer = mailbox_->answer;
  outcome.phase_one = {answer.inserted, answer.erased, answer.pending};
  outcome.walks = {answer.walks_placed, 0, answer.walks_homeless};
  return outcome;
}

}  // namespace gpuhash::server::index
