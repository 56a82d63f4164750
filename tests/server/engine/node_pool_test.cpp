// The pool of a shard's host maps (engine/cache/node_pool.hpp): nodes of
// every size come back aligned, apart and reused, and maps on the pool
// behave as maps on the heap.

#include "engine/cache/node_pool.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory_resource>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

namespace gpuhash::server::engine {
namespace {

struct held {
  std::byte* memory;
  std::size_t bytes;
  std::size_t alignment;
  unsigned char fill;
};

// Random allocations and frees of every size to past the pooled ones, at
// every alignment up to 64: each aligned, none overlapping another held,
// and each keeping what was written into it until it is freed.
TEST(node_pool, NodesAreAlignedApartAndKeepTheirBytes) {
  node_pool pool;
  const std::uint64_t seed = std::random_device{}();
  std::mt19937_64 random(seed);
  std::vector<held> live;
  std::map<std::uintptr_t, std::uintptr_t> ranges;  // start -> end of each held
  for (int step = 0; step < 20000; ++step) {
    if (live.empty() || random() % 3 != 0) {
      const std::size_t bytes = 1 + random() % (node_pool::largest_node + 64);
      const std::size_t alignment = std::size_t{1} << (random() % 7);
      auto* memory = static_cast<std::byte*>(pool.allocate(bytes, alignment));
      const auto start = reinterpret_cast<std::uintptr_t>(memory);
      ASSERT_EQ(start % alignment, 0u) << "seed " << seed;
      const auto next = ranges.lower_bound(start);
      ASSERT_TRUE(next == ranges.end() || next->first >= start + bytes) << "seed " << seed;
      ASSERT_TRUE(next == ranges.begin() || std::prev(next)->second <= start) << "seed " << seed;
      ranges.emplace(start, start + bytes);
      const auto fill = static_cast<unsigned char>(random());
      std::memset(memory, fill, bytes);
      live.push_back({memory, bytes, alignment, fill});
    } else {
      const std::size_t i = random() % live.size();
      const held h = live[i];
      for (std::size_t b = 0; b < h.bytes; ++b)
        ASSERT_EQ(static_cast<unsigned char>(h.memory[b]), h.fill) << "seed " << seed;
      ranges.erase(reinterpret_cast<std::uintptr_t>(h.memory));
      pool.deallocate(h.memory, h.bytes, h.alignment);
      live[i] = live.back();
      live.pop_back();
    }
  }
  for (const held& h : live) pool.deallocate(h.memory, h.bytes, h.alignment);
}

TEST(node_pool, AFreedNodeIsTheNextOfItsSize) {
  node_pool pool;
  void* const first = pool.allocate(40, 8);
  void* const other = pool.allocate(24, 8);
  pool.deallocate(first, 40, 8);
  EXPECT_EQ(pool.allocate(48, 8), first);  // 40 and 48 share a size of node
  EXPECT_NE(pool.allocate(40, 8), first);
  pool.deallocate(other, 24, 8);
  EXPECT_TRUE(pool.is_equal(pool));
  node_pool another;
  EXPECT_FALSE(pool.is_equal(another));
}

// The cache's maps on the pool, against maps on the heap: inserts, erases,
// lookups, and the swap and clear of each batch's end.
TEST(node_pool, MapsOnThePoolBehaveAsMapsOnTheHeap) {
  node_pool pool;
  const std::uint64_t seed = std::random_device{}();
  std::mt19937_64 random(seed);
  std::pmr::unordered_map<std::uint64_t, int> fresh{&pool}, in_flight{&pool};
  std::unordered_map<std::uint64_t, int> fresh_model, in_flight_model;
  std::vector<std::string> keys;
  std::pmr::unordered_map<std::string_view, std::uint32_t> by_key{&pool};
  std::unordered_map<std::string, std::uint32_t> by_key_model;
  for (int k = 0; k < 300; ++k) keys.push_back("key:" + std::to_string(k));
  for (int step = 0; step < 50000; ++step) {
    const std::uint64_t entry = random() % 500;
    switch (random() % 8) {
      case 0:
      case 1:
      case 2:
        fresh[entry] += 1;
        fresh_model[entry] += 1;
        break;
      case 3:
        fresh.erase(entry);
        fresh_model.erase(entry);
        break;
      case 4: {
        const std::string& key = keys[random() % keys.size()];
        by_key[key] = static_cast<std::uint32_t>(step);
        by_key_model[key] = static_cast<std::uint32_t>(step);
        break;
      }
      case 5: {
        const std::string& key = keys[random() % keys.size()];
        by_key.erase(key);
        by_key_model.erase(key);
        break;
      }
      case 6:
        if (random() % 50 == 0) {
          in_flight.swap(fresh);
          fresh.clear();
          in_flight_model.swap(fresh_model);
          fresh_model.clear();
        }
        break;
      default:
        ASSERT_EQ(fresh.count(entry), fresh_model.count(entry)) << "seed " << seed;
        ASSERT_EQ(in_flight.count(entry), in_flight_model.count(entry)) << "seed " << seed;
    }
  }
  ASSERT_EQ(fresh.size(), fresh_model.size()) << "seed " << seed;
  for (const auto& [entry, count] : fresh_model) EXPECT_EQ(fresh.at(entry), count);
  for (const auto& [entry, count] : in_flight_model) EXPECT_EQ(in_flight.at(entry), count);
  ASSERT_EQ(by_key.size(), by_key_model.size());
  for (const auto& [key, value] : by_key_model) EXPECT_EQ(by_key.at(key), value);
}

}  // namespace
}  // namespace gpuhash::server::engine
