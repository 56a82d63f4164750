#pragma once
// How the bucketed cuckoo engine runs find and contains batches: one thread
// per key (the default, on every backend), or one cooperative tile of threads
// per key where the backend has tiles (CUDA: cooperative_find.cuh). The
// results are the same; only the memory requests differ
// (docs/designs/bucketed_cuckoo.md, "One tile per key").

#include <cstdint>

namespace gpuhash::detail::bucketed_cuckoo {

/// The engine's path for find and contains batches.
enum class find_path : std::uint8_t {
  /// One thread per key reads each bucket whole (BucketBytes / 16 vector loads).
  per_thread,
  /// On the GPU, a tile of BucketBytes / 16 threads per key, each loading one
  /// 16-byte piece of a bucket, so that a bucket is one coalesced request.
  /// Other backends run the per-thread path.
  tile,
};

/// Runs find and contains batches one tile per key on backends that have
/// tiles. This primary template is for backends that do not; the CUDA
/// specialization is in cooperative_find.cuh (nvcc only).
template <class Backend>
struct cooperative_finds {
  static constexpr bool available = false;
};

}  // namespace gpuhash::detail::bucketed_cuckoo
