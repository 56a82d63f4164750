// Cuckoo Node Hashing on the CPU backend.

#include "cuckoo_node_tests.hpp"
#include "gpuhash/cpu/backend.hpp"

namespace gpuhash::testing {
INSTANTIATE_TYPED_TEST_SUITE_P(cuckoo_node, cuckoo_node, cuckoo_node_tables<cpu_backend>);
}  // namespace gpuhash::testing

// Probe counting (the paper's Table I) is a compile-time switch of the
// preset, compiled here, on the CPU.
#include "gpuhash/cuckoo_node_map_impl.hpp"

namespace gpuhash::testing {

TEST(cuckoo_node_probe_counting, a_miss_probes_every_choice_of_every_node) {
  using counting_map = cuckoo_node_map_with<std::uint32_t, std::uint32_t, cpu_backend,
                                            cuckoo_node_preset<32, 4, 0, true>>;
  seeded_random random;
  const std::size_t n = 2000;
  // Room for twice the keys in the heads: every chain is one node.
  counting_map table(table_options{64 * n, 1.0f, random.next()});
  const auto keys = distinct_keys<counting_map>(random, 2 * n);
  const std::vector<std::uint32_t> stored(keys.begin(), keys.begin() + n);
  const std::vector<std::uint32_t> absent(keys.begin() + n, keys.end());
  table.insert(stored, random_values<std::uint32_t>(random, n));
  ASSERT_EQ(table.engine().free_nodes({}), table.engine().pool_nodes())
      << "a chain grew past its head";
  table.engine().reset_probes({});
  table.find(stored);
  table.find(absent);
  const auto tally = table.engine().probes({});
  EXPECT_EQ(tally.found_searches, n);
  EXPECT_EQ(tally.missed_searches, n);
  EXPECT_EQ(tally.missed_probes, 4 * n);  // |H| slots of the one node
  EXPECT_GE(tally.found_probes, n);       // one to four slots until the key
  EXPECT_LE(tally.found_probes, 4 * n);
}

}  // namespace gpuhash::testing

namespace gpuhash::testing {

TEST(cuckoo_node_local_spans, a_keys_positions_are_two_whole_spans) {
  using view = detail::cuckoo_node::chain_view<std::uint32_t, std::uint32_t, 128, 8, false, true>;
  static_assert(view::span_slots == 4 && view::span_bytes == 32);  // one sector of 8-byte pairs
  static_assert(sizeof(view::node_type) % 64 == 0 && alignof(view::node_type) == 64);
  using wide_view =
      detail::cuckoo_node::chain_view<std::uint64_t, std::uint64_t, 128, 8, false, true>;
  static_assert(wide_view::span_slots == 4 && wide_view::span_bytes == 64);
  seeded_random random;
  const view v(nullptr, nullptr, 1, random.next(), {}, 64);
  std::vector<std::uint32_t> first_spans(32, 0), second_spans(32, 0);
  for (int i = 0; i < 32000; ++i) {
    const auto key = static_cast<std::uint32_t>(random.next());
    const std::uint32_t first = v.position(key, 0);
    const std::uint32_t second = v.position(key, 4);
    ASSERT_EQ(first % 4, 0U) << "key " << key;
    ASSERT_EQ(second % 4, 0U) << "key " << key;
    ASSERT_NE(first, second) << "key " << key << ": its two spans are one";
    ASSERT_LT(second, 128U);
    for (std::uint32_t c = 0; c < 4; ++c) {
      ASSERT_EQ(v.position(key, c), first + c) << "key " << key << ", choice " << c;
      ASSERT_EQ(v.position(key, 4 + c), second + c) << "key " << key << ", choice " << 4 + c;
    }
    ++first_spans[first / 4];
    ++second_spans[second / 4];
  }
  for (std::size_t span = 0; span < 32; ++span) {  // spans are picked evenly: 1000 each
    EXPECT_GT(first_spans[span], 800U) << "span " << span;
    EXPECT_GT(second_spans[span], 800U) << "span " << span;
  }
}

}  // namespace gpuhash::testing

// The paper's own insert policy (cnh.table1's reproduction): walks are not
// undone and carry other keys on to later nodes, so the two things to check
// are that every key stays stored once, and that a pool running dry undoes
// every walk (the rejected key is absent, every other key is still there).
namespace gpuhash::testing {

using paper_insert_map = cuckoo_node_map_with<std::uint32_t, std::uint32_t, cpu_backend,
                                              cuckoo_node_preset<128, 4, 0, true, false, true>>;

TEST(cuckoo_node_paper_insert, chains_keep_every_key_once) {
  seeded_random random;
  paper_insert_map table(table_options{8 * 128, 0.0f, random.next()});  // 8 buckets
  const std::size_t n = 8 * 128 * 4;  // chains of four to five nodes
  const auto keys = distinct_keys<paper_insert_map>(random, n);
  const auto values = random_values<std::uint32_t>(random, n);
  for (const status s : table.insert(keys, values)) ASSERT_EQ(s, status::inserted);
  EXPECT_EQ(table.size(), n);
  expect_all_found(table, keys, values);
  EXPECT_EQ(contents(table).size(), n);  // contents() fails on a key stored twice
}

TEST(cuckoo_node_paper_insert, a_dry_pool_undoes_every_walk) {
  seeded_random random;
  paper_insert_map table(table_options{4 * 128, 1.0f, random.next()});  // 4 buckets, 1 pool node
  const std::size_t slots = table.capacity();
  const auto keys = distinct_keys<paper_insert_map>(random, slots);
  const auto values = random_values<std::uint32_t>(random, slots);
  std::vector<status> statuses(slots);
  table.insert_async(keys.data(), values.data(), slots, statuses.data());
  ASSERT_EQ(table.capacity(), slots) << "the batch was meant to run without growing";
  std::vector<std::uint32_t> stored, stored_values, rejected;
  for (std::size_t i = 0; i < slots; ++i) {
    ASSERT_TRUE(statuses[i] == status::inserted || statuses[i] == status::full) << statuses[i];
    if (statuses[i] == status::inserted) {
      stored.push_back(keys[i]);
      stored_values.push_back(values[i]);
    } else {
      rejected.push_back(keys[i]);
    }
  }
  // Walks fail at half a node's slots: the one pool node is soon taken.
  ASSERT_FALSE(rejected.empty()) << "the pool never ran dry: the test checks nothing";
  EXPECT_EQ(table.size(), stored.size());
  expect_all_found(table, stored, stored_values);
  for (const status s : table.find(rejected).statuses) EXPECT_EQ(s, status::not_found);
}

}  // namespace gpuhash::testing
