#pragma once
// Where the accesses of the limit kernels (limits.cu) land: host+device, so
// the unit tests check on the CPU what the GPU runs.

#include <bit>
#include <cstdint>

#include "gpuhash/hash.hpp"
#include "gpuhash/host_device.hpp"

namespace gpuhash::bench {

/// The position of access `access` of a run among `count`: a hash of the
/// access and the run's seed, reduced uniformly onto [0, count). Positions
/// repeat (about as keys of a table share sectors); a new seed gives a run
/// positions of its own.
GPUHASH_HD inline std::uint64_t random_position(std::uint64_t access, std::uint64_t seed,
                                                std::uint64_t count) {
  return reduce_range(murmur3_fmix64(access ^ seed), count);
}

/// A random bijection of [0, count) onto itself, for runs in which each
/// access must have a word of its own (cas_8_write: a CAS that finds its word
/// as the run began). A four-round Feistel network permutes the numbers of
/// 2 x half_bits bits; it is applied again while the result is not below
/// count (cycle walking), which keeps a bijection of [0, count) and takes
/// fewer than four rounds on average, since 4^half_bits < 4 x count.
struct position_permutation {
  std::uint64_t count = 1;
  std::uint64_t seed = 0;
  unsigned half_bits = 1;

  /// The permutation of [0, count) (count >= 1) under `seed`.
  static position_permutation over(std::uint64_t count, std::uint64_t seed) {
    const auto bits = static_cast<unsigned>(std::bit_width(count - 1));
    return {count, seed, bits < 2 ? 1U : (bits + 1) / 2};
  }

  /// The image of `index` (index < count).
  GPUHASH_HD std::uint64_t operator()(std::uint64_t index) const {
    std::uint64_t x = network(index);
    while (x >= count) x = network(x);
    return x;
  }

 private:
  /// A bijection of [0, 4^half_bits): each round maps (left, right) to
  /// (right, left ^ f(right)), which its inputs can be recovered from.
  GPUHASH_HD std::uint64_t network(std::uint64_t x) const {
    const std::uint64_t mask = (std::uint64_t{1} << half_bits) - 1;
    std::uint64_t left = x >> half_bits;
    std::uint64_t right = x & mask;
    for (std::uint64_t round = 0; round < 4; ++round) {
      const std::uint64_t next = left ^ (murmur3_fmix64(right ^ (seed + round)) & mask);
      left = right;
      right = next;
    }
    return (left << half_bits) | right;
  }
};

}  // namespace gpuhash::bench
