#pragma once
// How a table is created: a capacity hint, a load limit and a hash seed.

#include <cstddef>
#include <cstdint>

namespace gpuhash {

struct table_options {
  /// Slots to allocate at construction (designs round up to their granularity).
  /// A hint, not a limit: tables grow past it (docs/architecture.md, basic_map).
  std::size_t capacity = 1024;
  /// Keys over allocated slots above which the table grows before a batch.
  /// 0 selects the design's default. Must be in (0, 1].
  float max_load_factor = 0.0f;
  /// Seed of the table's hash functions.
  std::uint64_t seed = 0x2545f4914f6cdd1dULL;
};

}  // namespace gpuhash
