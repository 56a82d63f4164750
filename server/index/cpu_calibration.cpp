// The CPU index's cost of a key by its size (cpu_calibration.hpp).

#include "index/cpu_calibration.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <random>
#include <vector>

#include "index/index_service.hpp"

namespace gpuhash::server::index {

namespace {

/// Keys of a timed batch: a busy shard's batches carry tens of keys.
constexpr std::size_t keys_per_batch = 32;
/// Finds timed at each size (in batches of keys_per_batch), three times.
constexpr std::size_t timed_finds = std::size_t{1} << 15;
constexpr std::size_t rounds = 3;
/// Inserts a filling batch holds.
constexpr std::size_t filling_batch = std::size_t{1} << 16;

}  // namespace

key_cost_curve calibrate_cpu_index(std::size_t largest_entries) {
  const std::size_t most =
      std::clamp(largest_entries, calibration_least_entries, calibration_most_entries);
  std::mt19937_64 random(0x9e3779b97f4a7c15ull);
  const auto any_signature = [&] {
    for (;;)
      if (const auto signature = static_cast<signature_type>(random()); signature != 0)
        return signature;
  };
  const std::unique_ptr<index_service> index = make_cpu_index(most, random());
  std::vector<signature_type> stored;
  stored.reserve(most);
  std::vector<index_batch> finds(timed_finds / keys_per_batch);
  key_cost_curve curve;
  index_batch filling;
  for (std::size_t size = calibration_least_entries;; size = std::min(size * 4, most)) {
    while (stored.size() < size) {
      filling.clear();
      const std::size_t n = std::min(filling_batch, size - stored.size());
      for (std::size_t i = 0; i < n; ++i) {
        const signature_type signature = any_signature();
        filling.add(operation::insert, signature, static_cast<location_type>(stored.size()));
        stored.push_back(signature);
      }
      index->apply(filling);
    }
    std::uniform_int_distribution<std::size_t> any_stored(0, stored.size() - 1);
    for (index_batch& batch : finds) {
      batch.clear();
      for (std::size_t k = 0; k < keys_per_batch; ++k)
        batch.add(operation::search, stored[any_stored(random)], 0);
    }
    std::array<double, rounds> ns_per_key{};
    for (double& each : ns_per_key) {
      const auto start = std::chrono::steady_clock::now();
      for (const index_batch& batch : finds) index->apply(batch);
      const auto took = std::chrono::steady_clock::now() - start;
      each =
          static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(took).count()) /
          static_cast<double>(timed_finds);
    }
    std::ranges::sort(ns_per_key);
    curve.add(size, ns_per_key[rounds / 2]);
    if (size == most) break;
  }
  return curve;
}

}  // namespace gpuhash::server::index
