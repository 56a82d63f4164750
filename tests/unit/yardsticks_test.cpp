// gpuhash-bench's yardsticks: every registered design must be judged against
// a limit for each operation the benchmark reports of it (a missing one would
// throw only when a GPU run reaches its report), and every yardstick must
// name a limit that limits.cu measures.

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench/access_profile.hpp"
#include "bench/limits.hpp"
#include "bench/yardsticks.hpp"
#include "gpuhash/bucketed_cuckoo_map.hpp"
#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/dachash_map.hpp"
#include "support/designs.hpp"

namespace gpuhash::bench {
namespace {

/// What the benchmark's skeletons report of every registered design:
/// basic_ops.hpp's insert, find_hit, find_miss and erase, query_ops.hpp's
/// upserts (and finds that mix hits and misses), device_api's ref calls.
const std::vector<std::string> reported_ops{"insert", "find_hit", "find_miss", "erase", "upsert"};

TEST(yardsticks, every_yardstick_names_a_measured_limit_and_says_why) {
  std::set<std::pair<std::string_view, std::string_view>> seen;
  for (const yardstick& stick : yardsticks()) {
    EXPECT_TRUE(seen.insert({stick.design, stick.op}).second)
        << stick.design << " " << stick.op << " is listed twice";
    EXPECT_FALSE(stick.why.empty()) << stick.design << " " << stick.op;
    for (const std::uint32_t unit : {16U, 32U, 48U, 64U, 128U, 256U, 1024U})
      EXPECT_NE(find_access_limit(limit_of(stick, unit)), nullptr)
          << stick.design << " " << stick.op << ": " << limit_of(stick, unit);
  }
}

TEST(yardsticks, a_read_of_the_unit_is_a_read_of_its_sectors_up_to_a_line) {
  const yardstick& stick = *find_yardstick("bucketed_cuckoo", "find_hit_tile");
  EXPECT_EQ(limit_of(stick, 16), "random_read_32");
  EXPECT_EQ(limit_of(stick, 32), "random_read_32");
  EXPECT_EQ(limit_of(stick, 48), "random_read_64");
  EXPECT_EQ(limit_of(stick, 64), "random_read_64");
  EXPECT_EQ(limit_of(stick, 128), "random_read_128");
  EXPECT_EQ(limit_of(stick, 1024), "random_read_128");
}

TEST(yardsticks, every_registered_design_is_judged_for_each_operation_it_reports) {
  support::for_each_type(support::registered_designs{}, [&]<class Instance>() {
    using Table = typename Instance::template on<cpu_backend>;
    const Table table(table_options{1024, 0.0f, 1});
    const std::string name(Table::design_name);
    for (const std::string& op : reported_ops) {
      EXPECT_NO_THROW(resolve(judge(table, op))) << name << " " << op;
      EXPECT_NO_THROW(resolve(judge_ref<Table>(op))) << name << " ref " << op;
    }
    EXPECT_NO_THROW(resolve(judge_mix(table, {{"find_hit", 0.25}, {"find_miss", 0.75}}))) << name;
  });
}

TEST(yardsticks, structures_timed_outside_the_common_api_are_judged) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> reported{
      // hashgraph/static_runs: builds and probes of each segment layout.
      {"hashgraph_static_csr", {"insert", "find_hit"}},
      {"hashgraph_static_ellpack", {"insert", "find_hit"}},
      {"hashgraph_static_sliced_ellpack", {"insert", "find_hit"}},
      // experiments/strings.cpp.
      {"string_map", {"insert", "find_hit", "find_miss", "erase"}},
      // cuckoo_node/reorder_runs.
      {"reorder_by_bucket", {"reorder"}},
      // Finds by tiles: bucketed cuckoo's tile path and refs, DACHash's
      // many-to-one mapping.
      {"bucketed_cuckoo", {"find_hit_tile", "find_miss_tile"}},
      {"dachash", {"find_hit_tile", "find_miss_tile"}},
      {"dachash_paper", {"find_hit_tile", "find_miss_tile"}},
      {"dachash_slab", {"find_hit_tile", "find_miss_tile"}},
  };
  for (const auto& [design, ops] : reported)
    for (const std::string& op : ops)
      EXPECT_NO_THROW(resolve(judged_by{design, 32, {{op, 1.0}}, {}})) << design << " " << op;
}

TEST(yardsticks, finds_read_by_tiles_are_judged_as_tile_reads) {
  using tiled =
      bucketed_cuckoo_map_with<std::uint32_t, std::uint32_t, cpu_backend,
                               bucketed_cuckoo_config<64, 2, bucketed_cuckoo_eviction::lookahead,
                                                      bucketed_cuckoo_find_path::tile>>;
  static_assert(tile_find_path<tiled>());
  static_assert(read_unit_bytes<tiled>() == 64);
  static_assert(!tile_find_path<bucketed_cuckoo_map<std::uint32_t, std::uint32_t, cpu_backend>>());

  dachash_map<std::uint32_t, std::uint32_t, cpu_backend> table(table_options{1024, 0.0f, 1});
  EXPECT_EQ(resolve(judge(table, "find_hit")).limit, "random_read_32");
  dachash_settings many = table.engine().settings();
  many.mapping = dachash_mapping::many_to_one;
  table.engine().configure(many);
  const resolved_yardstick tiles = resolve(judge(table, "find_hit"));
  EXPECT_EQ(tiles.yardstick, "dachash find_hit_tile");
  EXPECT_EQ(tiles.limit, "random_read_64");  // a whole 64-byte node
  EXPECT_EQ(resolve(judge(table, "insert")).limit, "read_then_cas_write");
}

TEST(yardsticks, a_reordering_table_names_its_reorder_as_a_reason) {
  dachash_map<std::uint32_t, std::uint32_t, cpu_backend> table(table_options{1024, 0.0f, 1});
  EXPECT_EQ(resolve(judge(table, "find_hit")).above_limit_because, "");
  dachash_settings reordered = table.engine().settings();
  reordered.combined_buckets = 256;
  table.engine().configure(reordered);
  EXPECT_EQ(resolve(judge(table, "find_hit")).above_limit_because, reordered_batch_reason);
  EXPECT_EQ(resolve(judge(table, "find_hit", "skewed keys")).above_limit_because,
            "skewed keys; " + std::string(reordered_batch_reason));
}

TEST(yardsticks, a_mixed_batch_is_judged_by_the_shares_of_its_limits) {
  const resolved_yardstick mixed =
      resolve({"dachash", 64, {{"find_hit", 0.5}, {"upsert", 0.25}, {"erase", 0.25}}, {}});
  ASSERT_EQ(mixed.parts.size(), 2U);  // upserts and erases share their limit
  EXPECT_EQ(mixed.parts[0].limit, "random_read_32");
  EXPECT_DOUBLE_EQ(mixed.parts[0].share, 0.5);
  EXPECT_EQ(mixed.parts[1].limit, "read_then_cas_write");
  EXPECT_DOUBLE_EQ(mixed.parts[1].share, 0.5);
  EXPECT_EQ(mixed.limit, "0.5 random_read_32 + 0.5 read_then_cas_write");
  EXPECT_EQ(mixed.yardstick, "0.5 dachash find_hit + 0.25 dachash upsert + 0.25 dachash erase");
  EXPECT_NE(mixed.above_limit_because.find("mixed batch"), std::string::npos);
  const double gops[] = {40.0, 10.0};
  EXPECT_DOUBLE_EQ(combined_limit(mixed.parts, gops), 1.0 / (0.5 / 40.0 + 0.5 / 10.0));

  // Finds that all hit (or all miss) are judged as one operation.
  const resolved_yardstick hits =
      resolve({"bucketed_cuckoo", 32, {{"find_hit", 1.0}, {"find_miss", 0.0}}, {}});
  EXPECT_EQ(hits.limit, "random_read_32");
  EXPECT_EQ(hits.yardstick, "bucketed_cuckoo find_hit");
  EXPECT_EQ(hits.above_limit_because, "");
}

TEST(yardsticks, a_missing_yardstick_names_the_design_and_the_operation) {
  try {
    resolve({"no_such_design", 32, {{"insert", 1.0}}, {}});
    FAIL() << "resolve accepted a design with no yardsticks";
  } catch (const std::invalid_argument& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("no_such_design"), std::string::npos) << message;
    EXPECT_NE(message.find("insert"), std::string::npos) << message;
  }
  EXPECT_THROW(resolve({"linear_probing", 32, {{"teleport", 1.0}}, {}}), std::invalid_argument);
}

}  // namespace
}  // namespace gpuhash::bench
