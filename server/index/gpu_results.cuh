#pragma once
// A GPU batch's searches come back in one results block, written by the
// device into page-locked host memory (copied there, for large batches). A
// search finds at most 16 locations, but almost always 0, 1 or (while an
// updated key's old entry waits for its erase) 2: the block carries the
// counts and the first two locations, and the full rows are fetched only
// when some count is above two (the block's first word says so). The
// inserts and erases are read by the device from a page-locked block too
// (copied, for large batches), queued behind the searches.
//
//   searches:      signatures[s] (u32), where the engine wrote them
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

inline constexpr std::size_t mutation_bytes(std::size_t mutations) {
  return mutations * (2 * sizeof(std::uint32_t) + 1);
}

inline std::size_t result_bytes(std::size_t searches) {
  return sizeof(std::uint32_t) * (searches * (1 + packed_matches) + 1);
}

#if defined(__CUDACC__)
/// Writes search i's part of the results block of n searches: its count,
/// its first two locations (zero past the count), and `batch` in the first
/// word if it found more than two. The one writer of the block's layout,
/// for the packing kernel and the resident kernel.
__device__ inline void write_result(std::uint32_t* results, std::uint64_t n, std::uint64_t i,
                                    std::uint32_t count, const std::uint32_t* matches,
                                    std::uint32_t batch) {
  results[1 + i] = count;
  std::uint32_t* locations = results + 1 + n + i * packed_matches;
  for (std::uint32_t k = 0; k < packed_matches; ++k) locations[k] = k < count ? matches[k] : 0;
  // Every writer writes the same value: a plain store (no atomic to host memory).
  if (count > packed_matches) results[0] = batch;
}
#endif

/// Writes the results block of n searches (`results`, in page-locked host
/// memory or on the device): their counts, and the first two of each search's full row of
/// locations (zero past the count); sets its first word to `batch` if some
/// search found more than two. Batches are numbered upwards from 1, so the
/// word needs no clearing between batches.
void pack_results(const std::uint32_t* full_matches, const std::uint32_t* counts, std::size_t n,
                  std::uint32_t batch, std::uint32_t* results, cudaStream_t stream);

}  // namespace gpuhash::server::index
