// The packing kernel of gpu_results.cuh.

#include <algorithm>

#include "gpuhash/cuda/error.hpp"
#include "index/gpu_results.cuh"
#include "index/index_service.hpp"

namespace gpuhash::server::index {

namespace {

constexpr int block_size = 256;

__global__ void __launch_bounds__(block_size)
    pack_kernel(const std::uint32_t* full_matches, const std::uint32_t* counts, std::uint64_t n,
                std::uint32_t batch, std::uint32_t* results) {
  std::uint32_t* more_than_two = results;
  std::uint32_t* counts_out = results + 1;
  std::uint32_t* locations = results + 1 + n;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint32_t count = counts[i];
    counts_out[i] = count;
    for (std::uint32_t k = 0; k < packed_matches; ++k)
      locations[i * packed_matches + k] = k < count ? full_matches[i * max_matches + k] : 0;
    // Every writer writes the same value: a plain store (no atomic to host memory).
    if (count > packed_matches) *more_than_two = batch;
  }
}

}  // namespace

void pack_results(const std::uint32_t* full_matches, const std::uint32_t* counts, std::size_t n,
                  std::uint32_t batch, std::uint32_t* results, cudaStream_t stream) {
  const auto blocks =
      static_cast<unsigned>(std::min<std::size_t>((n + block_size - 1) / block_size, 4096));
  pack_kernel<<<blocks, block_size, 0, stream>>>(full_matches, counts, n, batch, results);
  GPUHASH_CUDA_TRY(cudaGetLastError());
}

}  // namespace gpuhash::server::index
