// A sharded map of a key type of the user's (gpuhash/key_types.hpp) whose
// equality looks at part of the key: the placement follows the table's
// hash policy, so keys the table calls equal meet in one shard, whichever
// part of a spread batch they come in. Tables of such types are
// header-only: this file includes the _impl headers.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpuhash/host_device.hpp"
#include "gpuhash/linear_probing_map_impl.hpp"
#include "gpuhash/sharded_map_impl.hpp"

namespace gpuhash::testing {
namespace {

/// Equal when the ids are: the tag rides along.
struct tagged_key {
  std::uint32_t id;
  std::uint32_t tag;
};
struct tagged_hash {
  GPUHASH_HD std::uint64_t operator()(const tagged_key& key) const { return key.id; }
};
struct tagged_equal {
  GPUHASH_HD bool operator()(const tagged_key& a, const tagged_key& b) const {
    return a.id == b.id;
  }
};

using tagged_table =
    linear_probing_map<tagged_key, std::uint32_t, cpu_backend, tagged_hash, tagged_equal>;
using sharded_tagged = sharded_map<tagged_table, host_exchange, tagged_hash>;

TEST(sharded_key_types, keys_equal_by_the_tables_equality_meet_in_one_shard) {
  constexpr std::size_t shards = 3;
  constexpr std::uint32_t ids = 2000;
  sharded_tagged table(shards);
  // Part g holds every id with tag g, and the value g + 1.
  std::vector<std::vector<tagged_key>> keys(shards);
  std::vector<std::vector<std::uint32_t>> values(shards);
  std::vector<std::vector<status>> statuses(shards, std::vector<status>(ids));
  std::vector<const tagged_key*> key_parts;
  std::vector<const std::uint32_t*> value_parts;
  std::vector<status*> status_parts;
  for (std::size_t g = 0; g < shards; ++g) {
    for (std::uint32_t id = 0; id < ids; ++id)
      keys[g].push_back({id, static_cast<std::uint32_t>(g)});
    values[g].assign(ids, static_cast<std::uint32_t>(g + 1));
    key_parts.push_back(keys[g].data());
    value_parts.push_back(values[g].data());
    status_parts.push_back(statuses[g].data());
  }
  table.insert(key_parts, value_parts, std::vector<std::size_t>(shards, ids), status_parts);
  EXPECT_EQ(table.size(), ids);

  std::vector<tagged_key> queries;
  for (std::uint32_t id = 0; id < ids; ++id) queries.push_back({id, 77});  // a tag nobody stored
  const auto found = table.find(queries);
  for (std::uint32_t id = 0; id < ids; ++id) {
    std::size_t inserted = 0;
    for (std::size_t g = 0; g < shards; ++g) {
      ASSERT_TRUE(statuses[g][id] == status::inserted || statuses[g][id] == status::exists);
      if (statuses[g][id] == status::inserted) {
        ++inserted;
        EXPECT_EQ(found.values[id], g + 1) << "id " << id;
      }
    }
    EXPECT_EQ(inserted, 1U) << "id " << id;
    EXPECT_EQ(found.statuses[id], status::found) << "id " << id;
  }
}

}  // namespace
}  // namespace gpuhash::testing
