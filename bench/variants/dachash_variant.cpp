// dachash.fig7_1's node sizes and dachash.tiles' tile sizes besides the
// library's (dachash_variants.hpp),
// on the CPU backend.

#include <cstdint>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/dachash_map_impl.hpp"

GPUHASH_INSTANTIATE_DACHASH_MAP(std::uint32_t, std::uint32_t, gpuhash::cpu_backend,
                                gpuhash::dachash_preset<16>);
GPUHASH_INSTANTIATE_DACHASH_MAP(std::uint32_t, std::uint32_t, gpuhash::cpu_backend,
                                gpuhash::dachash_preset<32>);
GPUHASH_INSTANTIATE_DACHASH_MAP(std::uint64_t, std::uint64_t, gpuhash::cpu_backend,
                                gpuhash::dachash_preset<32>);
GPUHASH_INSTANTIATE_DACHASH_MAP(std::uint32_t, std::uint32_t, gpuhash::cpu_backend,
                                gpuhash::dachash_preset<64, 1>);
GPUHASH_INSTANTIATE_DACHASH_MAP(std::uint32_t, std::uint32_t, gpuhash::cpu_backend,
                                gpuhash::dachash_preset<64, 2>);
GPUHASH_INSTANTIATE_DACHASH_MAP(std::uint32_t, std::uint32_t, gpuhash::cpu_backend,
                                gpuhash::dachash_preset<64, 4>);
GPUHASH_INSTANTIATE_DACHASH_MAP(std::uint32_t, std::uint32_t, gpuhash::cpu_backend,
                                gpuhash::dachash_preset<64, 16>);
GPUHASH_INSTANTIATE_DACHASH_MAP(std::uint32_t, std::uint32_t, gpuhash::cpu_backend,
                                gpuhash::dachash_preset<64, 32>);
