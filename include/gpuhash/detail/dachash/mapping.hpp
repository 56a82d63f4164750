#pragma once
// DACHash's thread-data mappings (thesis chapter 6; the schemes and the
// settings a table runs with are public: gpuhash/dachash_config.hpp). The
// one-to-one mapping (one thread per key, Alg. 2) runs on every backend;
// the many-to-one mapping (a tile of lanes per key, Alg. 3) where the
// backend has tiles (CUDA: many_to_one.cuh); elsewhere it runs as
// one-to-one, with the same results.

#include "gpuhash/dachash_config.hpp"

namespace gpuhash::detail::dachash {

/// Runs batches with the many-to-one mapping on backends that have tiles.
/// This primary template is for backends that do not; the CUDA
/// specialization is in many_to_one.cuh (nvcc only).
template <class Backend>
struct many_to_one_mapping {
  static constexpr bool available = false;
};

}  // namespace gpuhash::detail::dachash
