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
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x)
    write_result(results, n, i, counts[i], full_matches + i * max_matches, batch);
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
