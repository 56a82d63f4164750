#pragma once
// Which shard of a sharded_map holds a key (docs/designs/sharded.md,
// "Placement"). Host+device, so that a caller can place its own keys (in a
// kernel, or on CPU threads) before it hands them over spread by shard.
//
// The placement starts from the key's hash policy, the same one its table
// uses (gpuhash/key_types.hpp): keys the table's equality calls equal hash
// equal, so they meet in one shard. It then mixes that number under a seed
// of its own through SplitMix64's finalizer, not the MurmurHash3 finalizer
// (fmix64) through which every table mixes it with the table's seed, and
// reduces the result onto [0, shards). The two mixes share no structure, so
// within one shard the table's slots are still reached uniformly; were they
// one function, the keys of shard d would all hash into the d-th G-th of
// each table's range.

#include <cstdint>

#include "gpuhash/hash.hpp"
#include "gpuhash/host_device.hpp"
#include "gpuhash/key_types.hpp"

namespace gpuhash {

template <class Key, class Hash = key_bytes_hash<Key>>
struct shard_placement {
  /// The fractional part of sqrt(2) (SHA-512's first initial word): a seed
  /// no table uses by default.
  static constexpr std::uint64_t default_seed = 0x6a09e667f3bcc908ULL;

  std::uint32_t shards = 1;
  std::uint64_t seed = default_seed;
  Hash hash{};

  /// The shard of `key`, in [0, shards).
  GPUHASH_HD std::uint32_t operator()(const Key& key) const {
    return static_cast<std::uint32_t>(reduce_range(splitmix64_mix(hash(key) ^ seed), shards));
  }
};

}  // namespace gpuhash
