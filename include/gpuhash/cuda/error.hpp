#pragma once
// Checking CUDA runtime calls: GPUHASH_CUDA_TRY(call) throws gpuhash::cuda_error
// naming the call, the file and the line. Never use it in a destructor (see
// GPUHASH_CUDA_REPORT).

#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>

#include "gpuhash/errors.hpp"

namespace gpuhash::cuda::detail {

[[noreturn]] inline void throw_cuda_error(cudaError_t code, const char* expression,
                                          const char* file, int line) {
  throw cuda_error(std::string("gpuhash: CUDA error ") + cudaGetErrorName(code) + " (" +
                   cudaGetErrorString(code) + ") in `" + expression + "` at " + file + ":" +
                   std::to_string(line));
}

inline void check(cudaError_t code, const char* expression, const char* file, int line) {
  if (code != cudaSuccess) throw_cuda_error(code, expression, file, line);
}

/// For destructors, which must not throw: prints the error instead.
inline void report(cudaError_t code, const char* expression, const char* file, int line) noexcept {
  if (code != cudaSuccess)
    std::fprintf(stderr, "gpuhash: CUDA error %s in `%s` at %s:%d (ignored in a destructor)\n",
                 cudaGetErrorName(code), expression, file, line);
}

}  // namespace gpuhash::cuda::detail

#define GPUHASH_CUDA_TRY(call) ::gpuhash::cuda::detail::check((call), #call, __FILE__, __LINE__)
#define GPUHASH_CUDA_REPORT(call) ::gpuhash::cuda::detail::report((call), #call, __FILE__, __LINE__)

/// After a kernel launch: launch errors always; in debug builds also waits for
/// the kernel so that a fault is reported at the launch that caused it.
#if defined(NDEBUG)
#define GPUHASH_CUDA_CHECK_LAUNCH(stream) GPUHASH_CUDA_TRY(cudaGetLastError())
#else
#define GPUHASH_CUDA_CHECK_LAUNCH(stream)            \
  do {                                               \
    GPUHASH_CUDA_TRY(cudaGetLastError());            \
    GPUHASH_CUDA_TRY(cudaStreamSynchronize(stream)); \
  } while (0)
#endif
