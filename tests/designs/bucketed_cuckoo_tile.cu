// The bucketed cuckoo engine with one tile per key for finds (find_path::tile)
// on the CUDA backend, for bucketed_cuckoo_cuda's tests (the library compiles
// only one thread per key): 32/32 pairs in 32-byte buckets (two lanes of two
// slots) and 64/64 pairs in 64-byte buckets (four lanes of one slot).

#include <cstdint>

#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/detail/bucketed_cuckoo/engine_impl.hpp"

namespace gpuhash::detail::bucketed_cuckoo {
template class engine<std::uint32_t, std::uint32_t, cuda_backend, 32, 2, eviction_policy::lookahead,
                      find_path::tile>;
template class engine<std::uint64_t, std::uint64_t, cuda_backend, 64, 2, eviction_policy::lookahead,
                      find_path::tile>;
}  // namespace gpuhash::detail::bucketed_cuckoo
