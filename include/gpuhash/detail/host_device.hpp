#pragma once
// One macro marks code that runs on both the host and the device. Everything
// that differs between the two lives behind it or behind detail/atomic.hpp, not
// in #ifdefs spread through the algorithms.

#if defined(__CUDACC__)
#define GPUHASH_HD __host__ __device__
#define GPUHASH_FORCEINLINE __forceinline__
#else
#define GPUHASH_HD
#define GPUHASH_FORCEINLINE inline __attribute__((always_inline))
#endif
