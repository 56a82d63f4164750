#pragma once
// exec<cpu_backend>: per-key functors on the CPU thread pool.

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/detail/atomic.hpp"
#include "gpuhash/detail/counters.hpp"

namespace gpuhash::detail {

template <class Backend>
struct exec;

template <>
struct exec<cpu_backend> {
  using stream_type = cpu_backend::stream_type;

  template <class F>
  static void for_each(std::uint64_t n, const F& f, stream_type stream) {
    stream.get().parallel_for(n, [&](std::uint64_t begin, std::uint64_t end) {
      for (std::uint64_t i = begin; i < end; ++i) f(i);
    });
  }

  template <class F>
  static void for_each_tally(std::uint64_t n, const F& f, table_counters* counters,
                             stream_type stream) {
    stream.get().parallel_for(n, [&](std::uint64_t begin, std::uint64_t end) {
      status_tally tally;
      for (std::uint64_t i = begin; i < end; ++i) tally.count(f(i));
      if (tally.empty()) return;
      fetch_add_relaxed<std::uint64_t>(&counters->inserted, tally.inserted);
      fetch_add_relaxed<std::uint64_t>(&counters->erased, tally.erased);
      fetch_add_relaxed<std::uint64_t>(&counters->full, tally.full);
    });
  }

  template <class F>
  static void for_each_batch(std::uint64_t n, const F& f, table_counters* counters,
                             stream_type stream) {
    stream.get().parallel_for(n, [&](std::uint64_t begin, std::uint64_t end) {
      status_tally tally;
      for (std::uint64_t i = begin; i < end; ++i) {
        const auto out = f.run(i);
        f.finish(i, out);
        tally.count(out.result);
      }
      if (counters == nullptr || tally.empty()) return;
      fetch_add_relaxed<std::uint64_t>(&counters->inserted, tally.inserted);
      fetch_add_relaxed<std::uint64_t>(&counters->erased, tally.erased);
      fetch_add_relaxed<std::uint64_t>(&counters->full, tally.full);
    });
  }

  template <class T, class Pred>
  static std::uint64_t count_if(const T* in, std::uint64_t n, const Pred& pred,
                                stream_type stream) {
    std::uint64_t total = 0;
    stream.get().parallel_for(n, [&](std::uint64_t begin, std::uint64_t end) {
      std::uint64_t count = 0;
      for (std::uint64_t i = begin; i < end; ++i) count += pred(in[i]) ? 1 : 0;
      fetch_add_relaxed(&total, count);
    });
    return total;
  }

  /// out[i] = in[0] + ... + in[i-1] (out may alias in); returns the total.
  /// Two passes over the same fixed chunks: chunk sums, then each chunk's scan.
  static std::uint64_t exclusive_scan(const std::uint64_t* in, std::uint64_t n, std::uint64_t* out,
                                      stream_type stream) {
    auto& pool = stream.get();
    const std::uint64_t chunks = std::uint64_t{pool.thread_count()} * 4;
    const std::uint64_t chunk_size = (n + chunks - 1) / chunks;
    std::vector<std::uint64_t> offsets(chunks + 1, 0);
    const auto chunk_end = [&](std::uint64_t c) { return std::min(n, (c + 1) * chunk_size); };
    pool.parallel_for(
        chunks,
        [&](std::uint64_t first, std::uint64_t last) {
          for (std::uint64_t c = first; c < last; ++c) {
            std::uint64_t sum = 0;
            for (std::uint64_t i = c * chunk_size; i < chunk_end(c); ++i) sum += in[i];
            offsets[c + 1] = sum;
          }
        },
        1);
    for (std::uint64_t c = 0; c < chunks; ++c) offsets[c + 1] += offsets[c];
    pool.parallel_for(
        chunks,
        [&](std::uint64_t first, std::uint64_t last) {
          for (std::uint64_t c = first; c < last; ++c) {
            std::uint64_t running = offsets[c];
            for (std::uint64_t i = c * chunk_size; i < chunk_end(c); ++i) {
              const std::uint64_t value = in[i];
              out[i] = running;
              running += value;
            }
          }
        },
        1);
    return offsets[chunks];
  }

  template <class Key>
  static void sort_by_key(const Key* keys, std::uint64_t n, Key* sorted, std::uint64_t* order,
                          stream_type) {
    std::iota(order, order + n, std::uint64_t{0});
    std::stable_sort(order, order + n,
                     [&](std::uint64_t a, std::uint64_t b) { return keys[a] < keys[b]; });
    for (std::uint64_t i = 0; i < n; ++i) sorted[i] = keys[order[i]];
  }

  /// Copies the elements of in[0, n) that satisfy `pred` to `out`, keeping their
  /// order, and returns how many there are: a count pass and a write pass over
  /// the same fixed chunks.
  template <class T, class Pred>
  static std::uint64_t select_if(const T* in, std::uint64_t n, T* out, const Pred& pred,
                                 stream_type stream) {
    auto& pool = stream.get();
    const std::uint64_t chunks = std::uint64_t{pool.thread_count()} * 4;
    const std::uint64_t chunk_size = (n + chunks - 1) / chunks;
    std::vector<std::uint64_t> offsets(chunks + 1, 0);
    pool.parallel_for(
        chunks,
        [&](std::uint64_t first_chunk, std::uint64_t last_chunk) {
          for (std::uint64_t c = first_chunk; c < last_chunk; ++c) {
            std::uint64_t count = 0;
            for (std::uint64_t i = c * chunk_size; i < std::min(n, (c + 1) * chunk_size); ++i)
              count += pred(in[i]) ? 1 : 0;
            offsets[c + 1] = count;
          }
        },
        1);
    for (std::uint64_t c = 0; c < chunks; ++c) offsets[c + 1] += offsets[c];
    pool.parallel_for(
        chunks,
        [&](std::uint64_t first_chunk, std::uint64_t last_chunk) {
          for (std::uint64_t c = first_chunk; c < last_chunk; ++c) {
            std::uint64_t position = offsets[c];
            for (std::uint64_t i = c * chunk_size; i < std::min(n, (c + 1) * chunk_size); ++i)
              if (pred(in[i])) out[position++] = in[i];
          }
        },
        1);
    return offsets[chunks];
  }
};

}  // namespace gpuhash::detail
