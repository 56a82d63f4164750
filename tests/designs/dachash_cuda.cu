#include <cstdint>

#include "dachash_tests.hpp"
#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/detail/dachash/engine_impl.hpp"
#include "node_pool_tests.hpp"

namespace gpuhash::detail::dachash {
// 16-byte nodes (one 32/32 pair each) are not compiled into the library;
// these tests instantiate them for the longest chains and the most racing
// node attachments.
template class engine<std::uint32_t, std::uint32_t, cuda_backend, 16>;
}  // namespace gpuhash::detail::dachash

namespace gpuhash::testing {
using cuda_dachash_tables = ::testing::Types<
    dachash_map<std::uint32_t, std::uint32_t, cuda_backend>,
    dachash_map<std::uint64_t, std::uint64_t, cuda_backend>,
    basic_map<detail::dachash::engine<std::uint32_t, std::uint32_t, cuda_backend, 16>>>;
INSTANTIATE_TYPED_TEST_SUITE_P(dachash, dachash, cuda_dachash_tables);
INSTANTIATE_TYPED_TEST_SUITE_P(node_pool, node_pool, ::testing::Types<cuda_backend>);
}  // namespace gpuhash::testing
