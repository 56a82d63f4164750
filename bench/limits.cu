// Microbenchmarks of random access: the ceilings a hash table is measured
// against. Each thread makes one access per key at a random line of a buffer
// far larger than the L2 cache; loads are 16 bytes wide. And the device's
// copy bandwidth, the yardstick of rates in bytes.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/cuda/error.hpp"
#include "gpuhash/cuda/occupancy.hpp"
#include "gpuhash/hash.hpp"
#include "limits.hpp"
#include "timer.hpp"

namespace gpuhash::bench {

namespace {

constexpr std::uint64_t accesses = std::uint64_t{1} << 26;

__device__ std::uint64_t line_of(std::uint64_t i, std::uint64_t seed, std::uint64_t lines) {
  return reduce_range(murmur3_fmix64(i ^ seed), lines);
}

/// Reads Vectors x 16 bytes at one random line per key.
template <int Vectors>
__global__ void __launch_bounds__(256)
    random_read(const uint4* buffer, std::uint64_t lines, std::uint64_t n, std::uint64_t seed,
                std::uint32_t* sink) {
  std::uint32_t accumulator = 0;
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint4* line = buffer + line_of(i, seed, lines) * Vectors;
#pragma unroll
    for (int v = 0; v < Vectors; ++v) {
      const uint4 word = line[v];
      accumulator ^= word.x ^ word.y ^ word.z ^ word.w;
    }
  }
  if (accumulator == 0x9e3779b9U) *sink = accumulator;  // keeps the loads alive
}

__global__ void __launch_bounds__(256)
    two_random_reads(const uint4* buffer, std::uint64_t lines, std::uint64_t n, std::uint64_t seed,
                     std::uint32_t* sink) {
  std::uint32_t accumulator = 0;
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint4* first = buffer + line_of(i, seed, lines) * 4;
    const uint4* second = buffer + line_of(i, ~seed, lines) * 4;
#pragma unroll
    for (int v = 0; v < 4; ++v) {
      const uint4 a = first[v];
      const uint4 b = second[v];
      accumulator ^= a.x ^ a.w ^ b.x ^ b.w;
    }
  }
  if (accumulator == 0x9e3779b9U) *sink = accumulator;
}

__global__ void __launch_bounds__(256)
    random_cas(unsigned long long* words, std::uint64_t count, std::uint64_t n, std::uint64_t seed,
               std::uint32_t* sink) {
  unsigned long long accumulator = 0;
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
    accumulator ^= atomicCAS(words + line_of(i, seed, count), i, i + 1);
  if (accumulator == 0x9e3779b9ULL) *sink = 1;
}

/// A 64-byte read, then a CAS on the first word of the same line whose
/// expected value is what was read (so the CAS waits for the read).
__global__ void __launch_bounds__(256)
    read_then_cas(uint4* buffer, std::uint64_t lines, std::uint64_t n, std::uint64_t seed,
                  std::uint32_t* sink) {
  unsigned long long accumulator = 0;
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    uint4* line = buffer + line_of(i, seed, lines) * 4;
    std::uint32_t folded = 0;
#pragma unroll
    for (int v = 0; v < 4; ++v) {
      const uint4 word = line[v];
      folded ^= word.x ^ word.y ^ word.z ^ word.w;
    }
    auto* target = reinterpret_cast<unsigned long long*>(line);
    accumulator ^= atomicCAS(target, folded, folded + 1);
  }
  if (accumulator == 0x9e3779b9ULL) *sink = 1;
}

/// As read_then_cas, but the CAS expects the word that was read, so it
/// succeeds (unless another thread got there first) and dirties the line: the
/// pattern of an insert.
__global__ void __launch_bounds__(256)
    read_then_cas_write(uint4* buffer, std::uint64_t lines, std::uint64_t n, std::uint64_t seed,
                        std::uint32_t* sink) {
  unsigned long long accumulator = 0;
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    uint4* line = buffer + line_of(i, seed, lines) * 4;
    const uint4 first = line[0];
    const uint4 rest = line[1];
    auto* target = reinterpret_cast<unsigned long long*>(line);
    const unsigned long long expected = (static_cast<unsigned long long>(first.y) << 32) | first.x;
    accumulator ^= atomicCAS(target, expected, expected + 1) ^ rest.x;
  }
  if (accumulator == 0x9e3779b9ULL) *sink = 1;
}

template <class Launch>
double rate(Launch&& launch, int repetitions) {
  step_timer<cuda_backend> timer;
  launch(0);  // warm-up
  std::vector<double> ms;
  for (int r = 1; r <= repetitions; ++r) ms.push_back(timer.time([&] { launch(r); }));
  std::sort(ms.begin(), ms.end());
  return static_cast<double>(accesses) / (ms[ms.size() / 2] * 1e6);
}

}  // namespace

access_limits measure_limits(int repetitions, std::uint64_t buffer_bytes) {
  auto buffer = cuda_backend::allocate<uint4>(buffer_bytes / sizeof(uint4));
  auto sink = cuda_backend::allocate<std::uint32_t>(1);
  cuda_backend::fill_bytes(buffer.data(), buffer_bytes, 0x5a);
  uint4* data = buffer.data();
  // Each kernel's grid, asked of the driver once (its first launch is the
  // warm-up, outside the timed region).
  std::map<const void*, int> grids;
  const auto blocks = [&grids](auto kernel) {
    const auto [it, added] = grids.try_emplace(reinterpret_cast<const void*>(kernel), 0);
    if (added) it->second = cuda::resident_blocks(kernel, 256);
    return it->second;
  };
  const auto seed = [](int r) { return murmur3_fmix64(0x1234 + static_cast<std::uint64_t>(r)); };

  access_limits limits;
  limits.random_read_32 = rate(
      [&](int r) {
        random_read<2><<<blocks(random_read<2>), 256>>>(data, buffer_bytes / 32, accesses, seed(r),
                                                        sink.data());
      },
      repetitions);
  limits.random_read_64 = rate(
      [&](int r) {
        random_read<4><<<blocks(random_read<4>), 256>>>(data, buffer_bytes / 64, accesses, seed(r),
                                                        sink.data());
      },
      repetitions);
  limits.random_read_128 = rate(
      [&](int r) {
        random_read<8><<<blocks(random_read<8>), 256>>>(data, buffer_bytes / 128, accesses, seed(r),
                                                        sink.data());
      },
      repetitions);
  limits.two_reads_64 = rate(
      [&](int r) {
        two_random_reads<<<blocks(two_random_reads), 256>>>(data, buffer_bytes / 64, accesses,
                                                            seed(r), sink.data());
      },
      repetitions);
  limits.cas_8 = rate(
      [&](int r) {
        random_cas<<<blocks(random_cas), 256>>>(reinterpret_cast<unsigned long long*>(data),
                                                buffer_bytes / 8, accesses, seed(r), sink.data());
      },
      repetitions);
  limits.read_then_cas = rate(
      [&](int r) {
        read_then_cas<<<blocks(read_then_cas), 256>>>(data, buffer_bytes / 64, accesses, seed(r),
                                                      sink.data());
      },
      repetitions);
  limits.read_then_cas_write = rate(
      [&](int r) {
        read_then_cas_write<<<blocks(read_then_cas_write), 256>>>(data, buffer_bytes / 64, accesses,
                                                                  seed(r), sink.data());
      },
      repetitions);
  GPUHASH_CUDA_TRY(cudaGetLastError());
  return limits;
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
