#include <gtest/gtest.h>

#include <cstdint>
#include <string>
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
}

}  // namespace
}  // namespace gpuhash
