// gpuhash-submission-latency: how long a tiny GPU batch takes from the
// host's call to its answer, by the way it is submitted: the measurement
// behind the resident kernel (server/index/gpu_resident.cuh). The
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

/// What one host thread's batches use: a stream, an event, the batch's
/// page-locked and device arrays, and, by style, a graph or a resident
/// kernel started before the first batch.
struct batch_buffers {
  int n = 0;
  unsigned blocks = 0;
  cudaStream_t stream = nullptr;
  cudaEvent_t done = nullptr;
  std::uint32_t *signatures = nullptr, *results = nullptr, *found = nullptr, *extra = nullptr,
                *flag = nullptr;
  unsigned* blocks_done = nullptr;
  mailbox* box = nullptr;
  cudaGraphExec_t graph_exec = nullptr;
};

batch_buffers make_buffers(int n) {
  batch_buffers b;
  b.n = n;
  b.blocks = static_cast<unsigned>((n + block_size - 1) / block_size);
  CHECK(cudaStreamCreateWithFlags(&b.stream, cudaStreamNonBlocking));
  CHECK(cudaEventCreateWithFlags(&b.done, cudaEventDisableTiming));
  CHECK(cudaMallocHost(&b.signatures, sizeof(std::uint32_t) * n));
  CHECK(cudaMallocHost(&b.results, sizeof(std::uint32_t) * n));
  CHECK(cudaMallocHost(&b.flag, sizeof(std::uint32_t)));
  CHECK(cudaMallocHost(&b.box, sizeof(mailbox)));
  CHECK(cudaMalloc(&b.found, sizeof(std::uint32_t) * n));
  CHECK(cudaMalloc(&b.extra, sizeof(std::uint32_t) * n));
  CHECK(cudaMalloc(&b.blocks_done, sizeof(unsigned)));
  CHECK(cudaMemset(b.blocks_done, 0, sizeof(unsigned)));
  *b.flag = 0;
  b.box->request = 0;
  b.box->count = 0;
  b.box->answered = 0;
  return b;
}

/// What a style sets up before its first batch: a graph of the two kernels,
/// or the resident kernel.
void start_style(const std::string& style, batch_buffers& b, const std::uint64_t* table) {
  if (style == "graph") {
    cudaGraph_t graph;
    CHECK(cudaStreamBeginCapture(b.stream, cudaStreamCaptureModeThreadLocal));
    search_kernel<<<b.blocks, block_size, 0, b.stream>>>(b.signatures, b.found, b.n, table);
    pack_kernel<<<b.blocks, block_size, 0, b.stream>>>(b.found, b.results, b.n);
    CHECK(cudaStreamEndCapture(b.stream, &graph));
    CHECK(cudaGraphInstantiate(&b.graph_exec, graph, 0));
    CHECK(cudaGraphDestroy(graph));
  }
  if (style == "resident")
    resident_kernel<<<1, block_size, 0, b.stream>>>(b.box, b.signatures, b.results, table);
  CHECK(cudaGetLastError());
}

/// One batch in `style`, returning once its results are in.
void run_batch(const std::string& style, batch_buffers& b, const std::uint64_t* table,
               std::uint32_t batch) {
  if (style == "two_kernels_event" || style == "plus_four_queued") {
    search_kernel<<<b.blocks, block_size, 0, b.stream>>>(b.signatures, b.found, b.n, table);
    pack_kernel<<<b.blocks, block_size, 0, b.stream>>>(b.found, b.results, b.n);
    CHECK(cudaEventRecord(b.done, b.stream));
    if (style == "plus_four_queued") {
      CHECK(cudaMemsetAsync(b.extra, 0, sizeof(std::uint32_t), b.stream));
      search_kernel<<<b.blocks, block_size, 0, b.stream>>>(b.signatures, b.extra, b.n, table);
      search_kernel<<<b.blocks, block_size, 0, b.stream>>>(b.signatures, b.extra, b.n, table);
      CHECK(cudaMemcpyAsync(b.flag, b.extra, sizeof(std::uint32_t), cudaMemcpyDeviceToHost,
                            b.stream));
    }
    CHECK(cudaEventSynchronize(b.done));
  } else if (style == "one_kernel_event") {
    fused_kernel<<<b.blocks, block_size, 0, b.stream>>>(b.signatures, b.results, b.n, table,
                                                        b.blocks_done, nullptr, 0);
    CHECK(cudaEventRecord(b.done, b.stream));
    CHECK(cudaEventSynchronize(b.done));
  } else if (style == "one_kernel_flag") {
    fused_kernel<<<b.blocks, block_size, 0, b.stream>>>(b.signatures, b.results, b.n, table,
                                                        b.blocks_done, b.flag, batch);
    while (*static_cast<volatile std::uint32_t*>(b.flag) != batch) {
    }
  } else if (style == "graph") {
    CHECK(cudaGraphLaunch(b.graph_exec, b.stream));
    CHECK(cudaEventRecord(b.done, b.stream));
    CHECK(cudaEventSynchronize(b.done));
  } else if (style == "resident") {
    b.box->count = static_cast<std::uint32_t>(b.n);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    b.box->request = batch;
    while (b.box->answered != batch) {
    }
  }
}

void free_buffers(const std::string& style, batch_buffers& b) {
  if (style == "resident") b.box->request = ~0u;
  CHECK(cudaStreamSynchronize(b.stream));
  if (b.graph_exec != nullptr) CHECK(cudaGraphExecDestroy(b.graph_exec));
  CHECK(cudaFree(b.found));
  CHECK(cudaFree(b.extra));
  CHECK(cudaFree(b.blocks_done));
  CHECK(cudaFreeHost(b.signatures));
  CHECK(cudaFreeHost(b.results));
  CHECK(cudaFreeHost(b.flag));
  CHECK(cudaFreeHost(b.box));
  CHECK(cudaEventDestroy(b.done));
  CHECK(cudaStreamDestroy(b.stream));
}

/// One host thread's batches in one style; returns the round trips in us.
std::vector<double> measure(const std::string& style, int n, int runs, int gap_us,
                            const std::uint64_t* table,
                            const std::vector<std::uint64_t>& host_table,
                            std::atomic<long>& wrong) {
  batch_buffers b = make_buffers(n);
  start_style(style, b, table);
  std::vector<double> took;
  std::uint64_t draw = 0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(n + gap_us);
  for (int run = 0; run <= runs; ++run) {  // run 0 warms up
    for (int i = 0; i < n; ++i) {
      draw = draw * 6364136223846793005ULL + 1442695040888963407ULL;
      b.signatures[i] = static_cast<std::uint32_t>(draw >> 32) | 1u;  // fresh, never 0
    }
    if (gap_us != 0) {
      const auto until = clock_type::now() + std::chrono::microseconds(gap_us);
      while (clock_type::now() < until) std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    const auto start = clock_type::now();
    run_batch(style, b, table, static_cast<std::uint32_t>(run + 1));
    const auto end = clock_type::now();
    if (run != 0) took.push_back(std::chrono::duration<double, std::micro>(end - start).count());
    for (int i = 0; i < n; ++i)
      if (b.results[i] != answer_of(b.signatures[i], host_table[slot_of(b.signatures[i])])) ++wrong;
  }
  free_buffers(style, b);
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
