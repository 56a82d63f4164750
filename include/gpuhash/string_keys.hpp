#pragma once
// Byte-string keys for gpuhash::string_map (gpuhash/string_map.hpp): the
// column a batch of them arrives in, and the default hash.
//
// A batch of strings is one buffer of bytes and n + 1 offsets into it, key i
// being bytes[offsets[i], offsets[i + 1]): the layout of Apache Arrow's
// string arrays (32-bit offsets, `utf8`/`binary`) and large string arrays
// (64-bit offsets, `large_utf8`/`large_binary`), so an Arrow column, or a
// slice of one whose offsets do not start at 0, is passed without copying:
//
//   gpuhash::string_column keys(bytes, offsets, n);   // offsets: n + 1 of them
//
// Keys are bytes, compared as bytes: no encoding is assumed, an empty string
// is a key like any other, and no key is reserved.

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "gpuhash/hash.hpp"
#include "gpuhash/host_device.hpp"

namespace gpuhash {

/// n strings as offsets into one buffer of bytes (Arrow's layout), both in
/// the memory of the table's backend (device memory for cuda_backend).
struct string_column {
  const char* bytes = nullptr;
  const std::int32_t* offsets32 = nullptr;  ///< exactly one of the two offset arrays is set
  const std::int64_t* offsets64 = nullptr;
  std::size_t count = 0;

  string_column() = default;
  /// Arrow's string array: n + 1 32-bit offsets.
  string_column(const char* bytes_, const std::int32_t* offsets, std::size_t n)
      : bytes(bytes_), offsets32(offsets), count(n) {}
  /// Arrow's large string array: n + 1 64-bit offsets.
  string_column(const char* bytes_, const std::int64_t* offsets, std::size_t n)
      : bytes(bytes_), offsets64(offsets), count(n) {}

  GPUHASH_HD std::int64_t offset(std::size_t i) const {
    return offsets64 != nullptr ? offsets64[i] : static_cast<std::int64_t>(offsets32[i]);
  }
};

namespace detail {

/// The `length` < 8 or first 8 bytes at `bytes` as a little-endian number
/// (the bytes past `length` read as 0). Any alignment.
GPUHASH_HD GPUHASH_FORCEINLINE std::uint64_t load_bytes(const char* bytes, std::uint32_t length) {
#if defined(__CUDA_ARCH__)
  std::uint64_t word = 0;
  const auto* unsigned_bytes = reinterpret_cast<const unsigned char*>(bytes);
  if (length >= 8 && reinterpret_cast<std::uintptr_t>(bytes) % 8 == 0)
    return *reinterpret_cast<const std::uint64_t*>(bytes);
  const std::uint32_t n = length < 8 ? length : 8;
  for (std::uint32_t i = 0; i < n; ++i) word |= std::uint64_t{unsigned_bytes[i]} << (8 * i);
  return word;
#else
  std::uint64_t word = 0;
  std::memcpy(&word, bytes, length < 8 ? length : 8);  // x86-64: little-endian
  return word;
#endif
}

/// Whether the `length` bytes at a and at b are equal.
GPUHASH_HD GPUHASH_FORCEINLINE bool bytes_equal(const char* a, const char* b,
                                                std::uint32_t length) {
#if defined(__CUDA_ARCH__)
  for (std::uint32_t i = 0; i < length; i += 8)
    if (load_bytes(a + i, length - i) != load_bytes(b + i, length - i)) return false;
  return true;
#else
  return std::memcmp(a, b, length) == 0;
#endif
}

GPUHASH_HD GPUHASH_FORCEINLINE std::uint64_t rotate_left(std::uint64_t x, int bits) {
  return (x << bits) | (x >> (64 - bits));
}

}  // namespace detail

/// The default hash of string_map: 8 bytes a step, each step multiplies and
/// rotates the word into the state (the block step of MurmurHash3's x64
/// variant, one lane), and MurmurHash3's 64-bit finalizer at the end. The
/// seed and the length enter before the first byte, so strings that differ
/// only in trailing zero bytes hash apart, and a random seed keeps keys
/// chosen by an attacker from colliding on purpose. A hash policy of one's
/// own is a host+device callable of the same signature.
struct string_bytes_hash {
  GPUHASH_HD std::uint64_t operator()(const char* bytes, std::uint32_t length,
                                      std::uint64_t seed) const {
    constexpr std::uint64_t c1 = 0x87c37b91114253d5ULL;
    constexpr std::uint64_t c2 = 0x4cf5ad432745937fULL;
    std::uint64_t h = seed ^ (std::uint64_t{length} * 0x9e3779b97f4a7c15ULL);
    for (std::uint32_t i = 0; i < length; i += 8) {
      std::uint64_t word = detail::load_bytes(bytes + i, length - i);
      word = detail::rotate_left(word * c1, 31) * c2;
      h = detail::rotate_left(h ^ word, 27) * 5 + 0x52dce729;
    }
    return murmur3_fmix64(h ^ length);
  }
};

}  // namespace gpuhash
