#pragma once
// Tests of the node pool (detail/node_pool.hpp), the concurrent stack the
// chained designs allocate from. Instantiated per backend in a file the
// backend's compiler builds (the pool launches work through exec).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include "gpuhash/detail/node_pool.hpp"

namespace gpuhash::testing {

struct alignas(16) test_node {
  std::uint64_t words[2];
};

template <class Node>
struct pop_into {
  detail::node_pool_view<Node> pool;
  detail::node_index* out;
  GPUHASH_HD void operator()(std::uint64_t i) const { out[i] = pool.pop(); }
};

template <class Node>
struct push_from {
  detail::node_pool_view<Node> pool;
  const detail::node_index* in;
  GPUHASH_HD void operator()(std::uint64_t i) const { pool.push(in[i]); }
};

template <class Backend>
class node_pool : public ::testing::Test {
 protected:
  using pool_type = detail::node_pool<test_node, Backend>;

  void SetUp() override {
    if (!Backend::available())
      GTEST_SKIP() << "no " << Backend::name
                   << " device: these tests need an NVIDIA GPU (scripts/gpu-check runs them)";
  }

  /// `threads` concurrent pops; returns what each got.
  static std::vector<detail::node_index> pop_concurrently(pool_type& pool, std::size_t threads) {
    auto out = Backend::template allocate<detail::node_index>(threads);
    detail::exec<Backend>::for_each(threads, pop_into<test_node>{pool.view(), out.data()}, {});
    std::vector<detail::node_index> result(threads);
    Backend::copy_to_host(result.data(), out.data(), threads, {});
    return result;
  }
  static void push_concurrently(pool_type& pool, const std::vector<detail::node_index>& nodes) {
    auto in = Backend::template allocate<detail::node_index>(nodes.size());
    Backend::copy_from_host(in.data(), nodes.data(), nodes.size(), {});
    detail::exec<Backend>::for_each(nodes.size(), push_from<test_node>{pool.view(), in.data()}, {});
    Backend::synchronize({});
  }
  /// The popped nodes (no_node left out), checked to be distinct.
  static std::set<detail::node_index> distinct_popped(
      const std::vector<detail::node_index>& popped) {
    std::set<detail::node_index> nodes;
    for (const detail::node_index index : popped) {
      if (index == detail::no_node) continue;
      EXPECT_TRUE(nodes.insert(index).second) << "node " << index << " handed out twice";
    }
    return nodes;
  }
};

TYPED_TEST_SUITE_P(node_pool);

TYPED_TEST_P(node_pool, concurrent_pops_hand_out_each_node_once) {
  typename TestFixture::pool_type pool(100, {});
  pool.add_chunk({});
  ASSERT_EQ(pool.nodes(), 128U + 256U) << "chunks of 128 (100 rounded up) then 256";
  ASSERT_EQ(pool.free_nodes({}), pool.nodes());
  // More pops than nodes: every node exactly once, the rest find it empty.
  const auto popped = TestFixture::pop_concurrently(pool, 5000);
  const auto nodes = TestFixture::distinct_popped(popped);
  EXPECT_EQ(nodes.size(), pool.nodes());
  EXPECT_EQ(*nodes.rbegin(), pool.nodes() - 1);
  EXPECT_EQ(pool.free_nodes({}), 0U) << "failed pops must leave the count at zero";
  EXPECT_EQ(pool.empty_entries_popped({}), 0U);
}

TYPED_TEST_P(node_pool, pushed_nodes_are_handed_out_again) {
  typename TestFixture::pool_type pool(64, {});
  const auto first = TestFixture::pop_concurrently(pool, 64);
  std::vector<detail::node_index> returned(first.begin(), first.begin() + 40);
  TestFixture::push_concurrently(pool, returned);
  EXPECT_EQ(pool.free_nodes({}), 40U);
  const auto again = TestFixture::distinct_popped(TestFixture::pop_concurrently(pool, 100));
  EXPECT_EQ(again, std::set<detail::node_index>(returned.begin(), returned.end()));
}

TYPED_TEST_P(node_pool, adding_a_chunk_moves_no_node) {
  typename TestFixture::pool_type pool(32, {});
  std::vector<const test_node*> before;
  for (detail::node_index i = 0; i < pool.nodes(); ++i) before.push_back(&pool.view().node(i));
  // Nodes in use stay where they are; the new chunk's nodes are free.
  (void)TestFixture::pop_concurrently(pool, 10);
  for (int chunk = 0; chunk < 4; ++chunk) pool.add_chunk({});
  EXPECT_EQ(pool.nodes(), 32U * 31U);
  EXPECT_EQ(pool.free_nodes({}), pool.nodes() - 10);
  std::set<const test_node*> addresses;
  for (detail::node_index i = 0; i < pool.nodes(); ++i) {
    const test_node* node = &pool.view().node(i);
    if (i < before.size()) {
      EXPECT_EQ(node, before[i]) << "node " << i << " moved";
    }
    EXPECT_TRUE(addresses.insert(node).second) << "nodes " << i << " share an address";
  }
  const auto nodes = TestFixture::distinct_popped(TestFixture::pop_concurrently(pool, 2000));
  EXPECT_EQ(nodes.size(), pool.nodes() - 10);
  EXPECT_EQ(nodes.count(0), 0U) << "a node in use was handed out again";
}

REGISTER_TYPED_TEST_SUITE_P(node_pool, concurrent_pops_hand_out_each_node_once,
                            pushed_nodes_are_handed_out_again, adding_a_chunk_moves_no_node);

}  // namespace gpuhash::testing
