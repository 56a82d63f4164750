#pragma once
// The reorders a chained design (DACHash, Cuckoo Node Hashing) can run a
// batch through: keys of one bucket, or of a neighbourhood of combined
// buckets, brought together without a full sort, so that neighbouring
// threads work on nearby chains and share cached nodes. A table picks one
// in its run-time settings (dachash_settings, cuckoo_node_settings);
// gpuhash/reorder.hpp runs one on its own.

#include <cstdint>

namespace gpuhash {

/// Which reorder a chained design runs a batch through.
enum class reorder_scheme : std::uint8_t {
  rows,              ///< the DACHash thesis' Alg. 1
  warp_cooperative,  ///< the Cuckoo Node Hashing paper's Alg. 3
};

}  // namespace gpuhash
