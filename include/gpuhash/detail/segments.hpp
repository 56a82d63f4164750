#pragma once
// Segments: many arrays of different sizes laid out in one flat array, after
// the sparse-matrix formats HashGraph's thesis stores its buckets in
// (hashgraph-tnl-thesis.txt, 2.2.1, 2.3 and 3.2: TNL's Segments; we implement
// the concept, not a port). A segments object holds no data: it maps
// (segment, local index) to a position of the caller's flat array.
// HashGraph's buckets are built on it. Included by implementations only (it
// launches work through exec).
//
//   csr             segment s starts at offsets[s]; no padding; one offset
//                   per segment (count + 1 numbers)
//   ellpack         every segment is as wide as the largest; no offsets
//   sliced_ellpack  segments in slices of Slice (32), each slice as wide as
//                   its largest segment; one offset per slice
//
// Each layout has a trivially copyable view for use inside kernels:
//   begin(s)          position of segment s's first element
//   capacity(s)       elements segment s has room for (its size, or more
//                     with padding)
//   at(s, local)      begin(s) + local
//   begin_address(s)  what begin(s) reads, for a CPU prefetch (null if nothing)
// and an owner that builds it from the segments' sizes in backend memory.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpuhash/detail/exec.hpp"
#include "gpuhash/host_device.hpp"

namespace gpuhash {

/// How a table lays out its segments (buckets) in its flat array.
enum class segment_layout { csr, ellpack, sliced_ellpack };

}  // namespace gpuhash

namespace gpuhash::detail {

struct csr_view {
  const std::uint64_t* offsets = nullptr;  ///< count + 1 entries
  std::uint64_t count = 0;

  GPUHASH_HD std::uint64_t begin(std::uint64_t s) const { return offsets[s]; }
  GPUHASH_HD std::uint64_t capacity(std::uint64_t s) const { return offsets[s + 1] - offsets[s]; }
  GPUHASH_HD std::uint64_t at(std::uint64_t s, std::uint64_t local) const {
    return begin(s) + local;
  }
  const void* begin_address(std::uint64_t s) const { return offsets + s; }
};

struct ellpack_view {
  std::uint64_t count = 0;
  std::uint64_t width = 0;  ///< the largest segment's size

  GPUHASH_HD std::uint64_t begin(std::uint64_t s) const { return s * width; }
  GPUHASH_HD std::uint64_t capacity(std::uint64_t) const { return width; }
  GPUHASH_HD std::uint64_t at(std::uint64_t s, std::uint64_t local) const {
    return begin(s) + local;
  }
  const void* begin_address(std::uint64_t) const { return nullptr; }
};

/// Segments are stored row by row inside a slice (a bucket's elements are
/// adjacent, which is what one thread scanning a bucket wants).
template <std::uint32_t Slice>
struct sliced_ellpack_view {
  const std::uint64_t* slice_offsets = nullptr;  ///< slices + 1 entries
  std::uint64_t count = 0;

  GPUHASH_HD std::uint64_t width(std::uint64_t slice) const {
    return (slice_offsets[slice + 1] - slice_offsets[slice]) / Slice;
  }
  GPUHASH_HD std::uint64_t begin(std::uint64_t s) const {
    const std::uint64_t slice = s / Slice;
    return slice_offsets[slice] + (s % Slice) * width(slice);
  }
  GPUHASH_HD std::uint64_t capacity(std::uint64_t s) const { return width(s / Slice); }
  GPUHASH_HD std::uint64_t at(std::uint64_t s, std::uint64_t local) const {
    return begin(s) + local;
  }
  const void* begin_address(std::uint64_t s) const { return slice_offsets + s / Slice; }
};

/// out[g] = Multiple x the largest of sizes[g * Group, (g + 1) * Group):
/// Ellpack's width (by groups, then on the host) and Sliced Ellpack's slices.
template <class Size, std::uint64_t Group, std::uint64_t Multiple>
struct group_maximum {
  const Size* sizes;
  std::uint64_t count;
  std::uint64_t* out;
  GPUHASH_HD void operator()(std::uint64_t g) const {
    std::uint64_t largest = 0;
    const std::uint64_t end = (g + 1) * Group < count ? (g + 1) * Group : count;
    for (std::uint64_t s = g * Group; s < end; ++s)
      largest = largest > sizes[s] ? largest : static_cast<std::uint64_t>(sizes[s]);
    out[g] = Multiple * largest;
  }
};

template <class Size>
struct widen {
  const Size* in;
  std::uint64_t* out;
  GPUHASH_HD void operator()(std::uint64_t i) const { out[i] = in[i]; }
};

template <class Backend>
class csr_segments {
 public:
  using view_type = csr_view;

  csr_segments() = default;
  /// Segments of sizes[0, count) (backend memory).
  template <class Size>
  csr_segments(const Size* sizes, std::uint64_t count, typename Backend::stream_type stream)
      : offsets_(Backend::template allocate<std::uint64_t>(count + 1, stream)), count_(count) {
    if (count > 0) exec<Backend>::for_each(count, widen<Size>{sizes, offsets_.data()}, stream);
    storage_ = exec<Backend>::exclusive_scan(offsets_.data(), count, offsets_.data(), stream);
    Backend::copy_from_host(offsets_.data() + count, &storage_, 1, stream);
  }
  view_type view() const { return {offsets_.data(), count_}; }
  std::uint64_t count() const noexcept { return count_; }
  /// Elements of the flat array the segments need.
  std::uint64_t storage_size() const noexcept { return storage_; }
  /// Bytes the segments themselves hold (the offsets).
  std::size_t memory_bytes() const noexcept { return offsets_.size() * sizeof(std::uint64_t); }

 private:
  typename Backend::template buffer<std::uint64_t> offsets_;
  std::uint64_t count_ = 0;
  std::uint64_t storage_ = 0;
};

template <class Backend>
class ellpack_segments {
 public:
  using view_type = ellpack_view;

  ellpack_segments() = default;
  template <class Size>
  ellpack_segments(const Size* sizes, std::uint64_t count, typename Backend::stream_type stream)
      : count_(count) {
    constexpr std::uint64_t group = 1024;
    const std::uint64_t groups = (count + group - 1) / group;
    auto maxima = Backend::template allocate<std::uint64_t>(groups, stream);
    exec<Backend>::for_each(groups, group_maximum<Size, group, 1>{sizes, count, maxima.data()},
                            stream);
    std::vector<std::uint64_t> host(groups);
    if (groups > 0) Backend::copy_to_host(host.data(), maxima.data(), groups, stream);
    width_ = host.empty() ? 0 : *std::max_element(host.begin(), host.end());
  }
  view_type view() const { return {count_, width_}; }
  std::uint64_t count() const noexcept { return count_; }
  std::uint64_t storage_size() const noexcept { return count_ * width_; }
  std::size_t memory_bytes() const noexcept { return 0; }

 private:
  std::uint64_t count_ = 0;
  std::uint64_t width_ = 0;
};

template <class Backend, std::uint32_t Slice = 32>
class sliced_ellpack_segments {
 public:
  using view_type = sliced_ellpack_view<Slice>;

  sliced_ellpack_segments() = default;
  template <class Size>
  sliced_ellpack_segments(const Size* sizes, std::uint64_t count,
                          typename Backend::stream_type stream)
      : count_(count), slices_((count + Slice - 1) / Slice) {
    // A slice's room (Slice x its widest segment), then offsets by a scan.
    slice_offsets_ = Backend::template allocate<std::uint64_t>(slices_ + 1, stream);
    if (slices_ > 0)
      exec<Backend>::for_each(
          slices_, group_maximum<Size, Slice, Slice>{sizes, count, slice_offsets_.data()}, stream);
    storage_ = exec<Backend>::exclusive_scan(slice_offsets_.data(), slices_, slice_offsets_.data(),
                                             stream);
    Backend::copy_from_host(slice_offsets_.data() + slices_, &storage_, 1, stream);
  }
  view_type view() const { return {slice_offsets_.data(), count_}; }
  std::uint64_t count() const noexcept { return count_; }
  std::uint64_t storage_size() const noexcept { return storage_; }
  std::size_t memory_bytes() const noexcept {
    return slice_offsets_.size() * sizeof(std::uint64_t);
  }

 private:
  typename Backend::template buffer<std::uint64_t> slice_offsets_;
  std::uint64_t count_ = 0;
  std::uint64_t slices_ = 0;
  std::uint64_t storage_ = 0;
};

/// The owner type of a layout.
template <class Backend, segment_layout Layout>
struct segments_for;
template <class Backend>
struct segments_for<Backend, segment_layout::csr> {
  using type = csr_segments<Backend>;
};
template <class Backend>
struct segments_for<Backend, segment_layout::ellpack> {
  using type = ellpack_segments<Backend>;
};
template <class Backend>
struct segments_for<Backend, segment_layout::sliced_ellpack> {
  using type = sliced_ellpack_segments<Backend, 32>;
};

}  // namespace gpuhash::detail
