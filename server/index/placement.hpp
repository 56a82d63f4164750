#pragma once
// Where the server's index lives (--index).

#include <cstdint>

namespace gpuhash::server::index {

enum class placement : std::uint8_t {
  automatic,  ///< on the GPU when there is one, else on the CPU
  gpu,        ///< on the GPU; the server refuses to start without one
  cpu
};

}  // namespace gpuhash::server::index
