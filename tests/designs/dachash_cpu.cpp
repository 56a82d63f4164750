#include <cstdint>

#include "dachash_tests.hpp"
#include "gpuhash/detail/dachash/engine_impl.hpp"

namespace gpuhash::detail::dachash {
// 16-byte nodes (one 32/32 pair each) are not compiled into the library;
// these tests instantiate them for the longest chains.
template class engine<std::uint32_t, std::uint32_t, cpu_backend, preset<16>>;
}  // namespace gpuhash::detail::dachash

namespace gpuhash::testing {
using cpu_dachash_tables =
    ::testing::Types<dachash_map<std::uint32_t, std::uint32_t, cpu_backend>,
                     dachash_map<std::uint64_t, std::uint64_t, cpu_backend>,
                     basic_map<detail::dachash::engine<std::uint32_t, std::uint32_t, cpu_backend,
                                                       detail::dachash::preset<16>>>,
                     dachash_paper_map<std::uint32_t, std::uint32_t, cpu_backend>,
                     dachash_slab_map<std::uint64_t, std::uint64_t, cpu_backend>>;
INSTANTIATE_TYPED_TEST_SUITE_P(dachash, dachash, cpu_dachash_tables);
}  // namespace gpuhash::testing
