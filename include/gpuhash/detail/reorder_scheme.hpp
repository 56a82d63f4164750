#pragma once
// The reorders a chained design can run a batch through (detail/reorder.hpp
// has them; this header only names them, for settings structs).

#include <cstdint>

namespace gpuhash::detail {

enum class reorder_scheme : std::uint8_t {
  rows,              ///< the DACHash thesis' Alg. 1
  warp_cooperative,  ///< the Cuckoo Node Hashing paper's Alg. 3
};

}  // namespace gpuhash::detail
