#pragma once
// How many blocks of a kernel the current GPU runs at once: the grid of a
// grid-stride launch that fills the device and no more (more blocks would
// only add scheduling; fewer would leave memory latency unhidden). Used by
// the library's kernels, the examples' and tests' launcher
// (support/launch.hpp) and gpuhash-bench's limit kernels; plain C++ over the
// CUDA runtime, so a program compiled without nvcc can ask it too.

#include <cuda_runtime_api.h>

#include <algorithm>

#include "gpuhash/cuda/error.hpp"

namespace gpuhash::cuda {

/// Blocks of `kernel`, `block_size` threads each and no dynamic shared
/// memory, resident at once on the current device (at least 1).
template <class... Args>
int resident_blocks(void (*kernel)(Args...), int block_size) {
  int device = 0;
  int multiprocessors = 0;
  int per_multiprocessor = 0;
  GPUHASH_CUDA_TRY(cudaGetDevice(&device));
  GPUHASH_CUDA_TRY(
      cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  GPUHASH_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_multiprocessor, reinterpret_cast<const void*>(kernel), block_size, 0));
  return std::max(1, multiprocessors * per_multiprocessor);
}

}  // namespace gpuhash::cuda
