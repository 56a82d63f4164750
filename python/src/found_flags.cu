// The CUDA side of Map.find's `found` flags: one pass over the statuses that
// basic_map::find wrote.

#include <algorithm>
#include <cstdint>

#include "cuda_support.hpp"

namespace gpuhash::python {

namespace {

constexpr int block_size = 256;
// Enough blocks of a grid-stride loop to fill any current GPU.
constexpr std::uint64_t max_blocks = 8192;

__global__ void __launch_bounds__(block_size)
    found_flags_kernel(const status* statuses, std::uint64_t n, bool* found) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
    found[i] = statuses[i] == status::found;
}

}  // namespace

void found_flags_on_gpu(const status* statuses, std::size_t n, bool* found, cudaStream_t stream) {
  if (n == 0) return;
  const auto blocks = static_cast<unsigned>(
      std::min<std::uint64_t>((std::uint64_t{n} + block_size - 1) / block_size, max_blocks));
  found_flags_kernel<<<blocks, block_size, 0, stream>>>(statuses, n, found);
  GPUHASH_CUDA_CHECK_LAUNCH(stream);
}

}  // namespace gpuhash::python
