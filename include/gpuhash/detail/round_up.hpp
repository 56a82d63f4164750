#pragma once
// The first multiple of `multiple` at or after `n`: where a group starts
// when groups start at multiples of an alignment (the sharded map's
// exchange plan and the stable partitions of both backends agree on the
// layout by calling this one function).

#include <cstdint>

#include "gpuhash/host_device.hpp"

namespace gpuhash::detail {

GPUHASH_HD constexpr std::uint64_t round_up(std::uint64_t n, std::uint64_t multiple) {
  return (n + multiple - 1) / multiple * multiple;
}

}  // namespace gpuhash::detail
