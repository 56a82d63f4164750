// The sharded map's per-device steps on the CPU backend, for the library's
// key/value widths, the default placement and both position widths.

#include <cstdint>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/detail/sharded/steps_impl.hpp"
#include "gpuhash/shard_placement.hpp"

namespace gpuhash::detail::sharded {
template struct steps<cpu_backend, std::uint32_t, std::uint32_t, shard_placement<std::uint32_t>,
                      std::uint32_t>;
template struct steps<cpu_backend, std::uint32_t, std::uint32_t, shard_placement<std::uint32_t>,
                      std::uint64_t>;
template struct steps<cpu_backend, std::uint64_t, std::uint64_t, shard_placement<std::uint64_t>,
                      std::uint32_t>;
template struct steps<cpu_backend, std::uint64_t, std::uint64_t, shard_placement<std::uint64_t>,
                      std::uint64_t>;
}  // namespace gpuhash::detail::sharded
