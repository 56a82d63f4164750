#pragma once
// A GPU batch's arguments and results each travel in one block, so a batch
// costs one copy in and one copy out. A search finds at most 16 locations,
// but almost always 0, 1 or (while an updated key's old entry waits for its
// erase) 2: the results block carries the counts and the first two
// locations, and the full rows are fetched only when some search found more.
//
//   arguments: signatures[n] (u32), locations[n] (u32), ops[n] (u8)
//   results:   largest count over 2 (u32, 0 if none), counts[n] (u32),
//              first two locations[2n] (u32), statuses[n] (u8)

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace gpuhash::server::index {

/// Locations per search in the results block.
inline constexpr std::size_t packed_matches = 2;

inline std::size_t argument_bytes(std::size_t n) {
  return n * (2 * sizeof(std::uint32_t) + 1);
}
inline std::size_t result_bytes(std::size_t n) {
  return sizeof(std::uint32_t) * (1 + n + n * packed_matches) + n;
}

/// Fills the results block's largest count and first two locations from the
/// counts (already in the block) and the full rows of locations.
void pack_results(const std::uint32_t* full_matches, std::size_t n, std::uint32_t* results,
                  cudaStream_t stream);

}  // namespace gpuhash::server::index
