// The sharded map on GPUs through NCCL (CTest labels `gpu` and
// `multi_gpu`; built with CUDA and NCCL; each test skips itself, with a
// message, where fewer than two GPUs are present). The conformance suite
// with batches on GPU 0, over 2 GPUs and over every GPU up to 4, and
// randomized batches spread over the GPUs (a part in each GPU's memory)
// against std::unordered_map, with the mixed-batch model for apply.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "conformance/conformance.hpp"
#include "gpuhash/bucketed_cuckoo_map.hpp"
#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/nccl_exchange.hpp"
#include "gpuhash/sharded_map.hpp"
#include "sharded/sharded_tables.hpp"
#include "support/model_checks.hpp"
#include "support/random.hpp"
#include "support/serial_order.hpp"
#include "support/table_helpers.hpp"

namespace gpuhash::testing {
namespace {

/// GPUs the tests use: `wanted`, or every GPU up to 4 when wanted is 0.
std::size_t gpus_for(std::size_t wanted) {
  const std::size_t present = nccl_exchange::device_count();
  return wanted != 0 ? wanted : std::min<std::size_t>(present, 4);
}

/// cuda_backend, available where the machine has the GPUs a test needs
/// (the conformance fixture asks its table's backend_type).
template <std::size_t Gpus>
struct multi_gpu_backend : cuda_backend {
  static constexpr std::string_view name = Gpus == 0 ? "multi-GPU (2 or more)" : "two-GPU";
  static bool available() {
    return nccl_exchange::device_count() >= 2 && nccl_exchange::device_count() >= Gpus;
  }
};

/// A sharded map over `Gpus` GPUs (0: every GPU up to 4) as the
/// conformance suite sees a table, its batches in GPU 0's memory.
template <class Map, std::size_t Gpus>
class sharded_on_gpus : public sharded_map<Map> {
  using base = sharded_map<Map>;

 public:
  using typename base::key_type;
  using typename base::mapped_type;
  using backend_type = multi_gpu_backend<Gpus>;
  using base::contains;
  using base::find;
  using base::insert;

  explicit sharded_on_gpus(table_options options = {})
      : base(nccl_exchange(gpus_for(Gpus)), options) {}

  void insert_async(const key_type* keys, const mapped_type* values, std::size_t n,
                    status* statuses) {
    insert(keys, values, n, statuses);
  }
  void find_async(const key_type* keys, std::size_t n, mapped_type* values, status* statuses) {
    find(keys, n, values, statuses);
  }
  void contains_async(const key_type* keys, std::size_t n, bool* flags) {
    contains(keys, n, flags);
  }
};

template <class K, std::size_t Gpus>
using gpu_table = sharded_on_gpus<bucketed_cuckoo_map<K, K, cuda_backend>, Gpus>;
using gpu_tables = ::testing::Types<gpu_table<std::uint32_t, 2>, gpu_table<std::uint32_t, 0>,
                                    gpu_table<std::uint64_t, 2>, gpu_table<std::uint64_t, 0>>;
INSTANTIATE_TYPED_TEST_SUITE_P(sharded_nccl, conformance, gpu_tables);

// ---- Batches spread over the GPUs ------------------------------------------

template <class Table>
class sharded_spread : public ::testing::Test {
 protected:
  void SetUp() override {
    if (nccl_exchange::device_count() < 2)
      GTEST_SKIP() << "fewer than two GPUs: these tests need a machine with several "
                      "(scripts/gpu-check runs them there)";
  }
};
using spread_tables =
    ::testing::Types<sharded_map<bucketed_cuckoo_map<std::uint32_t, std::uint32_t, cuda_backend>>,
                     sharded_map<bucketed_cuckoo_map<std::uint64_t, std::uint64_t, cuda_backend>>>;
TYPED_TEST_SUITE(sharded_spread, spread_tables);

/// A host array cut into one part per GPU (part_start), each part copied to
/// its GPU's memory, and read back.
template <class Table, class T>
class gpu_parts {
 public:
  gpu_parts(Table& table, const std::vector<T>& host) : table_(table), n_(host.size()) {
    const std::size_t shards = table.shard_count();
    buffers_.resize(shards);
    table.exchange().for_each_shard([&](std::size_t g) {
      const std::size_t start = part_start(n_, g, shards);
      const std::size_t count = part_start(n_, g + 1, shards) - start;
      const auto stream = table.exchange().stream(g);
      buffers_[g] = cuda_backend::allocate<T>(count, stream);
      cuda_backend::copy_from_host(buffers_[g].data(), host.data() + start, count, stream);
    });
  }
  ~gpu_parts() {
    table_.exchange().for_each_shard([&](std::size_t g) { buffers_[g] = {}; });
  }
  gpu_parts(const gpu_parts&) = delete;
  gpu_parts& operator=(const gpu_parts&) = delete;

  std::vector<std::size_t> counts() const {
    std::vector<std::size_t> counts;
    for (const auto& buffer : buffers_) counts.push_back(buffer.size());
    return counts;
  }
  std::vector<T*> pointers() {
    std::vector<T*> pointers;
    for (auto& buffer : buffers_) pointers.push_back(buffer.data());
    return pointers;
  }
  std::vector<const T*> const_pointers() {
    std::vector<const T*> pointers;
    for (auto& buffer : buffers_) pointers.push_back(buffer.data());
    return pointers;
  }
  std::vector<T> to_host() {
    std::vector<T> host(n_);
    table_.exchange().for_each_shard([&](std::size_t g) {
      const std::size_t start = part_start(n_, g, buffers_.size());
      cuda_backend::copy_to_host(host.data() + start, buffers_[g].data(), buffers_[g].size(),
                                 table_.exchange().stream(g));
    });
    return host;
  }

 private:
  Table& table_;
  std::size_t n_;
  std::vector<cuda::device_buffer<T>> buffers_;
};

TYPED_TEST(sharded_spread, random_batches_match_unordered_map) {
  using K = typename TypeParam::key_type;
  using V = typename TypeParam::mapped_type;
  using table_type = typename TypeParam::map_type;
  seeded_random random;
  TypeParam table(gpus_for(0), table_options{4096});
  std::unordered_map<K, V> reference;
  const auto universe = distinct_keys<table_type>(random, scaled(200000));
  const std::size_t batch = scaled(30000);

  for (int round = 0; round < 30; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const std::vector<K> keys = sample_distinct(universe, batch, random);
    const std::vector<V> values = random_values<V>(random, batch);
    gpu_parts<TypeParam, K> keys_on(table, keys);
    gpu_parts<TypeParam, V> values_on(table, values);
    gpu_parts<TypeParam, status> statuses_on(table, std::vector<status>(batch));
    switch (random.below(5)) {
      case 0:
        table.insert(keys_on.const_pointers(), values_on.const_pointers(), keys_on.counts(),
                     statuses_on.pointers());
        EXPECT_EQ("", insert_mismatches(reference, keys, values, statuses_on.to_host()))
            << "insert";
        break;
      case 1:
        table.insert_or_assign(keys_on.const_pointers(), values_on.const_pointers(),
                               keys_on.counts(), statuses_on.pointers());
        EXPECT_EQ("", insert_or_assign_mismatches(reference, keys, values, statuses_on.to_host()))
            << "insert_or_assign";
        break;
      case 2:
        table.find(keys_on.const_pointers(), keys_on.counts(), values_on.pointers(),
                   statuses_on.pointers());
        // A miss leaves its part's value as the caller wrote it.
        EXPECT_EQ("", find_mismatches(reference, keys, values_on.to_host(), statuses_on.to_host(),
                                      &values))
            << "find";
        break;
      case 3:
        table.erase(keys_on.const_pointers(), keys_on.counts(), statuses_on.pointers());
        EXPECT_EQ("", erase_mismatches(reference, keys, statuses_on.to_host())) << "erase";
        break;
      default: {
        std::vector<operation> ops(batch);
        for (auto& op : ops) op = static_cast<operation>(random.below(5));
        gpu_parts<TypeParam, operation> ops_on(table, ops);
        table.apply(ops_on.const_pointers(), keys_on.const_pointers(), values_on.pointers(),
                    keys_on.counts(), statuses_on.pointers());
        EXPECT_EQ("", apply_mismatches(reference, ops, keys, values, statuses_on.to_host(),
                                       values_on.to_host()))
            << "apply";
        break;
      }
    }
    ASSERT_EQ(table.size(), reference.size());
  }
  EXPECT_EQ(contents(table), reference);
}

TYPED_TEST(sharded_spread, mixed_batches_with_copies_in_every_part_match_a_serial_order) {
  using K = typename TypeParam::key_type;
  using V = typename TypeParam::mapped_type;
  using table_type = typename TypeParam::map_type;
  seeded_random random;
  TypeParam table(gpus_for(0), table_options{1024});
  const auto pool = distinct_keys<table_type>(random, scaled(3000));
  std::unordered_map<K, V> before;
  for (int round = 0; round < 6; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    // Copies of a key anywhere in the batch: in any part.
    const auto [keys, ops] = random_mixed_batch(pool, random);
    const auto inputs = random_values<V>(random, keys.size());
    gpu_parts<TypeParam, K> keys_on(table, keys);
    gpu_parts<TypeParam, operation> ops_on(table, ops);
    gpu_parts<TypeParam, V> values_on(table, inputs);
    gpu_parts<TypeParam, status> statuses_on(table, std::vector<status>(keys.size()));
    table.apply(ops_on.const_pointers(), keys_on.const_pointers(), values_on.pointers(),
                keys_on.counts(), statuses_on.pointers());
    const auto after = contents(table);
    std::size_t unexplained = 0;
    for (const auto& [key, history] : batch_histories(keys, ops, inputs, statuses_on.to_host(),
                                                      values_on.to_host(), before, after))
      if (!has_serial_order(history)) ++unexplained;
    EXPECT_EQ(unexplained, 0U);
    before = after;
  }
}

TYPED_TEST(sharded_spread, keys_live_on_their_gpus_and_multicast_stays_off) {
  using K = typename TypeParam::key_type;
  using table_type = typename TypeParam::map_type;
  seeded_random random;
  TypeParam table(gpus_for(0));
  const char* nvls = std::getenv("NCCL_NVLS_ENABLE");
  ASSERT_NE(nvls, nullptr);
  EXPECT_EQ(std::string(nvls), "0");
  const auto keys = distinct_keys<table_type>(random, 50000);
  table.insert(keys, random_values<K>(random, keys.size()));
  std::vector<std::vector<K>> held(table.shard_count());
  table.exchange().for_each_shard(
      [&](std::size_t g) { held[g] = table.shard(g).retrieve_all().first; });
  std::size_t total = 0;
  for (std::size_t g = 0; g < held.size(); ++g) {
    total += held[g].size();
    for (const K key : held[g]) ASSERT_EQ(table.shard_of(key), g) << "key " << key;
  }
  EXPECT_EQ(total, keys.size());
}

}  // namespace
}  // namespace gpuhash::testing
