// Microbenchmarks of random access: the ceilings a hash table's operations are
// judged against (limits.hpp lists the patterns). Access i of a run goes to a
// position hashed from i and the run's seed (random_positions.hpp), so every
// run of a grid reads positions of its own. Loaded values are folded into a
// sink that is written only on an unlikely match, so no load can be left out;
// the atomics count what they did against what the limit says, and a limit
// whose atomics did otherwise is not reported. And the device's copy bandwidth,
// the yardstick of rates in bytes.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cuda/atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/cuda/error.hpp"
#include "gpuhash/cuda/occupancy.hpp"
#include "limits.hpp"
#include "random_positions.hpp"
#include "timer.hpp"

namespace gpuhash::bench {

namespace {

constexpr std::uint64_t accesses_per_run = std::uint64_t{1} << 26;
constexpr int block_threads = 256;
/// Every buffer is filled with this byte before its runs.
constexpr unsigned char fill_byte = 0x5a;
/// A word that no buffer holds: the expected value of the CASes that must fail
/// (cas_8's words only ever hold the fill; read_then_cas expects another value
/// than the one it read).
constexpr unsigned long long absent_word = 0xa5a5a5a5a5a5a5a5ULL;
/// What folded loads are compared with: the sink is written only on a match,
/// which the compiler cannot rule out, so it must make every load.
constexpr std::uint32_t sink_marker = 0x9e3779b9U;

__device__ std::uint32_t fold(uint4 piece) {
  return piece.x ^ piece.y ^ piece.z ^ piece.w;
}

/// Per access, Reads independent random lines of LineBytes, each read by a
/// tile of Lanes threads with one 16-byte load per lane: a tile of
/// LineBytes / 16 lanes reads a whole line in one request; one lane reading a
/// 32-byte sector loads its first 16 bytes (memory moves the whole sector).
template <int LineBytes, int Lanes, int Reads>
__global__ void __launch_bounds__(block_threads)
    random_reads(const uint4* buffer, std::uint64_t lines, std::uint64_t accesses,
                 std::uint64_t seed, std::uint32_t* sink) {
  static_assert(LineBytes % 16 == 0 && Lanes <= LineBytes / 16 && block_threads % Lanes == 0,
                "a tile's lanes read distinct 16-byte pieces of one line, within one block");
  constexpr int pieces_per_line = LineBytes / 16;
  const std::uint64_t thread = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const std::uint64_t tiles = std::uint64_t{gridDim.x} * blockDim.x / Lanes;
  const std::uint64_t lane = thread % Lanes;
  std::uint32_t folded = 0;
  for (std::uint64_t access = thread / Lanes; access < accesses; access += tiles) {
    uint4 pieces[Reads];
#pragma unroll
    for (int r = 0; r < Reads; ++r) {
      const std::uint64_t line = random_position(access, murmur3_fmix64(seed + r), lines);
      pieces[r] = buffer[line * pieces_per_line + lane];
    }
#pragma unroll
    for (int r = 0; r < Reads; ++r) folded ^= fold(pieces[r]);
  }
  if (folded == sink_marker) *sink = folded;
}

/// Per access, an 8-byte read at a random entry of `directory` (a buffer that
/// fits in L2), then one random sector of `buffer` whose position depends on
/// the entry read, so the second read waits for the first.
__global__ void __launch_bounds__(block_threads)
    l2_then_random_read(const unsigned long long* directory, std::uint64_t entries,
                        const uint4* buffer, std::uint64_t sectors, std::uint64_t accesses,
                        std::uint64_t seed, std::uint32_t* sink) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  std::uint32_t folded = 0;
  for (std::uint64_t access = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
       access < accesses; access += stride) {
    const unsigned long long entry = directory[random_position(access, seed, entries)];
    const uint4 piece = buffer[random_position(access ^ entry, ~seed, sectors) * 2];
    folded ^= fold(piece);
  }
  if (folded == sink_marker) *sink = folded;
}

/// Per access, a CAS of a random word, with no read before it, expecting
/// absent_word: it fails and writes nothing. Counts the CASes that succeeded.
__global__ void __launch_bounds__(block_threads)
    failing_cas(unsigned long long* words, std::uint64_t count, std::uint64_t accesses,
                std::uint64_t seed, unsigned long long* surprises) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  unsigned long long succeeded = 0;
  for (std::uint64_t access = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
       access < accesses; access += stride)
    succeeded +=
        atomicCAS(words + random_position(access, seed, count), absent_word, access) == absent_word;
  if (succeeded != 0) atomicAdd(surprises, succeeded);
}

/// Per access, a CAS of a word of its own (a permutation of the words, so
/// accesses <= count), with no read before it, expecting zero (the words are
/// zeroed before each run): it succeeds and writes. Counts the CASes that
/// failed.
__global__ void __launch_bounds__(block_threads)
    succeeding_cas(unsigned long long* words, position_permutation permutation,
                   std::uint64_t accesses, unsigned long long* surprises) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  unsigned long long failed = 0;
  for (std::uint64_t access = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
       access < accesses; access += stride)
    failed += atomicCAS(words + permutation(access), 0ULL, access + 1) != 0ULL;
  if (failed != 0) atomicAdd(surprises, failed);
}

/// Per access, a relaxed 8-byte load of a random word, then a CAS of that
/// word: with Succeed, expecting the value read, so it succeeds unless
/// another access changed the word in between, and the sector is written
/// back; otherwise expecting another value, so it fails. Counts the CASes
/// that did otherwise.
template <bool Succeed>
__global__ void __launch_bounds__(block_threads)
    read_then_cas(unsigned long long* words, std::uint64_t count, std::uint64_t accesses,
                  std::uint64_t seed, unsigned long long* surprises) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  unsigned long long otherwise = 0;
  for (std::uint64_t access = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
       access < accesses; access += stride) {
    unsigned long long& word = words[random_position(access, seed, count)];
    const unsigned long long seen =
        ::cuda::atomic_ref<unsigned long long, ::cuda::thread_scope_device>(word).load(
            ::cuda::memory_order_relaxed);
    const unsigned long long expected = Succeed ? seen : ~seen;
    const bool swapped = atomicCAS(&word, expected, seen + 1) == expected;
    otherwise += swapped != Succeed;
  }
  if (otherwise != 0) atomicAdd(surprises, otherwise);
}

/// A weak 16-byte vector load (PTX ld.global.v2.u64), the load the tables
/// probe a bucket or a node's sector with: weak loads to one sector merge
/// and may be served by L1, unlike relaxed ones.
__device__ ulonglong2 weak_load_16(const unsigned long long* address) {
  ulonglong2 pair;
  asm volatile("ld.global.v2.u64 {%0, %1}, [%2];"
               : "=l"(pair.x), "=l"(pair.y)
               : "l"(address)
               : "memory");
  return pair;
}

/// Per access, a random 32-byte sector read the way a bucketed cuckoo table
/// or DACHash reads a bucket or a node's sector (two weak 16-byte loads),
/// then a CAS of its first word expecting the value read: it succeeds unless
/// another access changed the word in between, and the sector is written
/// back. Counts the CASes that failed.
__global__ void __launch_bounds__(block_threads)
    sector_read_then_cas(unsigned long long* words, std::uint64_t sectors, std::uint64_t accesses,
                         std::uint64_t seed, unsigned long long* surprises) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  unsigned long long failed = 0;
  for (std::uint64_t access = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
       access < accesses; access += stride) {
    unsigned long long* sector = words + 4 * random_position(access, seed, sectors);
    const ulonglong2 low = weak_load_16(sector);
    const ulonglong2 high = weak_load_16(sector + 2);
    // Both halves feed the CAS, so neither load can be left out.
    const unsigned long long seen = low.x;
    const unsigned long long expected =
        seen ^ ((low.y ^ high.x ^ high.y) & (low.y == sink_marker ? 1ULL : 0ULL));
    failed += atomicCAS(sector, expected, seen + 1) != expected;
  }
  if (failed != 0) atomicAdd(surprises, failed);
}

/// The grid of a grid-stride launch that fills the device with `kernel`.
template <class... Args>
int grid_of(void (*kernel)(Args...)) {
  return cuda::resident_blocks(kernel, block_threads);
}

/// The seed of repetition r (0: the warm-up).
std::uint64_t run_seed(int run) {
  return murmur3_fmix64(0x1234 + static_cast<std::uint64_t>(run));
}

/// G accesses/s of launch(seed): prepare() then the launch, one warm-up, then
/// the median of `repetitions` runs timed by CUDA events (prepare outside
/// the time).
template <class Prepare, class Launch>
double rate(std::uint64_t accesses, int repetitions, Prepare&& prepare, Launch&& launch) {
  step_timer<cuda_backend> timer;
  std::vector<double> ms;
  for (int run = 0; run <= repetitions; ++run) {
    prepare();
    const double elapsed = timer.time([&] { launch(run_seed(run)); });
    GPUHASH_CUDA_CHECK_LAUNCH(nullptr);
    if (run > 0) ms.push_back(elapsed);
  }
  return static_cast<double>(accesses) / (median(ms) * 1e6);
}

/// A limit is the best rate of its pattern over the number of threads in
/// flight: its kernel at 1/8, 2/8, ..., 8/8 of the blocks the device holds
/// at once. More requests in flight do not always serve more: random
/// read-then-CAS runs faster below full occupancy on the H200
/// (docs/results/limits.md, "Threads in flight").
constexpr int grid_steps = 8;

/// rate() of launch(grid, seed) at each of the grid_steps grids, the best.
template <class Prepare, class Launch>
double best_rate(int resident_blocks, std::uint64_t accesses, int repetitions, Prepare&& prepare,
                 Launch&& launch) {
  double best = 0;
  for (int step = 1; step <= grid_steps; ++step) {
    const int grid = std::max(1, resident_blocks * step / grid_steps);
    best = std::max(best, rate(accesses, repetitions, prepare,
                               [&](std::uint64_t seed) { launch(grid, seed); }));
  }
  return best;
}

/// Bytes of half the device's L2 cache: a buffer every access of which can hit L2.
std::uint64_t half_l2_bytes() {
  int device = 0;
  int l2_bytes = 0;
  GPUHASH_CUDA_TRY(cudaGetDevice(&device));
  GPUHASH_CUDA_TRY(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  return std::max<std::uint64_t>(std::uint64_t{1} << 20, static_cast<std::uint64_t>(l2_bytes) / 2);
}

/// Reads Reads x LineBytes per access from `buffer_bytes` of buffer, by tiles
/// of LineBytes / 16 lanes (one lane for a sector).
template <int LineBytes, int Reads>
double measure_reads(std::uint64_t buffer_bytes, int repetitions) {
  constexpr int lanes = LineBytes == 32 ? 1 : LineBytes / 16;
  auto buffer = cuda_backend::allocate<uint4>(buffer_bytes / sizeof(uint4));
  auto sink = cuda_backend::allocate<std::uint32_t>(1);
  cuda_backend::fill_bytes(buffer.data(), buffer_bytes, fill_byte);
  const auto kernel = random_reads<LineBytes, lanes, Reads>;
  return best_rate(
      grid_of(kernel), accesses_per_run, repetitions, [] {},
      [&](int grid, std::uint64_t seed) {
        kernel<<<grid, block_threads>>>(buffer.data(), buffer_bytes / LineBytes, accesses_per_run,
                                        seed, sink.data());
      });
}

double measure_l2_then_read(std::uint64_t buffer_bytes, int repetitions) {
  const std::uint64_t directory_bytes = half_l2_bytes();
  auto directory = cuda_backend::allocate<unsigned long long>(directory_bytes / 8);
  auto buffer = cuda_backend::allocate<uint4>(buffer_bytes / sizeof(uint4));
  auto sink = cuda_backend::allocate<std::uint32_t>(1);
  cuda_backend::fill_bytes(directory.data(), directory_bytes, fill_byte);
  cuda_backend::fill_bytes(buffer.data(), buffer_bytes, fill_byte);
  return best_rate(
      grid_of(l2_then_random_read), accesses_per_run, repetitions, [] {},
      [&](int grid, std::uint64_t seed) {
        l2_then_random_read<<<grid, block_threads>>>(directory.data(), directory_bytes / 8,
                                                     buffer.data(), buffer_bytes / 32,
                                                     accesses_per_run, seed, sink.data());
      });
}

/// Throws unless the atomics of a limit did what it says: `surprises` of
/// `atomics` did otherwise, and at most `tolerated` (a share) may.
void require_atomics(const char* limit, const unsigned long long* surprises, std::uint64_t atomics,
                     double tolerated) {
  unsigned long long count = 0;
  cuda_backend::copy_to_host(&count, surprises, 1);
  if (static_cast<double>(count) > tolerated * static_cast<double>(atomics))
    throw std::runtime_error(std::string("limit ") + limit + ": " + std::to_string(count) + " of " +
                             std::to_string(atomics) +
                             " CASes did not do what the limit measures; its rate would mean "
                             "something else");
}

template <bool Succeed>
double measure_read_then_cas(std::uint64_t buffer_bytes, int repetitions) {
  const std::uint64_t words = buffer_bytes / 8;
  auto buffer = cuda_backend::allocate<unsigned long long>(words);
  auto surprises = cuda_backend::allocate<unsigned long long>(1);
  cuda_backend::fill_bytes(buffer.data(), buffer_bytes, fill_byte);
  cuda_backend::fill_bytes(surprises.data(), sizeof(unsigned long long), 0);
  const auto kernel = read_then_cas<Succeed>;
  const int resident = grid_of(kernel);
  const double gops = best_rate(
      resident, accesses_per_run, repetitions, [] {},
      [&](int grid, std::uint64_t seed) {
        kernel<<<grid, block_threads>>>(buffer.data(), words, accesses_per_run, seed,
                                        surprises.data());
      });
  // A succeeding CAS loses only to another access of its word between its
  // load and its CAS: rare where the words far outnumber the accesses in
  // flight, and more than 1% there would mean a broken kernel. Over fewer
  // words (a table that fits in L2) accesses contend for words and many
  // CASes lose: the limit then includes that contention, as the writes of
  // so small a table would (docs/results/limits.md).
  const bool contended = words < std::uint64_t{64} * resident * block_threads;
  require_atomics(Succeed ? "read_then_cas_write" : "read_then_cas", surprises.data(),
                  static_cast<std::uint64_t>(grid_steps) * (repetitions + 1) * accesses_per_run,
                  !Succeed    ? 0.0
                  : contended ? 1.0
                              : 0.01);
  return gops;
}

double measure_sector_read_then_cas(std::uint64_t buffer_bytes, int repetitions) {
  const std::uint64_t sectors = buffer_bytes / 32;
  auto buffer = cuda_backend::allocate<unsigned long long>(sectors * 4);
  auto surprises = cuda_backend::allocate<unsigned long long>(1);
  cuda_backend::fill_bytes(buffer.data(), sectors * 32, fill_byte);
  cuda_backend::fill_bytes(surprises.data(), sizeof(unsigned long long), 0);
  const int resident = grid_of(sector_read_then_cas);
  const double gops = best_rate(
      resident, accesses_per_run, repetitions, [] {},
      [&](int grid, std::uint64_t seed) {
        sector_read_then_cas<<<grid, block_threads>>>(buffer.data(), sectors, accesses_per_run,
                                                      seed, surprises.data());
      });
  // As read_then_cas_write: a CAS loses only to another access of its
  // sector between its loads and its CAS.
  const bool contended = sectors < std::uint64_t{64} * resident * block_threads;
  require_atomics("sector_read_then_cas_write", surprises.data(),
                  static_cast<std::uint64_t>(grid_steps) * (repetitions + 1) * accesses_per_run,
                  contended ? 1.0 : 0.01);
  return gops;
}

double measure_failing_cas(std::uint64_t buffer_bytes, int repetitions) {
  const std::uint64_t words = buffer_bytes / 8;
  auto buffer = cuda_backend::allocate<unsigned long long>(words);
  auto surprises = cuda_backend::allocate<unsigned long long>(1);
  cuda_backend::fill_bytes(buffer.data(), buffer_bytes, fill_byte);
  cuda_backend::fill_bytes(surprises.data(), sizeof(unsigned long long), 0);
  const double gops = best_rate(
      grid_of(failing_cas), accesses_per_run, repetitions, [] {},
      [&](int grid, std::uint64_t seed) {
        failing_cas<<<grid, block_threads>>>(buffer.data(), words, accesses_per_run, seed,
                                             surprises.data());
      });
  require_atomics("cas_8", surprises.data(),
                  static_cast<std::uint64_t>(grid_steps) * (repetitions + 1) * accesses_per_run,
                  0.0);
  return gops;
}

double measure_succeeding_cas(std::uint64_t buffer_bytes, int repetitions) {
  const std::uint64_t words = buffer_bytes / 8;
  const std::uint64_t accesses = std::min(accesses_per_run, words);  // each word at most once
  auto buffer = cuda_backend::allocate<unsigned long long>(words);
  auto surprises = cuda_backend::allocate<unsigned long long>(1);
  cuda_backend::fill_bytes(surprises.data(), sizeof(unsigned long long), 0);
  const double gops = best_rate(
      grid_of(succeeding_cas), accesses, repetitions,
      [&] { cuda_backend::fill_bytes(buffer.data(), buffer_bytes, 0); },
      [&](int grid, std::uint64_t seed) {
        succeeding_cas<<<grid, block_threads>>>(
            buffer.data(), position_permutation::over(words, seed), accesses, surprises.data());
      });
  require_atomics("cas_8_write", surprises.data(),
                  static_cast<std::uint64_t>(grid_steps) * (repetitions + 1) * accesses, 0.0);
  return gops;
}

}  // namespace

access_measurement measure_access_limit(std::string_view name, std::uint64_t table_bytes,
                                        int repetitions) {
  const access_limit* limit = find_access_limit(name);
  if (limit == nullptr)
    throw std::invalid_argument("no access limit named '" + std::string(name) +
                                "' (limits.hpp lists them)");
  const std::uint64_t bytes =
      limit->footprint == limit_footprint::l2 ? half_l2_bytes() : limit_buffer_bytes(table_bytes);
  double gops = 0;
  if (name == "random_read_32" || name == "random_read_32_l2")
    gops = measure_reads<32, 1>(bytes, repetitions);
  else if (name == "random_read_64")
    gops = measure_reads<64, 1>(bytes, repetitions);
  else if (name == "random_read_128")
    gops = measure_reads<128, 1>(bytes, repetitions);
  else if (name == "two_reads_32" || name == "two_reads_32_l2")
    gops = measure_reads<32, 2>(bytes, repetitions);
  else if (name == "two_reads_64")
    gops = measure_reads<64, 2>(bytes, repetitions);
  else if (name == "l2_then_random_read_32")
    gops = measure_l2_then_read(bytes, repetitions);
  else if (name == "cas_8")
    gops = measure_failing_cas(bytes, repetitions);
  else if (name == "cas_8_write")
    gops = measure_succeeding_cas(bytes, repetitions);
  else if (name == "read_then_cas")
    gops = measure_read_then_cas<false>(bytes, repetitions);
  else if (name == "read_then_cas_write")
    gops = measure_read_then_cas<true>(bytes, repetitions);
  else if (name == "sector_read_then_cas_write")
    gops = measure_sector_read_then_cas(bytes, repetitions);
  else
    throw std::logic_error("limits.cu has no kernel for the limit '" + std::string(name) + "'");
  return {gops, bytes};
}

copy_limit measure_cuda_copy(int repetitions, std::uint64_t buffer_bytes) {
  auto source = cuda_backend::allocate<unsigned char>(buffer_bytes);
  auto destination = cuda_backend::allocate<unsigned char>(buffer_bytes);
  cuda_backend::fill_bytes(source.data(), buffer_bytes, 0x5a);
  cuda_backend::fill_bytes(destination.data(), buffer_bytes, 0);
  const auto copy = [&] { cuda_backend::copy(destination.data(), source.data(), buffer_bytes); };
  step_timer<cuda_backend> timer;
  timer.time(copy);  // warm-up
  std::vector<double> ms;
  for (int r = 0; r < repetitions; ++r) ms.push_back(timer.time(copy));
  return {static_cast<double>(buffer_bytes) / (median(ms) * 1e-3), buffer_bytes};
}

}  // namespace gpuhash::bench
