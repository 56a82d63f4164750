// gpuhash-submission-latency: how long a tiny GPU batch takes from the
// host's call to its answer, by the way it is submitted. It measured the
// choice of the resident kernel (server/index/gpu_resident.cuh); the
// batch here is a stand-in (one random 8-byte read per search from a 128 MB
// table, results in page-locked memory), so only the submission differs:
//
//   two_kernels_event   a search and a packing kernel, an event waited for
//                       (the launched path of server/index/gpu_index.cpp)
//   plus_four_queued    the same with four more operations queued before the
//                       wait (as a batch whose inserts are launched behind it)
//   one_kernel_event    one kernel, an event waited for
//   one_kernel_flag     one kernel whose last block sets a flag in page-locked
//                       memory, polled by the host
//   graph               the two kernels as a CUDA graph, an event waited for
//   resident            one block stays on the GPU polling a mailbox in
//                       page-locked memory (no launch)
//
//   gpuhash-submission-latency [--searches=64] [--runs=2001]
//
// For 1 and 4 host threads (each with its own stream and mailbox), back to
// back and with 500 us idle between batches: p50, p90, p99 and max of the
// host-side round trip (steady_clock), one line each. Every batch's answer is
// checked.

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

void check(cudaError_t code, const char* what) {
  if (code == cudaSuccess) return;
  std::fprintf(stderr, "gpuhash-submission-latency: %s: %s\n", what, cudaGetErrorString(code));
  std::exit(1);
}
#define CHECK(call) check((call), #call)

using clock_type = std::chrono::steady_clock;
constexpr int block_size = 256;
constexpr std::uint64_t table_words = std::uint64_t{1} << 24;

__host__ __device__ std::uint32_t answer_of(std::uint32_t signature, std::uint64_t stored) {
  return static_cast<std::uint32_t>(stored) ^ signature;
}
__host__ __device__ std::uint64_t slot_of(std::uint32_t signature) {
  return (signature * 2654435761u) & (table_words - 1);
}

__global__ void search_kernel(const std::uint32_t* signatures, std::uint32_t* found, int n,
                              const std::uint64_t* table) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) found[i] = answer_of(signatures[i], table[slot_of(signatures[i])]);
}
__global__ void pack_kernel(const std::uint32_t* found, std::uint32_t* results, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) results[i] = found[i];
}
/// Search and pack in one; with a flag, the last block to finish sets it.
__global__ void fused_kernel(const std::uint32_t* signatures, std::uint32_t* results, int n,
                             const std::uint64_t* table, unsigned* blocks_done,
                             volatile std::uint32_t* flag, std::uint32_t batch) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) results[i] = answer_of(signatures[i], table[slot_of(signatures[i])]);
  if (flag == nullptr) return;
  __threadfence_system();
  __syncthreads();
  if (threadIdx.x == 0 && atomicAdd(blocks_done, 1) == gridDim.x - 1) {
    *blocks_done = 0;
    __threadfence_system();
    *flag = batch;
  }
}

struct mailbox {
  volatile std::uint32_t request;
  volatile std::uint32_t count;
  volatile std::uint32_t answered;
};
__global__ void resident_kernel(mailbox* box, const std::uint32_t* signatures,
                                std::uint32_t* results, const std::uint64_t* table) {
  __shared__ std::uint32_t request, count;
  std::uint32_t seen = 0;
  for (;;) {
    if (threadIdx.x == 0) {
      while ((request = box->request) == seen) {
      }
      count = box->count;
    }
    __syncthreads();
    const std::uint32_t batch = request;
    const int n = static_cast<int>(count);
    if (batch == ~0u) return;  // stop
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
      const std::uint32_t signature = __ldcv(signatures + i);
      results[i] = answer_of(signature, __ldcg(table + slot_of(signature)));
    }
    __threadfence_system();
    __syncthreads();
    if (threadIdx.x == 0) box->answered = batch;
    seen = batch;
  }
}

struct options {
  int searches = 64;
  int runs = 2001;
};

double percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  const auto at = static_cast<std::size_t>(p * static_cast<double>(values.size()));
  return values[std::min(values.size() - 1, at)];
}

/// One host thread's batches in one style; returns the round trips in us.
std::vector<double> measure(const std::string& style, int n, int runs, int gap_us,
                            const std::uint64_t* table,
                            const std::vector<std::uint64_t>& host_table,
                            std::atomic<long>& wrong) {
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaEvent_t done;
  CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  std::uint32_t *signatures, *results, *found, *extra, *flag;
  unsigned* blocks_done;
  mailbox* box;
  CHECK(cudaMallocHost(&signatures, sizeof(std::uint32_t) * n));
  CHECK(cudaMallocHost(&results, sizeof(std::uint32_t) * n));
  CHECK(cudaMallocHost(&flag, sizeof(std::uint32_t)));
  CHECK(cudaMallocHost(&box, sizeof(mailbox)));
  CHECK(cudaMalloc(&found, sizeof(std::uint32_t) * n));
  CHECK(cudaMalloc(&extra, sizeof(std::uint32_t) * n));
  CHECK(cudaMalloc(&blocks_done, sizeof(unsigned)));
  CHECK(cudaMemset(blocks_done, 0, sizeof(unsigned)));
  *flag = 0;
  box->request = 0;
  box->count = 0;
  box->answered = 0;
  const unsigned blocks = static_cast<unsigned>((n + block_size - 1) / block_size);
  cudaGraphExec_t graph_exec = nullptr;
  if (style == "graph") {
    cudaGraph_t graph;
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    search_kernel<<<blocks, block_size, 0, stream>>>(signatures, found, n, table);
    pack_kernel<<<blocks, block_size, 0, stream>>>(found, results, n);
    CHECK(cudaStreamEndCapture(stream, &graph));
    CHECK(cudaGraphInstantiate(&graph_exec, graph, 0));
    CHECK(cudaGraphDestroy(graph));
  }
  if (style == "resident")
    resident_kernel<<<1, block_size, 0, stream>>>(box, signatures, results, table);
  CHECK(cudaGetLastError());

  std::vector<double> took;
  std::uint64_t draw = 0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(n + gap_us);
  for (int run = 0; run <= runs; ++run) {  // run 0 warms up
    for (int i = 0; i < n; ++i) {
      draw = draw * 6364136223846793005ULL + 1442695040888963407ULL;
      signatures[i] = static_cast<std::uint32_t>(draw >> 32) | 1u;  // fresh, never 0
    }
    if (gap_us != 0) {
      const auto until = clock_type::now() + std::chrono::microseconds(gap_us);
      while (clock_type::now() < until) std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    const auto batch = static_cast<std::uint32_t>(run + 1);
    const auto start = clock_type::now();
    if (style == "two_kernels_event" || style == "plus_four_queued") {
      search_kernel<<<blocks, block_size, 0, stream>>>(signatures, found, n, table);
      pack_kernel<<<blocks, block_size, 0, stream>>>(found, results, n);
      CHECK(cudaEventRecord(done, stream));
      if (style == "plus_four_queued") {
        CHECK(cudaMemsetAsync(extra, 0, sizeof(std::uint32_t), stream));
        search_kernel<<<blocks, block_size, 0, stream>>>(signatures, extra, n, table);
        search_kernel<<<blocks, block_size, 0, stream>>>(signatures, extra, n, table);
        CHECK(cudaMemcpyAsync(flag, extra, sizeof(std::uint32_t), cudaMemcpyDeviceToHost, stream));
      }
      CHECK(cudaEventSynchronize(done));
    } else if (style == "one_kernel_event") {
      fused_kernel<<<blocks, block_size, 0, stream>>>(signatures, results, n, table, blocks_done,
                                                      nullptr, 0);
      CHECK(cudaEventRecord(done, stream));
      CHECK(cudaEventSynchronize(done));
    } else if (style == "one_kernel_flag") {
      fused_kernel<<<blocks, block_size, 0, stream>>>(signatures, results, n, table, blocks_done,
                                                      flag, batch);
      while (*static_cast<volatile std::uint32_t*>(flag) != batch) {
      }
    } else if (style == "graph") {
      CHECK(cudaGraphLaunch(graph_exec, stream));
      CHECK(cudaEventRecord(done, stream));
      CHECK(cudaEventSynchronize(done));
    } else if (style == "resident") {
      box->count = static_cast<std::uint32_t>(n);
      std::atomic_thread_fence(std::memory_order_seq_cst);
      box->request = batch;
      while (box->answered != batch) {
      }
    }
    const auto end = clock_type::now();
    if (run != 0) took.push_back(std::chrono::duration<double, std::micro>(end - start).count());
    for (int i = 0; i < n; ++i)
      if (results[i] != answer_of(signatures[i], host_table[slot_of(signatures[i])])) ++wrong;
  }
  if (style == "resident") box->request = ~0u;
  CHECK(cudaStreamSynchronize(stream));
  if (graph_exec != nullptr) CHECK(cudaGraphExecDestroy(graph_exec));
  CHECK(cudaFree(found));
  CHECK(cudaFree(extra));
  CHECK(cudaFree(blocks_done));
  CHECK(cudaFreeHost(signatures));
  CHECK(cudaFreeHost(results));
  CHECK(cudaFreeHost(flag));
  CHECK(cudaFreeHost(box));
  CHECK(cudaEventDestroy(done));
  CHECK(cudaStreamDestroy(stream));
  return took;
}

int whole(std::string_view arg, std::string_view name, int fallback) {
  if (arg.substr(0, name.size()) != name) return fallback;
  return std::atoi(std::string(arg.substr(name.size())).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  // Every kernel loaded at the start: loading one later would wait for the
  // resident kernels running then (server/index/gpu_resident.cuh).
  setenv("CUDA_MODULE_LOADING", "EAGER", /*overwrite=*/0);
  options opts;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::puts("usage: gpuhash-submission-latency [--searches=64] [--runs=2001]");
      return 0;
    }
    opts.searches = whole(arg, "--searches=", opts.searches);
    opts.runs = whole(arg, "--runs=", opts.runs);
  }
  if (opts.searches < 1 || opts.searches > (1 << 20) || opts.runs < 5) {
    std::fputs("gpuhash-submission-latency: --searches in [1, 2^20], --runs >= 5\n", stderr);
    return 64;
  }
  cudaDeviceProp properties{};
  CHECK(cudaGetDeviceProperties(&properties, 0));
  // The table: random words, so an answer cannot be right by accident.
  std::vector<std::uint64_t> host_table(table_words);
  std::uint64_t state = 12345;
  for (std::uint64_t& word : host_table) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    word = state;
  }
  std::uint64_t* table;
  CHECK(cudaMalloc(&table, sizeof(std::uint64_t) * table_words));
  CHECK(cudaMemcpy(table, host_table.data(), sizeof(std::uint64_t) * table_words,
                   cudaMemcpyHostToDevice));
  const char* styles[] = {
      "two_kernels_event", "plus_four_queued", "one_kernel_event", "one_kernel_flag", "graph",
      "resident"};
  std::atomic<long> wrong{0};
  std::printf("# %s, %d searches a batch\n", properties.name, opts.searches);
  for (int threads : {1, 4}) {
    for (int gap_us : {0, 500}) {
      for (const char* style : styles) {
        const int runs = gap_us != 0 ? std::max(5, opts.runs / 5) : opts.runs;
        std::vector<std::vector<double>> took(static_cast<std::size_t>(threads));
        std::vector<std::thread> workers;
        for (int t = 0; t < threads; ++t)
          workers.emplace_back([&, t] {
            took[static_cast<std::size_t>(t)] =
                measure(style, opts.searches, runs, gap_us, table, host_table, wrong);
          });
        for (std::thread& worker : workers) worker.join();
        std::vector<double> all;
        for (const auto& one : took) all.insert(all.end(), one.begin(), one.end());
        std::printf("threads %d gap %3d us %-18s p50 %6.1f us  p90 %6.1f  p99 %6.1f  max %7.1f\n",
                    threads, gap_us, style, percentile(all, 0.5), percentile(all, 0.9),
                    percentile(all, 0.99), percentile(all, 1.0));
        std::fflush(stdout);
      }
    }
  }
  CHECK(cudaFree(table));
  if (wrong != 0) {
    std::fprintf(stderr, "gpuhash-submission-latency: %ld wrong answers\n", wrong.load());
    return 1;
  }
  return 0;
}
