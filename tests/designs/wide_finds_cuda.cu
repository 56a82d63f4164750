// Find and contains batches of wide values on the GPU run one tile of
// threads per key (detail/linear_probing/wide_find.cuh): the tile's lanes
// copy the value's pieces into the caller's array together. These tests
// hold that path to the one-thread find of refs: the same answers for value
// sizes whose last piece is partial and for output arrays that are not
// 16-byte aligned, and no half-written value while writers change values in
// another kernel at the same time.

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/hashgraph_dynamic_map_impl.hpp"
#include "gpuhash/linear_probing_map_impl.hpp"
#include "support/float_row.hpp"
#include "support/random.hpp"
#include "support/transfer.hpp"

namespace gpuhash::testing {
namespace {

/// A wide value of `Floats` floats (alignment 4): 36 bytes leave a partial
/// last 16-byte piece, 128 bytes are eight whole pieces.
template <std::size_t Floats>
using row = float_row<Floats>;

/// A CUDA stream that does not wait for the legacy default stream, destroyed
/// with its owner (declared before the tables that use it, so it outlives them).
class non_blocking_stream {
 public:
  non_blocking_stream() { cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking); }
  ~non_blocking_stream() { cudaStreamDestroy(stream_); }
  non_blocking_stream(const non_blocking_stream&) = delete;
  non_blocking_stream& operator=(const non_blocking_stream&) = delete;
  operator cudaStream_t() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

template <class Map>
class wide_finds : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_backend::available())
      GTEST_SKIP()
          << "no cuda device: these tests need an NVIDIA GPU (scripts/gpu-check runs them)";
  }
};

template <template <class, class, class> class Map, std::size_t Floats>
struct design {
  using value_type = row<Floats>;
  using map = Map<std::uint64_t, value_type, cuda_backend>;
};
template <class Key, class Value, class Backend>
using linear_probing = linear_probing_map<Key, Value, Backend>;
template <class Key, class Value, class Backend>
using hashgraph_dynamic = hashgraph_dynamic_map<Key, Value, Backend>;

using designs = ::testing::Types<design<linear_probing, 9>, design<linear_probing, 32>,
                                 design<hashgraph_dynamic, 9>, design<hashgraph_dynamic, 32>>;
TYPED_TEST_SUITE(wide_finds, designs);

/// A find through one thread per key, for comparison.
template <class Ref, class Value>
__global__ void find_each(Ref ref, const std::uint64_t* keys, std::size_t n, Value* values,
                          status* statuses) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
    statuses[i] = ref.find(keys[i], values + i);
}

// Present, absent and reserved keys: the tile batch answers as one thread
// per key does, and writes exactly the found values, also into an output
// array 4 bytes off a 16-byte boundary.
TYPED_TEST(wide_finds, the_tile_batch_answers_as_one_thread_per_key) {
  using map_type = typename TypeParam::map;
  using value_type = typename TypeParam::value_type;
  seeded_random random;
  const std::size_t n = scaled(1 << 16);
  map_type table(table_options{n, 0.0f, random.next()});
  std::vector<std::uint64_t> keys(2 * n);
  for (auto& key : keys) key = random.next() >> 1;  // never reserved
  keys[3] = ~std::uint64_t{0};                      // reserved: invalid_key
  std::vector<value_type> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = value_type::filled(static_cast<float>(i));
  // The first n keys are inserted; the other n are searched too, absent.
  table.insert(std::vector<std::uint64_t>(keys.begin(), keys.begin() + n), values);

  const auto device_keys = to_backend<cuda_backend>(keys);
  const value_type untouched = value_type::filled(-1.0f);
  for (const std::size_t offset : {std::size_t{0}, std::size_t{1}}) {  // in values: 0 or 4 bytes
    // One spare value's room so that the array can start `offset` floats in.
    const std::vector<value_type> untouched_values(keys.size() + 1, untouched);
    auto batch_out = to_backend<cuda_backend>(untouched_values);
    auto thread_out = to_backend<cuda_backend>(untouched_values);
    auto* shifted =
        reinterpret_cast<value_type*>(reinterpret_cast<float*>(batch_out.data()) + offset);
    auto batch_statuses = cuda_backend::allocate<status>(keys.size());
    auto thread_statuses = cuda_backend::allocate<status>(keys.size());
    table.find(device_keys.data(), keys.size(), shifted, batch_statuses.data());
    find_each<<<64, 256>>>(table.ref(), device_keys.data(), keys.size(), thread_out.data(),
                           thread_statuses.data());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

    std::vector<value_type> from_batch(keys.size());
    cudaMemcpy(from_batch.data(), shifted, keys.size() * sizeof(value_type), cudaMemcpyDefault);
    const auto from_threads = to_host<cuda_backend>(thread_out.data(), keys.size());
    const auto batch_status = to_host<cuda_backend>(batch_statuses.data(), keys.size());
    const auto thread_status = to_host<cuda_backend>(thread_statuses.data(), keys.size());
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const status expected = i == 3  ? status::invalid_key
                              : i < n ? status::found
                                      : status::not_found;
      const value_type expected_value = expected == status::found ? values[i] : untouched;
      wrong += batch_status[i] != expected || thread_status[i] != expected ||
               !(from_batch[i] == expected_value) || !(from_threads[i] == expected_value);
    }
    EXPECT_EQ(wrong, 0U) << "of " << keys.size() << " keys, output offset " << 4 * offset
                         << " bytes";
  }

  // contains: the same batch path without values.
  auto flags = cuda_backend::allocate<bool>(keys.size());
  table.contains(device_keys.data(), keys.size(), flags.data());
  std::vector<unsigned char> found(keys.size());
  cudaMemcpy(found.data(), flags.data(), keys.size(), cudaMemcpyDefault);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) wrong += (found[i] != 0) != (i < n && i != 3);
  EXPECT_EQ(wrong, 0U);
}

/// Rewrites the values of keys 1..keys, each write a value of one repeated
/// element, `rounds` times over.
template <class Ref, class Value>
__global__ void rewrite_values(Ref ref, std::uint64_t keys, std::uint32_t rounds) {
  const std::uint64_t threads = std::uint64_t{gridDim.x} * blockDim.x;
  const std::uint64_t thread = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  for (std::uint32_t round = 0; round < rounds; ++round)
    for (std::uint64_t key = 1 + thread % keys; key <= keys; key += threads)
      ref.insert_or_assign(key, Value::filled(static_cast<float>(round * threads + thread)));
}

// Find batches on one stream while another stream's kernel rewrites the
// same keys' values: every value found has all its elements equal, so no
// tile copied pieces of two writes.
TYPED_TEST(wide_finds, batches_never_see_a_half_written_value) {
  using map_type = typename TypeParam::map;
  using value_type = typename TypeParam::value_type;
  constexpr std::uint64_t keys = 256;
  const non_blocking_stream writers, readers;
  map_type table(table_options{1024, 0.0f, 5}, readers);
  std::vector<std::uint64_t> key_list(keys);
  for (std::uint64_t k = 0; k < keys; ++k) key_list[k] = k + 1;
  table.insert(key_list, std::vector<value_type>(keys, value_type::filled(0.0f)));

  // Each search batch asks for every key 64 times.
  const std::size_t queries = 64 * keys;
  std::vector<std::uint64_t> query_keys(queries);
  for (std::size_t i = 0; i < queries; ++i) query_keys[i] = 1 + i % keys;
  const auto device_queries = to_backend<cuda_backend>(query_keys);
  auto out = cuda_backend::allocate<value_type>(queries);
  auto statuses = cuda_backend::allocate<status>(queries);

  const auto rounds = static_cast<std::uint32_t>(scaled(2000));
  rewrite_values<typename map_type::ref_type, value_type>
      <<<8, 128, 0, writers>>>(table.ref(), keys, rounds);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  std::size_t batches = 0, torn = 0, missing = 0;
  do {  // at least one batch; as many as run while the writers do
    table.find(device_queries.data(), queries, out.data(), statuses.data(), readers);
    const auto values = to_host<cuda_backend>(out.data(), queries);
    const auto found = to_host<cuda_backend>(statuses.data(), queries);
    for (std::size_t i = 0; i < queries; ++i) {
      missing += found[i] != status::found;
      torn += !(values[i] == value_type::filled(values[i].v[0]));
    }
    ++batches;
  } while (cudaStreamQuery(writers) == cudaErrorNotReady);
  ASSERT_EQ(cudaStreamSynchronize(writers), cudaSuccess);
  EXPECT_EQ(torn, 0U) << "half-written values in " << batches << " batches";
  EXPECT_EQ(missing, 0U);
  std::printf("[ info ] %zu find batches ran while the writers did\n", batches);
}

}  // namespace
}  // namespace gpuhash::testing
