#pragma once
// One macro marks code that runs on both the host and the device: the
// library's per-key algorithms, and the functors a user writes around a
// table's ref (gpuhash/map_ref.hpp) to run them in CPU threads and in CUDA
// kernels alike. Everything that differs between the two lives behind it or
// behind detail/atomic.hpp, not in #ifdefs spread through the algorithms.

#if defined(__CUDACC__)
#define GPUHASH_HD __host__ __device__
#define GPUHASH_FORCEINLINE __forceinline__
#else
#define GPUHASH_HD
#define GPUHASH_FORCEINLINE inline __attribute__((always_inline))
#endif

// Unrolls the next loop: nvcc's pragma in the device pass, GCC's in host-only
// code, nothing in nvcc's host pass (whose front end knows neither).
#if defined(__CUDA_ARCH__)
#define GPUHASH_UNROLL _Pragma("unroll")
#elif defined(__CUDACC__)
#define GPUHASH_UNROLL
#else
#define GPUHASH_UNROLL _Pragma("GCC unroll 16")
#endif

// Marks a declaration that uses a GNU extension (unsigned __int128) so that
// GCC's -Wpedantic passes it; NVRTC, which has the type but no GNU
// keywords, gets nothing.
#if defined(__CUDACC_RTC__)
#define GPUHASH_GNU_EXTENSION
#else
#define GPUHASH_GNU_EXTENSION __extension__
#endif
