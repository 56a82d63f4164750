#pragma once
// The one atomics wrapper of the library. Per-key algorithms are written once,
// as host+device functions, against these calls: on the device they become
// libcu++'s cuda::atomic_ref at device scope, on the host std::atomic_ref.
// Memory orders are named in the function so a reader sees them at the call.

#include <cstdint>
#include <type_traits>

#include "gpuhash/host_device.hpp"

// Host only: NVRTC, which compiles device code alone, has neither
// (docs/device_api.md, "Kernels compiled at run time").
#if !defined(__CUDACC_RTC__)
#include <atomic>
#include <thread>
#endif

#if defined(__CUDACC__)
#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>
#include <cuda/atomic>
#endif

namespace gpuhash::detail {

#if defined(__CUDA_ARCH__)
template <class T>
using atomic_ref_t = ::cuda::atomic_ref<T, ::cuda::thread_scope_device>;
namespace mo = ::cuda::std;
#else
template <class T>
using atomic_ref_t = std::atomic_ref<T>;
namespace mo = std;
#endif

/// 16-byte words (16-byte keys and values, gpuhash/key_types.hpp) take the
/// same calls. On the device they are sm_90's 128-bit loads, stores and
/// atomics, issued by PTX here because libcu++ 13.0's 128-bit
/// compare-exchange does not compile; generic addresses, device scope. On
/// the host std::atomic_ref takes them: GCC sends 16-byte atomics to
/// libatomic, which uses cmpxchg16b (lock-free; the library links it).
GPUHASH_GNU_EXTENSION typedef unsigned __int128 word128;

#if defined(__CUDA_ARCH__)
namespace b128 {
__device__ GPUHASH_FORCEINLINE word128 join(std::uint64_t low, std::uint64_t high) {
  return (static_cast<word128>(high) << 64) | low;
}
__device__ GPUHASH_FORCEINLINE std::uint64_t low(word128 w) {
  return static_cast<std::uint64_t>(w);
}
__device__ GPUHASH_FORCEINLINE std::uint64_t high(word128 w) {
  return static_cast<std::uint64_t>(w >> 64);
}
template <bool acquire>
__device__ GPUHASH_FORCEINLINE word128 load(const word128* address) {
  std::uint64_t l, h;
  if constexpr (acquire)
    asm volatile("{ .reg .b128 d; ld.acquire.gpu.b128 d, [%2]; mov.b128 {%0, %1}, d; }"
                 : "=l"(l), "=l"(h)
                 : "l"(address)
                 : "memory");
  else
    asm volatile("{ .reg .b128 d; ld.relaxed.gpu.b128 d, [%2]; mov.b128 {%0, %1}, d; }"
                 : "=l"(l), "=l"(h)
                 : "l"(address)
                 : "memory");
  return join(l, h);
}
template <bool release>
__device__ GPUHASH_FORCEINLINE void store(word128* address, word128 value) {
  if constexpr (release)
    asm volatile(
        "{ .reg .b128 s; mov.b128 s, {%0, %1}; st.release.gpu.b128 [%2], s; }" ::"l"(low(value)),
        "l"(high(value)), "l"(address)
        : "memory");
  else
    asm volatile(
        "{ .reg .b128 s; mov.b128 s, {%0, %1}; st.relaxed.gpu.b128 [%2], s; }" ::"l"(low(value)),
        "l"(high(value)), "l"(address)
        : "memory");
}
template <bool acquire>
__device__ GPUHASH_FORCEINLINE word128 compare_exchange(word128* address, word128 expected,
                                                        word128 desired) {
  std::uint64_t l, h;
  if constexpr (acquire)
    asm volatile(
        "{ .reg .b128 d, c, v; mov.b128 c, {%2, %3}; mov.b128 v, {%4, %5};"
        " atom.acquire.gpu.cas.b128 d, [%6], c, v; mov.b128 {%0, %1}, d; }"
        : "=l"(l), "=l"(h)
        : "l"(low(expected)), "l"(high(expected)), "l"(low(desired)), "l"(high(desired)),
          "l"(address)
        : "memory");
  else
    asm volatile(
        "{ .reg .b128 d, c, v; mov.b128 c, {%2, %3}; mov.b128 v, {%4, %5};"
        " atom.relaxed.gpu.cas.b128 d, [%6], c, v; mov.b128 {%0, %1}, d; }"
        : "=l"(l), "=l"(h)
        : "l"(low(expected)), "l"(high(expected)), "l"(low(desired)), "l"(high(desired)),
          "l"(address)
        : "memory");
  return join(l, h);
}
__device__ GPUHASH_FORCEINLINE word128 exchange(word128* address, word128 desired) {
  std::uint64_t l, h;
  asm volatile(
      "{ .reg .b128 d, v; mov.b128 v, {%2, %3}; atom.relaxed.gpu.exch.b128 d, [%4], v;"
      " mov.b128 {%0, %1}, d; }"
      : "=l"(l), "=l"(h)
      : "l"(low(desired)), "l"(high(desired)), "l"(address)
      : "memory");
  return join(l, h);
}
}  // namespace b128
/// Whether T goes through b128 (device code only; on the host no type does).
template <class T>
inline constexpr bool is_b128 = std::is_same_v<T, word128>;
#endif

template <class T>
GPUHASH_HD GPUHASH_FORCEINLINE T load_relaxed(const T* address) {
#if defined(__CUDA_ARCH__)
  if constexpr (is_b128<T>) {
    return b128::load<false>(address);
  } else {
    return atomic_ref_t<T>(*const_cast<T*>(address)).load(mo::memory_order_relaxed);
  }
#else
  return atomic_ref_t<T>(*const_cast<T*>(address)).load(mo::memory_order_relaxed);
#endif
}

template <class T>
GPUHASH_HD GPUHASH_FORCEINLINE T load_acquire(const T* address) {
#if defined(__CUDA_ARCH__)
  if constexpr (is_b128<T>) {
    return b128::load<true>(address);
  } else {
    return atomic_ref_t<T>(*const_cast<T*>(address)).load(mo::memory_order_acquire);
  }
#else
  return atomic_ref_t<T>(*const_cast<T*>(address)).load(mo::memory_order_acquire);
#endif
}

template <class T>
GPUHASH_HD GPUHASH_FORCEINLINE void store_relaxed(T* address, T value) {
#if defined(__CUDA_ARCH__)
  if constexpr (is_b128<T>) {
    b128::store<false>(address, value);
  } else {
    atomic_ref_t<T>(*address).store(value, mo::memory_order_relaxed);
  }
#else
  atomic_ref_t<T>(*address).store(value, mo::memory_order_relaxed);
#endif
}

template <class T>
GPUHASH_HD GPUHASH_FORCEINLINE void store_release(T* address, T value) {
#if defined(__CUDA_ARCH__)
  if constexpr (is_b128<T>) {
    b128::store<true>(address, value);
  } else {
    atomic_ref_t<T>(*address).store(value, mo::memory_order_release);
  }
#else
  atomic_ref_t<T>(*address).store(value, mo::memory_order_release);
#endif
}

/// Two adjacent 64-bit words at a 16-byte aligned address, read for probing:
/// the value may be stale but each word is read whole. On the device this is
/// one weak vector load (PTX ld.global.v2.u64): PTX defines racing weak loads
/// (it does not require data-race freedom) and, unlike relaxed loads, weak
/// loads to one sector are merged and may be served by L1 (measured on the
/// H200: a probing find runs 31 G/s with weak 16-byte loads, 24 with relaxed
/// ones). It is issued through asm so that the C++ compiler sees no race. On
/// the host it is two relaxed atomic loads. Callers must tolerate stale words
/// (the tables validate every change by CAS) and must not spin on them.
struct word_pair {
  std::uint64_t first;
  std::uint64_t second;
};

/// With `from_l2`, the load reads L2, past the SM's L1 (PTX ld.global.cg):
/// for a kernel that outlives changes other kernels make (a resident
/// kernel), whose L1 may still hold lines from before them.
template <bool from_l2 = false>
GPUHASH_HD GPUHASH_FORCEINLINE word_pair load_pair_for_probe(const std::uint64_t* address) {
#if defined(__CUDA_ARCH__)
  word_pair pair;
  if constexpr (from_l2) {
    asm volatile("ld.global.cg.v2.u64 {%0, %1}, [%2];"
                 : "=l"(pair.first), "=l"(pair.second)
                 : "l"(address)
                 : "memory");
  } else {
    asm volatile("ld.global.v2.u64 {%0, %1}, [%2];"
                 : "=l"(pair.first), "=l"(pair.second)
                 : "l"(address)
                 : "memory");
  }
  return pair;
#else
  return {load_relaxed(address), load_relaxed(address + 1)};
#endif
}

/// Compare-and-swap that returns the value found at `address` (equal to
/// `expected` exactly when the swap happened). Relaxed: callers that publish
/// other data through the swapped word use store_release/load_acquire.
template <class T>
GPUHASH_HD GPUHASH_FORCEINLINE T compare_exchange_relaxed(T* address, T expected, T desired) {
#if defined(__CUDA_ARCH__)
  if constexpr (is_b128<T>) {
    return b128::compare_exchange<false>(address, expected, desired);
  } else {
    atomic_ref_t<T>(*address).compare_exchange_strong(expected, desired, mo::memory_order_relaxed,
                                                      mo::memory_order_relaxed);
    return expected;
  }
#else
  atomic_ref_t<T>(*address).compare_exchange_strong(expected, desired, mo::memory_order_relaxed,
                                                    mo::memory_order_relaxed);
  return expected;

#endif
}

/// Compare-and-swap with acquire order on success: whoever takes a slot this
/// way also sees what its previous owner published before releasing it.
template <class T>
GPUHASH_HD GPUHASH_FORCEINLINE T compare_exchange_acquire(T* address, T expected, T desired) {
#if defined(__CUDA_ARCH__)
  if constexpr (is_b128<T>) {
    return b128::compare_exchange<true>(address, expected, desired);
  } else {
    atomic_ref_t<T>(*address).compare_exchange_strong(expected, desired, mo::memory_order_acquire,
                                                      mo::memory_order_relaxed);
    return expected;
  }
#else
  atomic_ref_t<T>(*address).compare_exchange_strong(expected, desired, mo::memory_order_acquire,
                                                    mo::memory_order_relaxed);
  return expected;

#endif
}

template <class T>
GPUHASH_HD GPUHASH_FORCEINLINE T exchange_relaxed(T* address, T desired) {
#if defined(__CUDA_ARCH__)
  if constexpr (is_b128<T>) {
    return b128::exchange(address, desired);
  } else {
    return atomic_ref_t<T>(*address).exchange(desired, mo::memory_order_relaxed);
  }
#else
  return atomic_ref_t<T>(*address).exchange(desired, mo::memory_order_relaxed);
#endif
}

template <class T>
GPUHASH_HD GPUHASH_FORCEINLINE T fetch_add_relaxed(T* address, T value) {
  return atomic_ref_t<T>(*address).fetch_add(value, mo::memory_order_relaxed);
}

/// An atomic add whose result is not needed. On the device it is a
/// reduction (RED, from atomicAdd with the result unused): the thread does
/// not wait for the memory's answer, as it must for fetch_add's. Relaxed,
/// device scope, on any memory (shared included: generic addressing).
template <class T>
GPUHASH_HD GPUHASH_FORCEINLINE void add_relaxed(T* address, T value) {
#if defined(__CUDA_ARCH__)
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "gpuhash: add_relaxed adds 32 or 64 bits");
  if constexpr (sizeof(T) == 4)
    atomicAdd(reinterpret_cast<unsigned*>(address), static_cast<unsigned>(value));
  else
    atomicAdd(reinterpret_cast<unsigned long long*>(address),
              static_cast<unsigned long long>(value));
#else
  fetch_add_relaxed(address, value);
#endif
}

/// fetch_add for a counter at one address that many threads of a warp take
/// values from at once (a node pool's top, an output cursor); every thread
/// passes the same `value`. On the device the threads that arrive together
/// (cooperative groups' coalesced group) add once, through the first of them,
/// and each gets what its own add would have returned: the shared result
/// travels by a synchronizing shuffle.
///
/// Use it, not fetch_add_relaxed, wherever the result of an add to such a
/// counter is used. nvcc 13 aggregates those adds by itself (a vote, one
/// atomic by one lane, a shuffle of its result to the others with no
/// synchronization in between), and on the H200 about one reordered DACHash
/// build of 2^22 keys in a hundred got 0 from that shuffle instead of the
/// counter: a pool with 400,000 free nodes answered `full` (the
/// pops returned 0, -1, -2 to lanes 0, 1, 2 of one group while the counter
/// held 709,143). With this function no such pop was seen in thousands of
/// builds (docs/results/dachash.md).
template <class T>
GPUHASH_HD GPUHASH_FORCEINLINE T fetch_add_coalesced(T* address, T value) {
#if defined(__CUDA_ARCH__)
  namespace cg = ::cooperative_groups;
  const cg::coalesced_group group = cg::coalesced_threads();
  T first{};
  if (group.thread_rank() == 0)
    first = fetch_add_relaxed(address, static_cast<T>(value * static_cast<T>(group.size())));
  return static_cast<T>(group.shfl(first, 0) + value * static_cast<T>(group.thread_rank()));
#else
  return fetch_add_relaxed(address, value);
#endif
}

/// fetch_add_coalesced where each thread adds a value of its own (an
/// allocation of `value` units from a shared arena): on the device the
/// coalesced group adds its sum once and each thread gets the counter plus
/// the values of the threads before it in the group.
template <class T>
GPUHASH_HD GPUHASH_FORCEINLINE T fetch_add_varying(T* address, T value) {
#if defined(__CUDA_ARCH__)
  namespace cg = ::cooperative_groups;
  const cg::coalesced_group group = cg::coalesced_threads();
  const T before = cg::exclusive_scan(group, value);
  const T total = group.shfl(static_cast<T>(before + value), group.size() - 1);
  T first{};
  if (group.thread_rank() == 0) first = fetch_add_relaxed(address, total);
  return static_cast<T>(group.shfl(first, 0) + before);
#else
  return fetch_add_relaxed(address, value);
#endif
}

template <class T>
GPUHASH_HD GPUHASH_FORCEINLINE T fetch_or_acquire(T* address, T value) {
  return atomic_ref_t<T>(*address).fetch_or(value, mo::memory_order_acquire);
}

/// Fences for protocols that order plain relaxed accesses around a version
/// word (Cuckoo Node Hashing's bucket seqlock): a release fence orders the
/// writes after it behind the stores before it, an acquire fence the loads
/// before it ahead of the loads after it.
GPUHASH_HD GPUHASH_FORCEINLINE void fence_release() {
#if defined(__CUDA_ARCH__)
  ::cuda::atomic_thread_fence(::cuda::std::memory_order_release, ::cuda::thread_scope_device);
#else
  std::atomic_thread_fence(std::memory_order_release);
#endif
}
GPUHASH_HD GPUHASH_FORCEINLINE void fence_acquire() {
#if defined(__CUDA_ARCH__)
  ::cuda::atomic_thread_fence(::cuda::std::memory_order_acquire, ::cuda::thread_scope_device);
#else
  std::atomic_thread_fence(std::memory_order_acquire);
#endif
}

/// Called while waiting for another thread to finish a short protocol step.
GPUHASH_HD GPUHASH_FORCEINLINE void spin_pause() {
#if defined(__CUDA_ARCH__)
  __nanosleep(20);
#else
  std::this_thread::yield();
#endif
}

/// Called by the `attempt`-th failed try for a lock that many threads may
/// want at once: on the device the wait doubles from 20 ns up to about 1.3
/// us, so that waiters leave the lock's word and the memory system to its
/// holder; on the CPU the thread yields.
GPUHASH_HD GPUHASH_FORCEINLINE void spin_backoff(std::uint32_t attempt) {
#if defined(__CUDA_ARCH__)
  __nanosleep(20U << (attempt < 6 ? attempt : 6));
#else
  (void)attempt;
  std::this_thread::yield();
#endif
}

}  // namespace gpuhash::detail
