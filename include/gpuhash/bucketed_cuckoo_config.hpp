#pragma once
// The bucketed cuckoo table's configurations (docs/designs/bucketed_cuckoo.md):
// bucket size, number of choices, eviction policy and find path, all
// compile-time, each configuration a set of kernels of its own. A table of
// one: bucketed_cuckoo_map_with (gpuhash/bucketed_cuckoo_map.hpp).
//
// The library compiles the default configuration (bucketed_cuckoo_map's:
// four-slot buckets, four choices of which the last two lie in a backyard of
// 3/16 of the buckets, lookahead eviction, one thread per find);
// others compile where gpuhash/bucketed_cuckoo_map_impl.hpp is included, or
// once in a file that instantiates them
// (GPUHASH_INSTANTIATE_BUCKETED_CUCKOO_MAP).

#include <cstdint>

namespace gpuhash {

/// How an eviction walk picks the key it evicts from a full bucket.
enum class bucketed_cuckoo_eviction : std::uint8_t {
  /// A random slot (the classic random walk).
  random_walk,
  /// A breadth-first look one level deep: read another bucket of every key in
  /// the target bucket (independent reads, issued together: its first
  /// backyard bucket other than the target where the table has a backyard,
  /// else its first bucket other than the target) and evict one with a free
  /// slot there; a random slot when none has.
  lookahead,
};

/// How find and contains batches run. The results are the same; only the
/// memory requests differ ("One tile per key" in the design doc).
enum class bucketed_cuckoo_find_path : std::uint8_t {
  /// One thread per key reads each bucket whole (BucketBytes / 16 vector loads).
  per_thread,
  /// On the GPU, a tile of BucketBytes / 16 threads per key, each loading one
  /// 16-byte piece of a bucket, so that a bucket is one coalesced request.
  /// Needs a power-of-two bucket of at most 512 bytes and keys and values of
  /// at most 8 bytes compared by their bytes. Other backends run the
  /// per-thread path.
  tile,
};

/// BucketBytes: a bucket's size, a multiple of 16 holding at least two
/// slots (8-byte slots for 4/4-byte pairs, 16-byte slots for other pairs of
/// at most 8-byte words, 32-byte slots where a word has 16 bytes); Choices:
/// the buckets a key may live in, 2 to 4; Eviction and FindPath as above.
/// BackyardSixteenths: 0, every choice a bucket of the whole table; k (1 to
/// 8, with 3 or 4 choices), a backyard of the table's last k/16 buckets,
/// which choices 2 and on draw from while the first two draw from the rest:
/// the backyard stays sparse while the first two choices fill, so that few
/// keys find every bucket full (the design doc's "Backyard").
template <std::uint32_t BucketBytes, std::uint32_t Choices = 2,
          bucketed_cuckoo_eviction Eviction = bucketed_cuckoo_eviction::lookahead,
          bucketed_cuckoo_find_path FindPath = bucketed_cuckoo_find_path::per_thread,
          std::uint32_t BackyardSixteenths = 0>
struct bucketed_cuckoo_config {
  static_assert(BackyardSixteenths == 0 || (Choices > 2 && BackyardSixteenths <= 8),
                "gpuhash::bucketed_cuckoo_config: a backyard takes 1 to 8 sixteenths of the "
                "buckets and needs 3 or 4 choices (the first two stay in front)");
  static constexpr std::uint32_t bucket_bytes = BucketBytes;
  static constexpr std::uint32_t choices = Choices;
  static constexpr bucketed_cuckoo_eviction eviction = Eviction;
  static constexpr bucketed_cuckoo_find_path find_path = FindPath;
  static constexpr std::uint32_t backyard_sixteenths = BackyardSixteenths;
};

}  // namespace gpuhash
