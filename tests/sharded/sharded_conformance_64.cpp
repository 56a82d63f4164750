// The conformance suite on sharded maps of 64/64-bit bucketed cuckoo shards
// (CPU backend, host exchange). CI builds two layouts here, the other two of
// the subset sharded_conformance_32.cpp describes: 2 shards fed from the
// last and 3 spread. The tests' variants (GPUHASH_TEST_VARIANTS) build every
// layout.

#include "conformance/conformance.hpp"
#include "gpuhash/bucketed_cuckoo_map.hpp"
#include "sharded/sharded_tables.hpp"

namespace gpuhash::testing {

using table_64 = bucketed_cuckoo_map<std::uint64_t, std::uint64_t>;
#if defined(GPUHASH_TEST_VARIANTS)
using sharded_tables_64 = every_sharded_layout<table_64>;
#else
using sharded_tables_64 = ::testing::Types<sharded_under_test<table_64, 2, input_layout::one_shard>,
                                           sharded_under_test<table_64, 3, input_layout::spread> >;
#endif
INSTANTIATE_TYPED_TEST_SUITE_P(sharded_64, conformance, sharded_tables_64);

}  // namespace gpuhash::testing
