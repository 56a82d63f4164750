// The conformance suite on sharded maps of 32/32-bit bucketed cuckoo shards
// (CPU backend, host exchange). CI builds two layouts here and two in
// sharded_conformance_64.cpp, which together cover 2, 3 and 4 shards and
// both input forms at each width: here 3 shards fed from the last (a source
// other than shard 0, a shard count that is not a power of two) and 4
// spread (uneven parts, the first ones empty in small batches). The tests'
// variants (GPUHASH_TEST_VARIANTS) build every layout.

#include "conformance/conformance.hpp"
#include "gpuhash/bucketed_cuckoo_map.hpp"
#include "sharded/sharded_tables.hpp"

namespace gpuhash::testing {

using table_32 = bucketed_cuckoo_map<std::uint32_t, std::uint32_t>;
#if defined(GPUHASH_TEST_VARIANTS)
using sharded_tables_32 = every_sharded_layout<table_32>;
#else
using sharded_tables_32 = ::testing::Types<sharded_under_test<table_32, 3, input_layout::one_shard>,
                                           sharded_under_test<table_32, 4, input_layout::spread> >;
#endif
INSTANTIATE_TYPED_TEST_SUITE_P(sharded_32, conformance, sharded_tables_32);

}  // namespace gpuhash::testing
