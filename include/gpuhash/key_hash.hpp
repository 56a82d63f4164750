#pragma once
// Hashing byte-string keys under a secret seed: SipHash (Aumasson and
// Bernstein, "SipHash: a fast short-input PRF", 2012), written from the
// paper's description. Keyed with a random seed, an attacker who does not
// know the seed cannot choose keys that collide: that is why the server's
// index hashes with it rather than with MurmurHash3, whose collisions do not
// depend on the seed. Runs on the host, where the key bytes live.
// table_key_hash, below, is the instance the tables use.

#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

namespace gpuhash {

/// The 128-bit key of a SipHash instance.
struct siphash_key {
  std::uint64_t k0 = 0;
  std::uint64_t k1 = 0;
};

/// SipHash-c-d of `bytes` under `key` (c compression rounds per 8-byte word,
/// d finalization rounds). SipHash-2-4 is the paper's recommended instance.
template <int CompressionRounds = 2, int FinalizationRounds = 4>
constexpr std::uint64_t siphash(siphash_key key, std::string_view bytes) noexcept {
  std::uint64_t v0 = key.k0 ^ 0x736f6d6570736575ULL;
  std::uint64_t v1 = key.k1 ^ 0x646f72616e646f6dULL;
  std::uint64_t v2 = key.k0 ^ 0x6c7967656e657261ULL;
  std::uint64_t v3 = key.k1 ^ 0x7465646279746573ULL;
  const auto rounds = [&](int count) {
    for (int r = 0; r < count; ++r) {
      v0 += v1;
      v1 = std::rotl(v1, 13);
      v1 ^= v0;
      v0 = std::rotl(v0, 32);
      v2 += v3;
      v3 = std::rotl(v3, 16);
      v3 ^= v2;
      v0 += v3;
      v3 = std::rotl(v3, 21);
      v3 ^= v0;
      v2 += v1;
      v1 = std::rotl(v1, 17);
      v1 ^= v2;
      v2 = std::rotl(v2, 32);
    }
  };
  const auto compress = [&](std::uint64_t m) {
    v3 ^= m;
    rounds(CompressionRounds);
    v0 ^= m;
  };
  // Little-endian words; the last one carries the remaining bytes and the
  // length modulo 256 in its top byte.
  const std::size_t whole = bytes.size() / 8 * 8;
  const std::size_t rest = bytes.size() - whole;
  std::uint64_t last = 0;
  if (std::is_constant_evaluated() || std::endian::native != std::endian::little) {
    const auto word_at = [&](std::size_t offset, std::size_t count) {
      std::uint64_t word = 0;
      for (std::size_t b = 0; b < count; ++b)
        word |= std::uint64_t{static_cast<unsigned char>(bytes[offset + b])} << (8 * b);
      return word;
    };
    for (std::size_t offset = 0; offset < whole; offset += 8) compress(word_at(offset, 8));
    last = word_at(whole, rest);
  } else {
    // One load a word: compilers do not merge the byte loop above into one.
    const auto load = [](const char* at) {
      std::uint64_t word;
      std::memcpy(&word, at, sizeof word);
      return word;
    };
    for (std::size_t offset = 0; offset < whole; offset += 8) compress(load(bytes.data() + offset));
    if (rest != 0 && whole != 0) {
      // the word ending at the key's end, its bytes before `whole` shifted out
      last = load(bytes.data() + bytes.size() - 8) >> (8 * (8 - rest));
    } else {
      for (std::size_t b = 0; b < rest; ++b)
        last |= std::uint64_t{static_cast<unsigned char>(bytes[b])} << (8 * b);
    }
  }
  last |= std::uint64_t{bytes.size() & 0xff} << 56;
  compress(last);
  v2 ^= 0xff;
  rounds(FinalizationRounds);
  return v0 ^ v1 ^ v2 ^ v3;
}

/// The hash of byte-string keys in the library's tables (signature_index's
/// signatures, the server's shards and signatures): SipHash-1-3, the
/// instance Rust's HashMap and CPython (3.11 on) hash strings with. Keyed as
/// SipHash-2-4 is, so colliding keys still need the key, for about two
/// thirds of its instructions on a 32-byte key (in the server, 94 fewer per
/// key of 263: docs/results/server.md).
constexpr std::uint64_t table_key_hash(siphash_key key, std::string_view bytes) noexcept {
  return siphash<1, 3>(key, bytes);
}

}  // namespace gpuhash
