#pragma once
// Tests of the segments building block (detail/segments.hpp): the thesis'
// worked example (sizes 3, 1, 0, 2, 1) in each layout, and on random sizes
// that every segment has room for its size, that segments never overlap and
// that the storage is what the layout promises. Instantiated per backend, in
// a file the backend's compiler builds.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "gpuhash/detail/segments.hpp"
#include "support/random.hpp"

namespace gpuhash::testing {

template <class Backend>
class segments : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Backend::available())
      GTEST_SKIP() << "no " << Backend::name
                   << " device: these tests need an NVIDIA GPU (scripts/gpu-check runs them)";
  }

  /// The view's offsets copied to the host, as (begin, capacity) per segment.
  template <class Segments>
  static std::vector<std::pair<std::uint64_t, std::uint64_t>> layout_of(
      const std::vector<std::uint32_t>& sizes) {
    auto device_sizes = Backend::template allocate<std::uint32_t>(sizes.size());
    if (!sizes.empty()) Backend::copy_from_host(device_sizes.data(), sizes.data(), sizes.size());
    const Segments built(device_sizes.data(), sizes.size(), {});
    std::vector<std::pair<std::uint64_t, std::uint64_t>> layout;
    // The views index backend memory; evaluate them on the host through a
    // host copy of what they read.
    const auto view = host_view(built);
    for (std::uint64_t s = 0; s < sizes.size(); ++s)
      layout.emplace_back(view.begin(s), view.capacity(s));
    return layout;
  }

  static std::vector<std::uint64_t> host_copy(const std::uint64_t* data, std::size_t n) {
    std::vector<std::uint64_t> out(n);
    if (n > 0) Backend::copy_to_host(out.data(), data, n);
    return out;
  }
  // Host copies of the views' arrays live as long as the fixture's call.
  static inline std::vector<std::uint64_t> held;

  static detail::csr_view host_view(const detail::csr_segments<Backend>& built) {
    held = host_copy(built.view().offsets, built.count() + 1);
    return {held.data(), built.count()};
  }
  static detail::ellpack_view host_view(const detail::ellpack_segments<Backend>& built) {
    return built.view();
  }
  template <std::uint32_t Slice>
  static detail::sliced_ellpack_view<Slice> host_view(
      const detail::sliced_ellpack_segments<Backend, Slice>& built) {
    held = host_copy(built.view().slice_offsets, (built.count() + Slice - 1) / Slice + 1);
    return {held.data(), built.count()};
  }
};

TYPED_TEST_SUITE_P(segments);

TYPED_TEST_P(segments, the_thesis_example) {
  using backend = TypeParam;
  const std::vector<std::uint32_t> sizes{3, 1, 0, 2, 1};
  using pairs = std::vector<std::pair<std::uint64_t, std::uint64_t>>;
  EXPECT_EQ(TestFixture::template layout_of<detail::csr_segments<backend>>(sizes),
            (pairs{{0, 3}, {3, 1}, {4, 0}, {4, 2}, {6, 1}}));
  EXPECT_EQ(TestFixture::template layout_of<detail::ellpack_segments<backend>>(sizes),
            (pairs{{0, 3}, {3, 3}, {6, 3}, {9, 3}, {12, 3}}));
  // Slices of 2 (as the thesis' Figure 2.6 draws them): widths 3, 2, 1.
  using sliced_by_two = detail::sliced_ellpack_segments<backend, 2>;
  EXPECT_EQ(TestFixture::template layout_of<sliced_by_two>(sizes),
            (pairs{{0, 3}, {3, 3}, {6, 2}, {8, 2}, {10, 1}}));
}

TYPED_TEST_P(segments, random_sizes_fit_without_overlap) {
  using backend = TypeParam;
  seeded_random random;
  for (const std::size_t count :
       {std::size_t{0}, std::size_t{1}, std::size_t{33}, scaled(100000)}) {
    SCOPED_TRACE("segments " + std::to_string(count));
    std::vector<std::uint32_t> sizes(count);
    for (auto& size : sizes) size = static_cast<std::uint32_t>(random.below(8));
    const auto check = [&](const auto& layout, std::uint64_t storage) {
      std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
      for (std::size_t s = 0; s < count; ++s) {
        EXPECT_GE(layout[s].second, sizes[s]) << "segment " << s;
        spans.emplace_back(layout[s].first, layout[s].first + layout[s].second);
      }
      std::sort(spans.begin(), spans.end());
      std::size_t overlaps = 0;
      for (std::size_t i = 1; i < spans.size(); ++i)
        overlaps += spans[i - 1].second > spans[i].first;
      EXPECT_EQ(overlaps, 0U) << "segments overlap";
      if (!spans.empty()) {
        EXPECT_LE(spans.back().second, storage);
      }
    };
    std::uint64_t total = 0, largest = 0;
    for (const auto size : sizes) {
      total += size;
      largest = std::max<std::uint64_t>(largest, size);
    }
    auto device_sizes = backend::template allocate<std::uint32_t>(count);
    if (count > 0) backend::copy_from_host(device_sizes.data(), sizes.data(), count);
    const detail::csr_segments<backend> csr(device_sizes.data(), count, {});
    EXPECT_EQ(csr.storage_size(), total) << "CSR has no padding";
    check(TestFixture::template layout_of<detail::csr_segments<backend>>(sizes), total);
    const detail::ellpack_segments<backend> ellpack(device_sizes.data(), count, {});
    EXPECT_EQ(ellpack.storage_size(), count * largest);
    check(TestFixture::template layout_of<detail::ellpack_segments<backend>>(sizes),
          count * largest);
    const detail::sliced_ellpack_segments<backend> sliced(device_sizes.data(), count, {});
    EXPECT_LE(sliced.storage_size(), count * largest + 32 * largest);
    EXPECT_GE(sliced.storage_size(), total);
    check(TestFixture::template layout_of<detail::sliced_ellpack_segments<backend>>(sizes),
          sliced.storage_size());
  }
}

REGISTER_TYPED_TEST_SUITE_P(segments, the_thesis_example, random_sizes_fit_without_overlap);

}  // namespace gpuhash::testing
