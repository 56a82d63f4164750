// The CUDA side of HashGraphSet.find's `found` flags: one pass over the
// statuses that the static HashGraph's find wrote into the `found` array,
// turning them into flags in place (backend_support::found_flags).

#include <algorithm>
#include <cstdint>

#include "cuda_support.hpp"

namespace gpuhash::python {

namespace {

constexpr int block_size = 256;
// Enough blocks of a grid-stride loop to fill any current GPU.
constexpr std::uint64_t max_blocks = 8192;

/// Four statuses to four flags: 1 in each byte that holds found_byte.
__device__ std::uint32_t flags_of(std::uint32_t statuses) {
  constexpr std::uint32_t found_in_every_byte = found_byte * 0x01010101u;
  return __vcmpeq4(statuses, found_in_every_byte) & 0x01010101u;
}

/// Sixteen bytes a thread; `bytes` is 16-byte aligned (as the arrays CuPy,
/// PyTorch and NumPy allocate are). The first block also does the last
/// n % 16 bytes.
__global__ void __launch_bounds__(block_size)
    found_flags_by_16(std::uint8_t* bytes, std::uint64_t n) {
  auto* chunks = reinterpret_cast<uint4*>(bytes);
  const std::uint64_t chunk_count = n / 16;
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < chunk_count;
       i += stride) {
    uint4 chunk = chunks[i];
    chunk.x = flags_of(chunk.x);
    chunk.y = flags_of(chunk.y);
    chunk.z = flags_of(chunk.z);
    chunk.w = flags_of(chunk.w);
    chunks[i] = chunk;
  }
  const std::uint64_t tail = chunk_count * 16 + threadIdx.x;
  if (blockIdx.x == 0 && tail < n) bytes[tail] = bytes[tail] == found_byte;
}

/// One byte a thread, for an array that is not aligned.
__global__ void __launch_bounds__(block_size)
    found_flags_by_1(std::uint8_t* bytes, std::uint64_t n) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
    bytes[i] = bytes[i] == found_byte;
}

unsigned blocks_for(std::uint64_t threads) {
  return static_cast<unsigned>(
      std::min<std::uint64_t>((threads + block_size - 1) / block_size, max_blocks));
}

}  // namespace

void found_flags_on_gpu(std::uint8_t* bytes, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  if (reinterpret_cast<std::uintptr_t>(bytes) % 16 == 0) {
    found_flags_by_16<<<blocks_for(std::max<std::uint64_t>(n / 16, 1)), block_size, 0, stream>>>(
        bytes, n);
  } else {
    found_flags_by_1<<<blocks_for(n), block_size, 0, stream>>>(bytes, n);
  }
  GPUHASH_CUDA_CHECK_LAUNCH(stream);
}

}  // namespace gpuhash::python
