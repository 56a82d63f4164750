// The bucketed cuckoo engine with lookahead eviction on the CUDA backend, for
// bucketed_cuckoo_cuda's tests (the library compiles only the random walk).

#include <cstdint>

#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/detail/bucketed_cuckoo/engine_impl.hpp"

namespace gpuhash::detail::bucketed_cuckoo {
template class engine<std::uint32_t, std::uint32_t, cuda_backend, 32, 2,
                      eviction_policy::lookahead>;
}  // namespace gpuhash::detail::bucketed_cuckoo
