#pragma once
// A GPU batch's searches travel in one copy each way: the signatures in,
// and one results block out. A search finds at most 16 locations, but
// almost always 0, 1 or (while an updated key's old entry waits for its
// erase) 2: the results block carries the counts and the first two
// locations, and the full rows are fetched only when some search found more.
// The inserts and erases go in a second block, queued behind the searches.
//
//   searches in:   signatures[s] (u32)
//   results out:   the batch's number (u32) if some search found more than
//                  two, counts[s] (u32), first two locations[2s] (u32)
//   mutations in:  signatures[m] (u32), locations[m] (u32), ops[m] (u8)
//   statuses out:  statuses[m] (u8)

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace gpuhash::server::index {

/// Locations per search in the results block.
inline constexpr std::size_t packed_matches = 2;

inline std::size_t result_bytes(std::size_t searches) {
  return sizeof(std::uint32_t) * (searches * (1 + packed_matches) + 1);
}
inline std::size_t mutation_bytes(std::size_t mutations) {
  return mutations * (2 * sizeof(std::uint32_t) + 1);
}

/// Fills the results block's first two locations of each search from the
/// full rows of locations (the counts are already in the block), and raises
/// its first word to `batch` if some search found more than two. Batches are
/// numbered upwards from 1, so the word needs no clearing between batches.
void pack_results(const std::uint32_t* full_matches, std::size_t n, std::uint32_t batch,
                  std::uint32_t* results, cudaStream_t stream);

}  // namespace gpuhash::server::index
