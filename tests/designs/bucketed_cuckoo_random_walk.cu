// The bucketed cuckoo engine with random-walk eviction on the CUDA backend,
// for bucketed_cuckoo_cuda's tests (the library compiles only the default,
// lookahead eviction).

#include <cstdint>

#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/detail/bucketed_cuckoo/engine_impl.hpp"

namespace gpuhash::detail::bucketed_cuckoo {
template class engine<std::uint32_t, std::uint32_t, cuda_backend, 32, 2,
                      eviction_policy::random_walk>;
}  // namespace gpuhash::detail::bucketed_cuckoo
