#pragma once
// exec<cuda_backend>: per-key functors as grid-stride kernels; compaction with
// CUB; the stable partition's two passes (partition.cuh). Compiled only by nvcc (included from
// detail/exec.hpp under __CUDACC__).

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/detail/cuda/launch.cuh"
#include "gpuhash/detail/cuda/partition.cuh"

namespace gpuhash::detail {

template <class Backend>
struct exec;

/// 1 where the predicate holds, else 0: count_if as a sum.
template <class T, class Pred>
struct predicate_as_count {
  Pred pred;
  __host__ __device__ std::uint64_t operator()(const T& value) const { return pred(value) ? 1 : 0; }
};

struct iota_functor {
  std::uint64_t* out;
  __device__ void operator()(std::uint64_t i) const { out[i] = i; }
};

template <>
struct exec<cuda_backend> {
  using stream_type = cudaStream_t;

  template <class F>
  static void for_each(std::uint64_t n, const F& f, stream_type stream) {
    if (n == 0) return;
    const auto kernel = cuda::for_each_kernel<F>;
    kernel<<<cuda::grid_size(kernel, n), cuda::block_size, 0, stream>>>(n, f);
    GPUHASH_CUDA_CHECK_LAUNCH(stream);
  }

  template <class F>
  static void for_each_tally(std::uint64_t n, const F& f, table_counters* counters,
                             stream_type stream, launch_share share = {}) {
    if (n == 0) return;
    const auto kernel = cuda::for_each_tally_kernel<F>;
    kernel<<<cuda::grid_size(kernel, n, share), cuda::block_size, 0, stream>>>(n, f, counters);
    GPUHASH_CUDA_CHECK_LAUNCH(stream);
  }

  template <class F>
  static void for_each_batch(std::uint64_t n, const F& f, table_counters* counters,
                             stream_type stream, launch_share share = {}) {
    if (n == 0) return;
    const auto kernel = cuda::for_each_batch_kernel<F>;
    kernel<<<cuda::grid_size(kernel, n, share), cuda::block_size, 0, stream>>>(n, f, counters);
    GPUHASH_CUDA_CHECK_LAUNCH(stream);
  }

  /// cub::DeviceReduce::Sum over the predicate's 0/1, with stream-ordered
  /// temporary memory; waits for the count. (thrust::count_if allocated its
  /// temporaries with cudaMalloc: a few hundred microseconds per call, which
  /// made the signature index's small mixed batches ten times slower.)
  template <class T, class Pred>
  static std::uint64_t count_if(const T* in, std::uint64_t n, const Pred& pred,
                                stream_type stream) {
    if (n == 0) return 0;
    const thrust::transform_iterator<predicate_as_count<T, Pred>, const T*, std::uint64_t> ones(
        in, predicate_as_count<T, Pred>{pred});
    const auto items = static_cast<std::int64_t>(n);
    gpuhash::cuda::device_buffer<std::uint64_t> total(1, stream);
    std::size_t temp_bytes = 0;
    GPUHASH_CUDA_TRY(
        cub::DeviceReduce::Sum(nullptr, temp_bytes, ones, total.data(), items, stream));
    gpuhash::cuda::device_buffer<unsigned char> temp(temp_bytes, stream);
    GPUHASH_CUDA_TRY(
        cub::DeviceReduce::Sum(temp.data(), temp_bytes, ones, total.data(), items, stream));
    std::uint64_t count = 0;
    cuda_backend::copy_to_host(&count, total.data(), 1, stream);
    return count;
  }

  /// Stable radix sort of (key, index) pairs by the key's bits [0, end_bit)
  /// with cub::DeviceRadixSort.
  template <class Key>
  static void sort_by_key(const Key* keys, std::uint64_t n, Key* sorted, std::uint64_t* order,
                          stream_type stream, int end_bit = int{8 * sizeof(Key)}) {
    if (n == 0) return;
    gpuhash::cuda::device_buffer<std::uint64_t> indices(n, stream);
    for_each(n, iota_functor{indices.data()}, stream);
    const auto items = static_cast<std::int64_t>(n);
    std::size_t temp_bytes = 0;
    GPUHASH_CUDA_TRY(cub::DeviceRadixSort::SortPairs(
        nullptr, temp_bytes, keys, sorted, indices.data(), order, items, 0, end_bit, stream));
    gpuhash::cuda::device_buffer<unsigned char> temp(temp_bytes, stream);
    GPUHASH_CUDA_TRY(cub::DeviceRadixSort::SortPairs(
        temp.data(), temp_bytes, keys, sorted, indices.data(), order, items, 0, end_bit, stream));
  }

  /// out[i] = in[0] + ... + in[i-1] with cub::DeviceScan (out may alias
  /// in); returns the total (waits for it).
  static std::uint64_t exclusive_scan(const std::uint64_t* in, std::uint64_t n, std::uint64_t* out,
                                      stream_type stream) {
    if (n == 0) return 0;
    std::uint64_t last_in = 0;
    cuda_backend::copy_to_host(&last_in, in + (n - 1), 1, stream);
    queue_exclusive_scan(in, n, out, stream);
    std::uint64_t last_out = 0;
    cuda_backend::copy_to_host(&last_out, out + (n - 1), 1, stream);
    return last_out + last_in;
  }

  /// exclusive_scan without the total: queued on the stream, no wait.
  static void queue_exclusive_scan(const std::uint64_t* in, std::uint64_t n, std::uint64_t* out,
                                   stream_type stream) {
    if (n == 0) return;
    const auto items = static_cast<std::int64_t>(n);
    std::size_t temp_bytes = 0;
    GPUHASH_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, in, out, items, stream));
    gpuhash::cuda::device_buffer<unsigned char> temp(temp_bytes, stream);
    GPUHASH_CUDA_TRY(
        cub::DeviceScan::ExclusiveSum(temp.data(), temp_bytes, in, out, items, stream));
  }

  /// The most ways stable_partition takes (its shared memory: 32 bytes a
  /// way).
  static constexpr std::uint32_t max_partition_ways = 1024;

  /// Stable partition of [0, n) by way_of(i) (partition.cuh): place(i, at)
  /// for every i, each way's group starting at the first multiple of
  /// `align` after the group before it ends, counts[w] (host memory) the
  /// size of way w; waits for the counts (cpu/exec.hpp says the same at
  /// length). way_of and place run on the device.
  template <class WayOf, class Place>
  static void stable_partition(std::uint64_t n, std::uint32_t ways, const WayOf& way_of,
                               const Place& place, std::uint64_t* counts, stream_type stream,
                               std::uint64_t align = 1) {
    if (ways == 0 || ways > max_partition_ways)
      throw std::invalid_argument("gpuhash: a stable partition on the GPU takes 1 to " +
                                  std::to_string(max_partition_ways) + " ways, not " +
                                  std::to_string(ways));
    if (align == 0) throw std::invalid_argument("gpuhash: a stable partition's align is 1 or more");
    if (n == 0) {
      std::fill(counts, counts + ways, std::uint64_t{0});
      return;
    }
    const std::uint64_t tiles = (n + cuda::partition_tile_size - 1) / cuda::partition_tile_size;
    if (tiles > 0x7fffffffU)
      throw std::length_error("gpuhash: a stable partition of too many keys");
    gpuhash::cuda::device_buffer<std::uint64_t> starts(tiles * ways, stream);
    const auto grid = static_cast<unsigned>(tiles);
    cuda::count_ways<WayOf><<<grid, cuda::block_size, ways * sizeof(std::uint32_t), stream>>>(
        n, ways, way_of, tiles, starts.data());
    GPUHASH_CUDA_CHECK_LAUNCH(stream);
    queue_exclusive_scan(starts.data(), tiles * ways, starts.data(), stream);
    gpuhash::cuda::device_buffer<std::uint64_t> sizes(ways, stream);
    for_each(ways, cuda::way_sizes{starts.data(), tiles, ways, n, sizes.data()}, stream);
    gpuhash::cuda::device_buffer<std::uint64_t> shifts(align == 1 ? 0 : ways, stream);
    if (align != 1)
      for_each(1, cuda::aligned_way_shifts{sizes.data(), ways, align, shifts.data()}, stream);
    cuda::place_ways<WayOf, Place>
        <<<grid, cuda::block_size, cuda::place_ways_shared_bytes(ways), stream>>>(
            n, ways, way_of, place, tiles, starts.data(), shifts.data());
    GPUHASH_CUDA_CHECK_LAUNCH(stream);
    cuda_backend::copy_to_host(counts, sizes.data(), ways, stream);
  }

  /// Stream compaction with cub::DeviceSelect::If; waits for the count.
  template <class T, class Pred>
  static std::uint64_t select_if(const T* in, std::uint64_t n, T* out, const Pred& pred,
                                 stream_type stream) {
    if (n == 0) return 0;
    const auto items = static_cast<std::int64_t>(n);
    gpuhash::cuda::device_buffer<std::int64_t> selected(1, stream);
    std::size_t temp_bytes = 0;
    GPUHASH_CUDA_TRY(
        cub::DeviceSelect::If(nullptr, temp_bytes, in, out, selected.data(), items, pred, stream));
    gpuhash::cuda::device_buffer<unsigned char> temp(temp_bytes, stream);
    GPUHASH_CUDA_TRY(cub::DeviceSelect::If(temp.data(), temp_bytes, in, out, selected.data(), items,
                                           pred, stream));
    std::int64_t count = 0;
    cuda_backend::copy_to_host(&count, selected.data(), 1, stream);
    return static_cast<std::uint64_t>(count);
  }
};

}  // namespace gpuhash::detail
