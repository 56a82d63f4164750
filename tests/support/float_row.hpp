#pragma once
// A row of floats, the wide value (more than one atomic word) of the tests
// of wide values: an embedding row.

#include <cstddef>

#include "gpuhash/host_device.hpp"

namespace gpuhash::testing {

template <std::size_t Floats>
struct float_row {
  float v[Floats];
  bool operator==(const float_row&) const = default;
  /// Every element `x`.
  GPUHASH_HD static float_row filled(float x) {
    float_row row{};
    for (float& element : row.v) element = x;
    return row;
  }
};

}  // namespace gpuhash::testing
