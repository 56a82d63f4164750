#pragma once
// The bucketed cuckoo configurations that bucketed_cuckoo.bucket_size
// compares, for 32/32-bit pairs. The library compiles only its default
// (32-byte buckets, four choices with a backyard of 3/16, one thread per
// find); the others are instantiated by bucketed_cuckoo_variant.cpp (CPU;
// not for tile finds) and .cu (CUDA), which bench/CMakeLists.txt compiles
// once per configuration when GPUHASH_BENCH_VARIANTS is ON (off by default:
// each costs a CUDA engine build). Its list of configurations must match this one (a configuration
// missing there fails to link).

#include <cstdint>
#include <string>
#include <type_traits>

#include "gpuhash/bucketed_cuckoo_config.hpp"
#include "gpuhash/bucketed_cuckoo_map.hpp"
#include "gpuhash/cpu/backend.hpp"
#include "support/designs.hpp"

namespace gpuhash::bench {

/// A bucketed_cuckoo_config with what the experiment reports of it.
template <std::uint32_t BucketBytes, std::uint32_t Choices,
          bucketed_cuckoo_eviction Eviction = bucketed_cuckoo_eviction::lookahead,
          bucketed_cuckoo_find_path FindPath = bucketed_cuckoo_find_path::per_thread,
          std::uint32_t BackyardSixteenths = 0>
struct cuckoo_configuration {
  using config =
      bucketed_cuckoo_config<BucketBytes, Choices, Eviction, FindPath, BackyardSixteenths>;
  static constexpr std::uint32_t bucket_bytes = BucketBytes;
  static constexpr std::uint32_t choices = Choices;
  static constexpr std::uint32_t backyard_sixteenths = BackyardSixteenths;
  /// Threads that search one key on the GPU.
  static constexpr std::uint32_t find_lanes =
      FindPath == bucketed_cuckoo_find_path::tile ? BucketBytes / 16 : 1;
  /// The CPU has no tiles: there a tile configuration would repeat the
  /// per-thread one, so it is neither built nor run.
  template <class Backend>
  static constexpr bool runs_on =
      FindPath != bucketed_cuckoo_find_path::tile || !std::is_same_v<Backend, cpu_backend>;

  template <class Backend>
  using on = bucketed_cuckoo_map_with<std::uint32_t, std::uint32_t, Backend, config>;

  /// "b64c3": 64-byte buckets, three choices; "b32c4-y2": four choices, the
  /// last two in a backyard of 2/16 of the buckets; "b32c2-walk": with
  /// random-walk eviction instead of the default lookahead; "b64c2-tile":
  /// finds by one tile of 64 / 16 = 4 threads per key on the GPU.
  static std::string label() {
    return "b" + std::to_string(BucketBytes) + "c" + std::to_string(Choices) +
           (BackyardSixteenths != 0 ? "-y" + std::to_string(BackyardSixteenths) : "") +
           (Eviction == bucketed_cuckoo_eviction::random_walk ? "-walk" : "") +
           (FindPath == bucketed_cuckoo_find_path::tile ? "-tile" : "");
  }
};

using default_cuckoo_configuration = cuckoo_configuration<
    bucketed_cuckoo_default_config<std::uint32_t, std::uint32_t>::bucket_bytes,
    bucketed_cuckoo_default_config<std::uint32_t, std::uint32_t>::choices,
    bucketed_cuckoo_default_config<std::uint32_t, std::uint32_t>::eviction,
    bucketed_cuckoo_default_config<std::uint32_t, std::uint32_t>::find_path,
    bucketed_cuckoo_default_config<std::uint32_t, std::uint32_t>::backyard_sixteenths>;

#if defined(GPUHASH_BENCH_VARIANTS)
inline constexpr bool cuckoo_variants_built = true;
using bucket_size_configurations =
    support::type_list<default_cuckoo_configuration, cuckoo_configuration<32, 2>,
                       cuckoo_configuration<64, 2>, cuckoo_configuration<128, 2>,
                       cuckoo_configuration<32, 3>, cuckoo_configuration<64, 3>,
                       cuckoo_configuration<128, 3>, cuckoo_configuration<32, 4>,
                       cuckoo_configuration<32, 3, bucketed_cuckoo_eviction::lookahead,
                                            bucketed_cuckoo_find_path::per_thread, 2>,
                       cuckoo_configuration<32, 3, bucketed_cuckoo_eviction::lookahead,
                                            bucketed_cuckoo_find_path::per_thread, 3>,
                       cuckoo_configuration<32, 3, bucketed_cuckoo_eviction::lookahead,
                                            bucketed_cuckoo_find_path::per_thread, 4>,
                       cuckoo_configuration<32, 4, bucketed_cuckoo_eviction::lookahead,
                                            bucketed_cuckoo_find_path::per_thread, 2>,
                       cuckoo_configuration<32, 4, bucketed_cuckoo_eviction::lookahead,
                                            bucketed_cuckoo_find_path::per_thread, 4>,
                       cuckoo_configuration<32, 2, bucketed_cuckoo_eviction::random_walk>,
                       cuckoo_configuration<32, 3, bucketed_cuckoo_eviction::random_walk>,
                       cuckoo_configuration<32, 2, bucketed_cuckoo_eviction::lookahead,
                                            bucketed_cuckoo_find_path::tile>,
                       cuckoo_configuration<64, 2, bucketed_cuckoo_eviction::lookahead,
                                            bucketed_cuckoo_find_path::tile>,
                       cuckoo_configuration<128, 2, bucketed_cuckoo_eviction::lookahead,
                                            bucketed_cuckoo_find_path::tile>,
                       cuckoo_configuration<32, 3, bucketed_cuckoo_eviction::lookahead,
                                            bucketed_cuckoo_find_path::tile>>;
#else
inline constexpr bool cuckoo_variants_built = false;
using bucket_size_configurations = support::type_list<default_cuckoo_configuration>;
#endif

}  // namespace gpuhash::bench
