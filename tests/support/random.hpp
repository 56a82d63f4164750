#pragma once
// Seeded randomness for tests. Every randomized test draws from a
// seeded_random whose seed is printed on failure (through SCOPED_TRACE), and
// GPUHASH_TEST_SEED replays a run.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>

namespace gpuhash::testing {

inline std::uint64_t base_seed() {
  if (const char* text = std::getenv("GPUHASH_TEST_SEED")) return std::strtoull(text, nullptr, 0);
  return std::random_device{}();
}

/// Scales test sizes: GPUHASH_TEST_SCALE=0.05 keeps sanitizer runs short.
inline std::size_t scaled(std::size_t n) {
  double scale = 1.0;
  if (const char* text = std::getenv("GPUHASH_TEST_SCALE")) scale = std::strtod(text, nullptr);
  const auto result = static_cast<std::size_t>(static_cast<double>(n) * scale);
  // Bounded both ways (also lets the compiler see that sizes are sane).
  return std::clamp<std::size_t>(result, 16, std::size_t{1} << 28);
}

class seeded_random {
 public:
  seeded_random()
      : seed_(base_seed()),
        trace_(__FILE__, __LINE__, "GPUHASH_TEST_SEED=" + std::to_string(seed_)),
        engine_(seed_) {}

  std::uint64_t seed() const { return seed_; }
  std::mt19937_64& engine() { return engine_; }
  std::uint64_t next() { return engine_(); }
  /// Uniform in [0, bound).
  std::uint64_t below(std::uint64_t bound) {
    return std::uniform_int_distribution<std::uint64_t>(0, bound - 1)(engine_);
  }

 private:
  std::uint64_t seed_;
  ::testing::ScopedTrace trace_;
  std::mt19937_64 engine_;
};

}  // namespace gpuhash::testing
