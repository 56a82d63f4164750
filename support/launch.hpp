#pragma once
// Runs a host+device functor f(i) for every i in [0, n): on CPU threads for
// the CPU backend, as a CUDA grid-stride kernel for the CUDA backend (from
// .cu files); and the one atomic such functors often need, an add to a
// counter that many threads share (a position in an output they append to).
// The examples, the tests of refs and gpuhash-bench write a kernel that uses
// a table's ref once, as such a functor, and run it on either backend with
// this (docs/device_api.md). Not part of the library: a program of the
// user's launches its kernels its own way.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/host_device.hpp"
#if defined(__CUDACC__)
#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/cuda/error.hpp"
#include "gpuhash/cuda/occupancy.hpp"
#endif

namespace gpuhash::support {

/// Adds `value` to *counter (32 or 64 bits) atomically and returns what it
/// held before.
template <class T>
GPUHASH_HD T fetch_add(T* counter, T value) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "gpuhash::support::fetch_add: 32 or 64 bits");
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 4)
    return static_cast<T>(
        atomicAdd(reinterpret_cast<unsigned*>(counter), static_cast<unsigned>(value)));
  else
    return static_cast<T>(atomicAdd(reinterpret_cast<unsigned long long*>(counter),
                                    static_cast<unsigned long long>(value)));
#else
  return std::atomic_ref<T>(*counter).fetch_add(value, std::memory_order_relaxed);
#endif
}

template <class Backend>
struct launcher;

template <>
struct launcher<cpu_backend> {
  /// Threads that run a functor unless told otherwise: the machine's, and
  /// at least four, so that concurrent calls interleave also on small
  /// machines (the tests rely on it).
  static unsigned default_threads() { return std::max(4U, std::thread::hardware_concurrency()); }

  /// f(i) for every i: `threads` threads take chunks of `chunk` indices in
  /// turn, so that threads meet on the same keys.
  template <class F>
  static void for_each(std::uint64_t n, const F& f, cpu::stream = {}, unsigned threads = 0,
                       std::uint64_t chunk = 256) {
    if (n == 0) return;
    if (threads == 0) threads = default_threads();
    std::atomic<std::uint64_t> next{0};
    const auto work = [&] {
      for (;;) {
        const std::uint64_t begin = next.fetch_add(chunk, std::memory_order_relaxed);
        if (begin >= n) return;
        const std::uint64_t end = std::min(n, begin + chunk);
        for (std::uint64_t i = begin; i < end; ++i) f(i);
      }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (auto& thread : pool) thread.join();
  }
};

#if defined(__CUDACC__)
inline constexpr int launch_block_size = 256;

template <class F>
__global__ void __launch_bounds__(launch_block_size) for_each_index(std::uint64_t n, F f) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
    f(i);
}

template <>
struct launcher<cuda_backend> {
  /// f(i) for every i, as a grid-stride kernel of as many blocks as the
  /// device runs at once (or fewer, for small n), queued on `stream`.
  template <class F>
  static void for_each(std::uint64_t n, const F& f, cudaStream_t stream = nullptr) {
    if (n == 0) return;
    const auto kernel = for_each_index<F>;
    static const int resident_blocks = cuda::resident_blocks(kernel, launch_block_size);
    const std::uint64_t needed = (n + launch_block_size - 1) / launch_block_size;
    const int blocks = static_cast<int>(
        std::min<std::uint64_t>(needed, static_cast<std::uint64_t>(resident_blocks)));
    kernel<<<blocks, launch_block_size, 0, stream>>>(n, f);
    GPUHASH_CUDA_TRY(cudaGetLastError());
  }
};
#endif

}  // namespace gpuhash::support
