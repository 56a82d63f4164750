// dachash.fig7_1's node sizes and dachash.tiles' tile sizes besides the
// library's (dachash_variants.hpp),
// on the CPU backend.

#include <cstdint>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/detail/dachash/engine_impl.hpp"

namespace gpuhash::detail::dachash {
template class engine<std::uint32_t, std::uint32_t, cpu_backend, preset<16>>;
template class engine<std::uint32_t, std::uint32_t, cpu_backend, preset<32>>;
template class engine<std::uint64_t, std::uint64_t, cpu_backend, preset<32>>;
template class engine<std::uint32_t, std::uint32_t, cpu_backend, preset<64, 1>>;
template class engine<std::uint32_t, std::uint32_t, cpu_backend, preset<64, 2>>;
template class engine<std::uint32_t, std::uint32_t, cpu_backend, preset<64, 4>>;
template class engine<std::uint32_t, std::uint32_t, cpu_backend, preset<64, 16>>;
template class engine<std::uint32_t, std::uint32_t, cpu_backend, preset<64, 32>>;
}  // namespace gpuhash::detail::dachash
