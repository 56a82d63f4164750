// The CUDA backend's helpers (CTest label `gpu`).

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "gpuhash/cuda/backend.hpp"

namespace gpuhash {
namespace {

class cuda_backend_test : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_backend::available())
      GTEST_SKIP()
          << "no cuda device: these tests need an NVIDIA GPU (scripts/gpu-check runs them)";
  }
};

TEST_F(cuda_backend_test, select_gather_scatter) {
  const std::size_t n = 100000;
  std::vector<status> statuses(n, status::inserted);
  for (std::size_t i = 0; i < n; i += 7) statuses[i] = status::full;
  auto d_statuses = cuda_backend::allocate<status>(n);
  cuda_backend::copy_from_host(d_statuses.data(), statuses.data(), n);
  auto d_positions = cuda_backend::allocate<std::size_t>(n);
  const std::size_t count =
      cuda_backend::select_positions(d_statuses.data(), n, status::full, d_positions.data());
  ASSERT_EQ(count, (n + 6) / 7);
  std::vector<std::size_t> positions(count);
  cuda_backend::copy_to_host(positions.data(), d_positions.data(), count);
  for (std::size_t j = 0; j < count; ++j) ASSERT_EQ(positions[j], 7 * j);

  std::vector<std::uint64_t> source(n);
  std::iota(source.begin(), source.end(), 1);
  auto d_source = cuda_backend::allocate<std::uint64_t>(n);
  auto d_gathered = cuda_backend::allocate<std::uint64_t>(count);
  cuda_backend::copy_from_host(d_source.data(), source.data(), n);
  cuda_backend::gather(static_cast<const std::uint64_t*>(d_source.data()), d_positions.data(),
                       count, d_gathered.data());
  std::vector<std::uint64_t> gathered(count);
  cuda_backend::copy_to_host(gathered.data(), d_gathered.data(), count);
  for (std::size_t j = 0; j < count; ++j) ASSERT_EQ(gathered[j], 7 * j + 1);

  cuda_backend::fill(d_source.data(), n, std::uint64_t{0});
  cuda_backend::scatter(static_cast<const std::uint64_t*>(d_gathered.data()), d_positions.data(),
                        count, d_source.data());
  cuda_backend::copy_to_host(source.data(), d_source.data(), n);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(source[i], i % 7 == 0 ? i + 1 : 0) << i;
}

TEST_F(cuda_backend_test, pinned_host_buffers_receive_device_copies) {
  const std::size_t n = 4096;
  std::vector<std::uint64_t> source(n);
  std::iota(source.begin(), source.end(), 7);
  auto device = cuda_backend::allocate<std::uint64_t>(n);
  cuda_backend::copy_from_host(device.data(), source.data(), n);
  auto pinned = cuda_backend::allocate_host<std::uint64_t>(n);
  ASSERT_EQ(pinned.size(), n);
  cuda_backend::copy_to_host(pinned.data(), device.data(), n);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(pinned.data()[i], source[i]) << i;
  auto moved = std::move(pinned);
  EXPECT_EQ(moved.data()[n - 1], source[n - 1]);
  EXPECT_EQ(pinned.data(), nullptr);  // NOLINT(bugprone-use-after-move): moved-from is empty
}

TEST_F(cuda_backend_test, out_of_memory_is_reported_and_recoverable) {
  EXPECT_THROW(cuda_backend::allocate<std::uint8_t>(std::size_t{1} << 50), out_of_memory);
  auto small = cuda_backend::allocate<std::uint32_t>(16);
  cuda_backend::fill(small.data(), 16, std::uint32_t{3});
  std::vector<std::uint32_t> host(16);
  cuda_backend::copy_to_host(host.data(), small.data(), 16);
  EXPECT_EQ(host, std::vector<std::uint32_t>(16, 3));
}

}  // namespace
}  // namespace gpuhash
