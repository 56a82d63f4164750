// The conformance suite on sharded maps of 32/32-bit bucketed cuckoo shards
// (CPU backend, host exchange): 1 to 4 shards, batches on one shard and
// spread over all of them.

#include "conformance/conformance.hpp"
#include "gpuhash/bucketed_cuckoo_map.hpp"
#include "sharded/sharded_tables.hpp"

namespace gpuhash::testing {

template <std::size_t Shards, input_layout Layout>
using sharded_32 =
    sharded_under_test<bucketed_cuckoo_map<std::uint32_t, std::uint32_t>, Shards, Layout>;

using sharded_tables_32 =
    ::testing::Types<sharded_32<1, input_layout::one_shard>, sharded_32<2, input_layout::one_shard>,
                     sharded_32<3, input_layout::one_shard>, sharded_32<4, input_layout::one_shard>,
                     sharded_32<1, input_layout::spread>, sharded_32<2, input_layout::spread>,
                     sharded_32<3, input_layout::spread>, sharded_32<4, input_layout::spread>>;
INSTANTIATE_TYPED_TEST_SUITE_P(sharded_32, conformance, sharded_tables_32);

}  // namespace gpuhash::testing
