// The conformance suite on sharded maps of 64/64-bit bucketed cuckoo shards
// (CPU backend, host exchange): 1 to 4 shards, batches on one shard and
// spread over all of them.

#include "conformance/conformance.hpp"
#include "gpuhash/bucketed_cuckoo_map.hpp"
#include "sharded/sharded_tables.hpp"

namespace gpuhash::testing {

template <std::size_t Shards, input_layout Layout>
using sharded_64 =
    sharded_under_test<bucketed_cuckoo_map<std::uint64_t, std::uint64_t>, Shards, Layout>;

using sharded_tables_64 =
    ::testing::Types<sharded_64<1, input_layout::one_shard>, sharded_64<2, input_layout::one_shard>,
                     sharded_64<3, input_layout::one_shard>, sharded_64<4, input_layout::one_shard>,
                     sharded_64<1, input_layout::spread>, sharded_64<2, input_layout::spread>,
                     sharded_64<3, input_layout::spread>, sharded_64<4, input_layout::spread>>;
INSTANTIATE_TYPED_TEST_SUITE_P(sharded_64, conformance, sharded_tables_64);

}  // namespace gpuhash::testing
