#pragma once
// The engine's one hash of a key: SipHash-1-3 (gpuhash::table_key_hash,
// which says why that instance) under a secret seed of the
// engine (random per process), so that a client who does not know the seed
// cannot choose keys that share a shard or an index signature. A key a
// request names is hashed once, by the routing (routing/router.hpp), and the
// hash serves both: its high bits pick the key's shard, and it folds to the
// key's 32-bit index signature, which the routing leaves with the request
// for the shard's batch (work_item::signatures; the index port takes
// signatures hashed by its caller, as memcached's assoc takes the hash).
//
// Within a shard the high bits of its keys' hashes lie in the shard's range,
// but the low 32 bits are free: the fold (low half ^ high half) spreads a
// shard's signatures over all 32 bits, as independent of the shard as
// another seed's. The SipHash key is 128 random bits per process; a test
// that fixes a 64-bit seed (engine_settings::key_seed) gets the key derived
// from it as gpuhash::signature_index derives its own, so that a signature
// there is signature_index<>{seed}.signature(key): tests build keys that
// share a signature with either.

#include <array>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string_view>

#include "gpuhash/hash.hpp"
#include "gpuhash/key_hash.hpp"

namespace gpuhash::server::engine {

class key_hasher {
 public:
  /// A key as two words (engine_settings::key_hash_key).
  using key_words = std::array<std::uint64_t, 2>;

  explicit key_hasher(key_words key) noexcept : key_{key[0], key[1]} {}
  explicit key_hasher(std::uint64_t seed) noexcept : key_hasher(key_of_seed(seed)) {}

  /// The key a 64-bit seed stands for (as gpuhash::signature_index's).
  static key_words key_of_seed(std::uint64_t seed) noexcept {
    return {murmur3_fmix64(seed ^ 0x736970686173686bULL),
            murmur3_fmix64(seed ^ 0x6b65792d68617368ULL)};
  }
  /// A key for a process: 128 random bits.
  static key_words random_key() {
    std::random_device device;
    const auto word = [&] { return (std::uint64_t{device()} << 32) ^ device(); };
    const std::uint64_t k0 = word();
    return {k0, word()};
  }

  std::uint64_t hash(std::string_view key) const noexcept { return table_key_hash(key_, key); }
  /// The shard of `shards` that holds a key of this hash: its high bits.
  static std::size_t shard_of(std::uint64_t hash, std::size_t shards) noexcept {
    return static_cast<std::size_t>(reduce_range(hash, shards));
  }
  /// A key's index signature: its hash folded to 32 bits, never 0 (the
  /// index's reserved signature).
  static std::uint32_t signature_of(std::uint64_t hash) noexcept {
    const auto folded = static_cast<std::uint32_t>(hash ^ (hash >> 32));
    return folded == 0 ? 1 : folded;
  }
  std::uint32_t signature(std::string_view key) const noexcept { return signature_of(hash(key)); }

 private:
  siphash_key key_;
};

}  // namespace gpuhash::server::engine
