#pragma once
// The GPU index's batch memory (index_service::batch_memory).

#include <memory_resource>

namespace gpuhash::server::index {

/// Page-locked host memory for batches, so the device reads a batch where the
/// engine writes it (or copies it from there at full speed). One for the
/// process: it outlives every index (the engine keeps its batch when the
/// index moves to the CPU). When the GPU has failed, page-locked memory may
/// not be had: a block then comes from the heap, and says so in a header,
/// so the server carries on with its index on the CPU.
///
/// Page-locked blocks are never given back while the process runs: a freed
/// one waits, by power-of-two size, for the next allocation of its size.
/// cudaFreeHost waits for every kernel running, the resident kernels
/// of all shards included (up to their 100 ms lifetime, gpu_resident.cuh), and
/// holds up the other threads' CUDA calls meanwhile; batch arrays grow by
/// doubling, so what is kept is at most what the largest batches needed.
std::pmr::memory_resource& pinned_memory();

}  // namespace gpuhash::server::index
