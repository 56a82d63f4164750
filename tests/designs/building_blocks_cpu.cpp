// The building blocks of the chained and HashGraph designs on the CPU
// backend: the node pool, the reorder, the segments; and the stable
// partition that groups a sharded batch by shard.

#include "gpuhash/cpu/backend.hpp"
#include "node_pool_tests.hpp"
#include "partition_tests.hpp"
#include "reorder_tests.hpp"
#include "segments_tests.hpp"

namespace gpuhash::testing {
INSTANTIATE_TYPED_TEST_SUITE_P(node_pool, node_pool, ::testing::Types<cpu_backend>);
INSTANTIATE_TYPED_TEST_SUITE_P(reorder, reorder, ::testing::Types<cpu_backend>);
INSTANTIATE_TYPED_TEST_SUITE_P(segments, segments, ::testing::Types<cpu_backend>);
INSTANTIATE_TYPED_TEST_SUITE_P(partition, stable_partition, ::testing::Types<cpu_backend>);
}  // namespace gpuhash::testing
