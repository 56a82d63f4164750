#pragma once
// DACHash's thread-data mapping schemes (thesis chapter 6) and the settings a
// table runs with. The one-to-one mapping (one thread per key, Alg. 2) runs
// on every backend; the many-to-one mapping (a tile of lanes per key, Alg. 3)
// where the backend has tiles (CUDA: many_to_one.cuh); elsewhere it runs as
// one-to-one, with the same results. The dynamic scheme picks per batch by
// the expected chain length against a threshold tau.

#include <cstdint>

namespace gpuhash::detail::dachash {

enum class mapping_scheme : std::uint8_t {
  one_to_one,   ///< Alg. 2: one thread per key
  many_to_one,  ///< Alg. 3: one tile of TileSize lanes per key
  dynamic,      ///< many-to-one when the expected chain length passes the threshold
};

struct settings {
  mapping_scheme mapping = mapping_scheme::dynamic;
  /// The thesis' tau: the expected chain length above which the dynamic
  /// scheme uses many-to-one.
  double threshold = 0.6;
  /// Reorder (thesis chapter 5): buckets combined into one row of Alg. 1;
  /// 0 runs batches in the caller's order. Off by default: it costs a pass
  /// over the batch and a gather and scatter of its arrays, which pays off
  /// only when chains are long enough to share cached nodes (measured in
  /// dachash.fig7_2 and fig7_4).
  std::uint64_t combined_buckets = 0;
};

/// Runs batches with the many-to-one mapping on backends that have tiles.
/// This primary template is for backends that do not; the CUDA
/// specialization is in many_to_one.cuh (nvcc only).
template <class Backend>
struct many_to_one_mapping {
  static constexpr bool available = false;
};

}  // namespace gpuhash::detail::dachash
