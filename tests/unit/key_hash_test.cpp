#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <unordered_set>

#include "gpuhash/key_hash.hpp"

namespace gpuhash {
namespace {

// The key 00 01 .. 0f of the SipHash paper's test vectors, as two words.
constexpr siphash_key paper_key{0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL};

std::string message_of_length(std::size_t length) {
  std::string message;
  for (std::size_t i = 0; i < length; ++i) message.push_back(static_cast<char>(i));
  return message;
}

TEST(key_hash, siphash_2_4_matches_the_papers_test_vectors) {
  // Appendix A of the paper: the 15-byte message 00 01 .. 0e.
  EXPECT_EQ(siphash(paper_key, message_of_length(15)), 0xa129ca6149be45e5ULL);
  // The first entry of the reference implementation's vectors: the empty message.
  EXPECT_EQ(siphash(paper_key, message_of_length(0)), 0x726fdb47dd0e0e31ULL);
}

// SipHash-c-d a byte at a time, as the paper describes it: the reference the
// word loads of siphash are checked against.
template <int CompressionRounds = 2, int FinalizationRounds = 4>
std::uint64_t siphash_bytewise(siphash_key key, std::string_view bytes) {
  std::uint64_t v0 = key.k0 ^ 0x736f6d6570736575ULL;
  std::uint64_t v1 = key.k1 ^ 0x646f72616e646f6dULL;
  std::uint64_t v2 = key.k0 ^ 0x6c7967656e657261ULL;
  std::uint64_t v3 = key.k1 ^ 0x7465646279746573ULL;
  const auto round = [&] {
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
  };
  std::uint64_t word = 0;
  for (std::size_t i = 0; i <= bytes.size(); ++i) {
    if (i == bytes.size()) {
      word |= std::uint64_t{bytes.size() & 0xff} << 56;
    } else {
      word |= std::uint64_t{static_cast<unsigned char>(bytes[i])} << (8 * (i % 8));
      if (i % 8 != 7) continue;
    }
    v3 ^= word;
    for (int r = 0; r < CompressionRounds; ++r) round();
    v0 ^= word;
    word = 0;
  }
  v2 ^= 0xff;
  for (int r = 0; r < FinalizationRounds; ++r) round();
  return v0 ^ v1 ^ v2 ^ v3;
}

TEST(key_hash, the_bytewise_reference_matches_the_papers_test_vectors) {
  EXPECT_EQ(siphash_bytewise(paper_key, message_of_length(15)), 0xa129ca6149be45e5ULL);
  EXPECT_EQ(siphash_bytewise(paper_key, message_of_length(0)), 0x726fdb47dd0e0e31ULL);
}

// siphash loads whole words at run time and bytes at compile time: both
// agree with the reference at every length and alignment.
TEST(key_hash, word_loads_match_the_bytewise_reference) {
  static_assert(siphash(paper_key, std::string_view("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09"
                                                    "\x0a\x0b\x0c\x0d\x0e",
                                                    15)) == 0xa129ca6149be45e5ULL);
  const std::uint64_t seed = std::random_device{}();
  std::mt19937_64 random(seed);
  std::string buffer(8 + 80, '\0');
  for (char& c : buffer) c = static_cast<char>(random());
  const siphash_key key{random(), random()};
  for (std::size_t offset = 0; offset < 8; ++offset) {
    for (std::size_t length = 0; length <= 80; ++length) {
      const std::string_view message(buffer.data() + offset, length);
      EXPECT_EQ(siphash(key, message), siphash_bytewise(key, message))
          << "seed " << seed << ", offset " << offset << ", length " << length;
      // the tables' instance, SipHash-1-3
      EXPECT_EQ(table_key_hash(key, message), (siphash_bytewise<1, 3>(key, message)))
          << "seed " << seed << ", offset " << offset << ", length " << length;
    }
  }
}

TEST(key_hash, every_byte_and_the_length_matter) {
  std::unordered_set<std::uint64_t> seen;
  for (std::size_t length = 0; length <= 40; ++length) {
    std::string message(length, 'a');
    EXPECT_TRUE(seen.insert(siphash(paper_key, message)).second) << "length " << length;
    for (std::size_t i = 0; i < length; ++i) {
      std::string changed = message;
      changed[i] = 'b';
      EXPECT_TRUE(seen.insert(siphash(paper_key, changed)).second) << length << "/" << i;
    }
  }
  EXPECT_NE(siphash(paper_key, "key"), siphash({paper_key.k0 ^ 1, paper_key.k1}, "key"));
  EXPECT_NE(table_key_hash(paper_key, "key"), siphash(paper_key, "key"));
  EXPECT_NE(table_key_hash(paper_key, "key"),
            table_key_hash({paper_key.k0, paper_key.k1 ^ 1}, "key"));
}

}  // namespace
}  // namespace gpuhash
