#pragma once
// The bucketed cuckoo configurations that cuckoo.bucket_size compares, for
// 32/32-bit pairs. The library compiles only its default (32-byte buckets,
// two choices); the others are instantiated by bucketed_cuckoo_variant.cpp
// (CPU) and .cu (CUDA), which bench/CMakeLists.txt compiles once per
// configuration when GPUHASH_BENCH_VARIANTS is ON (off by default: each
// costs a CUDA engine build). Its list of configurations must match this one
// (a configuration missing there fails to link).

#include <cstdint>
#include <string>

#include "gpuhash/detail/bucketed_cuckoo/engine.hpp"
#include "gpuhash/map.hpp"
#include "support/designs.hpp"

namespace gpuhash::bench {

template <std::uint32_t BucketBytes, std::uint32_t Choices,
          detail::bucketed_cuckoo::eviction_policy Eviction =
              detail::bucketed_cuckoo::eviction_policy::random_walk>
struct cuckoo_configuration {
  static constexpr std::uint32_t bucket_bytes = BucketBytes;
  static constexpr std::uint32_t choices = Choices;
  static constexpr auto eviction = Eviction;

  template <class Backend>
  using on = basic_map<detail::bucketed_cuckoo::engine<std::uint32_t, std::uint32_t, Backend,
                                                       BucketBytes, Choices, Eviction>>;

  /// "b64c3": 64-byte buckets, three choices; "b32c2-lookahead": with
  /// lookahead eviction instead of the random walk.
  static std::string label() {
    return "b" + std::to_string(BucketBytes) + "c" + std::to_string(Choices) +
           (Eviction == detail::bucketed_cuckoo::eviction_policy::lookahead ? "-lookahead" : "");
  }
};

using default_cuckoo_configuration =
    cuckoo_configuration<detail::bucketed_cuckoo::default_bucket_bytes<std::uint32_t>, 2>;

#if defined(GPUHASH_BENCH_VARIANTS)
inline constexpr bool cuckoo_variants_built = true;
using bucket_size_configurations = support::type_list<
    default_cuckoo_configuration, cuckoo_configuration<64, 2>, cuckoo_configuration<128, 2>,
    cuckoo_configuration<32, 3>, cuckoo_configuration<64, 3>, cuckoo_configuration<128, 3>,
    cuckoo_configuration<32, 2, detail::bucketed_cuckoo::eviction_policy::lookahead>,
    cuckoo_configuration<32, 3, detail::bucketed_cuckoo::eviction_policy::lookahead>>;
#else
inline constexpr bool cuckoo_variants_built = false;
using bucket_size_configurations = support::type_list<default_cuckoo_configuration>;
#endif

}  // namespace gpuhash::bench
