#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "dachash_tests.hpp"
#include "gpuhash/dachash_map_impl.hpp"

// 16-byte nodes (one 32/32 pair each) are not compiled into the library;
// these tests compile them for the longest chains.
GPUHASH_INSTANTIATE_DACHASH_MAP(std::uint32_t, std::uint32_t, gpuhash::cpu_backend,
                                gpuhash::dachash_preset<16>);

namespace gpuhash::testing {
using cpu_dachash_tables = ::testing::Types<
    dachash_map<std::uint32_t, std::uint32_t, cpu_backend>,
    dachash_map<std::uint64_t, std::uint64_t, cpu_backend>,
    dachash_map_with<std::uint32_t, std::uint32_t, cpu_backend, dachash_preset<16>>,
    dachash_paper_map<std::uint32_t, std::uint32_t, cpu_backend>,
    dachash_slab_map<std::uint64_t, std::uint64_t, cpu_backend>>;
INSTANTIATE_TYPED_TEST_SUITE_P(dachash, dachash, cpu_dachash_tables);

// A thread that turned a next index to linking_node and then never ran
// again (as compute-sanitizer showed on the GPU) must not stop the inserts
// waiting for it: they wait a bounded time, then link a popped node
// themselves, and every node popped ends up in the chain.
TEST(dachash_attach, waiters_link_nodes_when_the_attacher_never_finishes) {
  using view_type = detail::dachash::chain_view<std::uint32_t, std::uint32_t, 64>;
  using node_type = view_type::node_type;
  detail::node_pool<node_type, cpu_backend> pool(64, {});
  const std::size_t free_before = pool.free_nodes({});
  node_type head;
  std::memset(&head, 0xff, sizeof head);  // empty slots, as every node starts
  head.next = detail::linking_node;       // its attacher stopped half-way
  const view_type view(&head, 1, 1, pool.view());

  constexpr std::size_t waiters = 8;
  std::vector<detail::node_index> got(waiters, detail::no_node);
  {
    std::vector<std::jthread> threads;
    for (std::size_t t = 0; t < waiters; ++t)
      threads.emplace_back([&, t] { got[t] = view.attach_node(head); });
  }
  ASSERT_NE(head.next, detail::linking_node);
  ASSERT_NE(head.next, detail::no_node);
  for (const detail::node_index index : got) EXPECT_EQ(index, head.next);
  std::size_t linked = 0;
  for (detail::node_index at = head.next; at != detail::no_node; at = pool.view().node(at).next)
    ASSERT_LE(++linked, waiters) << "the chain is longer than the nodes popped";
  // The first waiter out of patience links a node; others that ran out at
  // the same time link theirs after it; the rest follow the link.
  EXPECT_GE(linked, 1U);
  EXPECT_EQ(free_before - pool.free_nodes({}), linked) << "a popped node is not in the chain";
}
}  // namespace gpuhash::testing
