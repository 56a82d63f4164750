// The engine's key hash (engine/key_hash.hpp): one hash picks a key's shard
// and its index signature.

#include "engine/key_hash.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>

#include "gpuhash/signature_index.hpp"

namespace gpuhash::server::engine {
namespace {

TEST(key_hasher, SignaturesAreSignatureIndexsUnderTheSameSeed) {
  for (const std::uint64_t seed : {std::uint64_t{0x5eed}, std::uint64_t{42}}) {
    const key_hasher hasher(seed);
    const signature_index<> index(index_options{.seed = seed});
    for (int k = 0; k < 1000; ++k) {
      const std::string key = "key:" + std::to_string(k);
      EXPECT_EQ(hasher.signature(key), index.signature(key)) << key;
    }
  }
}

TEST(key_hasher, AProcessKeyIsDrawnWhole) {
  // 128 random bits, not a 64-bit seed's derivation: both halves differ
  // between two draws (equal by chance with probability 2^-64 each).
  const key_hasher::key_words first = key_hasher::random_key();
  const key_hasher::key_words second = key_hasher::random_key();
  EXPECT_NE(first[0], second[0]);
  EXPECT_NE(first[1], second[1]);
  EXPECT_NE(key_hasher(first).hash("a key"), key_hasher(second).hash("a key"));
}

TEST(key_hasher, ShardsAndSignaturesOfOneHash) {
  const key_hasher hasher(7);
  const std::uint64_t hash = hasher.hash("a key");
  EXPECT_EQ(hasher.signature("a key"), key_hasher::signature_of(hash));
  EXPECT_LT(key_hasher::shard_of(hash, 5), 5u);
  EXPECT_EQ(key_hasher::shard_of(hash, 1), 0u);
  EXPECT_EQ(key_hasher::signature_of(0), 1u);  // 0 is the index's reserved signature
  EXPECT_NE(key_hasher(8).hash("a key"), hash);
}

// The shard takes the hash's high bits; a shard's signatures still spread
// over all 32 bits: their own high bits fall evenly in each quarter.
TEST(key_hasher, AShardsSignaturesSpreadOverAllTheirBits) {
  const key_hasher hasher(0x5eed);
  constexpr std::size_t shards = 4;
  std::array<std::size_t, 4> quarters{};
  std::size_t in_shard = 0;
  for (int k = 0; k < 80000; ++k) {
    const std::uint64_t hash = hasher.hash("k" + std::to_string(k));
    if (key_hasher::shard_of(hash, shards) != 0) continue;
    ++in_shard;
    ++quarters[key_hasher::signature_of(hash) >> 30];
  }
  ASSERT_GT(in_shard, 15000u);
  for (const std::size_t count : quarters) {
    EXPECT_GT(count, in_shard / 4 * 9 / 10);
    EXPECT_LT(count, in_shard / 4 * 11 / 10);
  }
}

}  // namespace
}  // namespace gpuhash::server::engine
