#pragma once
// Hash functions shared by every design: the MurmurHash3 finalizers (Appleby,
// public domain) and a seeded family for designs that need several independent
// choices per key (cuckoo designs, Cuckoo Node Hashing's set H).

#include <cstdint>
#include <type_traits>

#include "gpuhash/host_device.hpp"

namespace gpuhash {

/// MurmurHash3's 32-bit finalizer: a bijection on 32-bit values.
GPUHASH_HD constexpr std::uint32_t murmur3_fmix32(std::uint32_t h) noexcept {
  h ^= h >> 16;
  h *= 0x85ebca6bU;
  h ^= h >> 13;
  h *= 0xc2b2ae35U;
  h ^= h >> 16;
  return h;
}

/// MurmurHash3's 64-bit finalizer: a bijection on 64-bit values.
GPUHASH_HD constexpr std::uint64_t murmur3_fmix64(std::uint64_t k) noexcept {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

/// SplitMix64's finalizer (Stafford's Mix13): a bijection on 64-bit values
/// with shifts and multipliers of its own, for a hash that must share no
/// structure with the tables' fmix64 (the sharded map's placement,
/// shard_placement.hpp).
GPUHASH_HD constexpr std::uint64_t splitmix64_mix(std::uint64_t z) noexcept {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// A 64-bit hash of a 32- or 64-bit key under a seed. Both widths go through
/// the 64-bit finalizer so that positions in tables of more than 2^32 slots
/// are reachable and every bit of the seed matters.
template <class Key>
struct seeded_hash {
  static_assert(std::is_unsigned_v<Key> && (sizeof(Key) == 4 || sizeof(Key) == 8),
                "gpuhash: keys are 32- or 64-bit unsigned integers");
  std::uint64_t seed = 0;

  GPUHASH_HD constexpr std::uint64_t operator()(Key key) const noexcept {
    return murmur3_fmix64(static_cast<std::uint64_t>(key) ^ seed);
  }
};

/// Member `index` of a family of independent seeded hashes: each member has its
/// own seed derived from the family seed, so h_i and h_j share no structure.
template <class Key>
struct hash_family {
  std::uint64_t seed = 0;

  GPUHASH_HD constexpr std::uint64_t operator()(Key key, std::uint32_t index) const noexcept {
    return seeded_hash<Key>{member_seed(index)}(key);
  }
  GPUHASH_HD constexpr std::uint64_t member_seed(std::uint32_t index) const noexcept {
    return murmur3_fmix64(seed + 0x9e3779b97f4a7c15ULL * (index + 1ULL));
  }
};

/// Maps a 64-bit hash uniformly onto [0, range) without a division (Lemire's
/// multiply-shift). Works for any range, so table sizes need not be powers of two.
GPUHASH_HD inline std::uint64_t reduce_range(std::uint64_t hash, std::uint64_t range) noexcept {
#if defined(__CUDA_ARCH__)
  return __umul64hi(hash, range);
#else
  __extension__ using uint128 =
      unsigned __int128;  // GCC/Clang extension; every x86-64 compiler has it
  return static_cast<std::uint64_t>((static_cast<uint128>(hash) * range) >> 64);
#endif
}

}  // namespace gpuhash
