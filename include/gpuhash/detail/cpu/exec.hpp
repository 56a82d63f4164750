#pragma once
// exec<cpu_backend>: per-key functors on the CPU thread pool.

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/detail/atomic.hpp"
#include "gpuhash/detail/counters.hpp"
#include "gpuhash/detail/launch_share.hpp"
#include "gpuhash/detail/round_up.hpp"

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

  /// The launch share is the GPU's (launch_share.hpp); the pool runs every
  /// thread it has.
  template <class F>
  static void for_each_tally(std::uint64_t n, const F& f, table_counters* counters,
                             stream_type stream, launch_share = {}) {
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
                             stream_type stream, launch_share = {}) {
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

  /// Stable sort of (key, index) pairs by the key's bits [0, end_bit): a
  /// parallel LSD radix sort, 8 bits a pass. Each pass counts digits per fixed
  /// chunk, turns the counts into each (digit, chunk)'s first position, and
  /// scatters every chunk in order, which keeps equal keys in input order.
  template <class Key>
  static void sort_by_key(const Key* keys, std::uint64_t n, Key* sorted, std::uint64_t* order,
                          stream_type stream, int end_bit = int{8 * sizeof(Key)}) {
    static_assert(std::is_unsigned_v<Key>, "gpuhash: sort_by_key sorts unsigned integer keys");
    constexpr int digit_bits = 8;
    constexpr std::uint64_t radix = std::uint64_t{1} << digit_bits;
    auto& pool = stream.get();
    const int passes = (end_bit + digit_bits - 1) / digit_bits;
    const std::uint64_t chunks = std::uint64_t{pool.thread_count()} * 4;
    const std::uint64_t chunk_size = (n + chunks - 1) / chunks;
    const auto chunk_end = [&](std::uint64_t c) { return std::min(n, (c + 1) * chunk_size); };
    // Passes alternate between (sorted, order) and the spare pair, so an odd
    // number of passes starts in the output and an even one in the spare.
    std::vector<Key> spare_keys(passes > 0 ? n : 0);
    std::vector<std::uint64_t> spare_order(passes > 0 ? n : 0);
    Key* from_keys = passes % 2 == 0 ? sorted : spare_keys.data();
    std::uint64_t* from_order = passes % 2 == 0 ? order : spare_order.data();
    std::copy(keys, keys + n, from_keys);
    std::iota(from_order, from_order + n, std::uint64_t{0});
    std::vector<std::uint64_t> starts(chunks * radix);
    for (int pass = 0; pass < passes; ++pass) {
      const int shift = pass * digit_bits;
      Key* to_keys = from_keys == sorted ? spare_keys.data() : sorted;
      std::uint64_t* to_order = from_order == order ? spare_order.data() : order;
      // The last pass looks only at the bits below end_bit, as CUB does.
      const int width = std::min(digit_bits, end_bit - shift);
      const std::uint64_t mask = (std::uint64_t{1} << width) - 1;
      const auto digit = [&](Key key) { return (std::uint64_t{key} >> shift) & mask; };
      pool.parallel_for(
          chunks,
          [&](std::uint64_t first, std::uint64_t last) {
            for (std::uint64_t c = first; c < last; ++c) {
              std::uint64_t* counts = &starts[c * radix];
              std::fill(counts, counts + radix, std::uint64_t{0});
              for (std::uint64_t i = c * chunk_size; i < chunk_end(c); ++i)
                ++counts[digit(from_keys[i])];
            }
          },
          1);
      std::uint64_t running = 0;
      for (std::uint64_t d = 0; d < radix; ++d)
        for (std::uint64_t c = 0; c < chunks; ++c) {
          const std::uint64_t count = starts[c * radix + d];
          starts[c * radix + d] = running;
          running += count;
        }
      pool.parallel_for(
          chunks,
          [&](std::uint64_t first, std::uint64_t last) {
            for (std::uint64_t c = first; c < last; ++c) {
              std::uint64_t* next = &starts[c * radix];
              for (std::uint64_t i = c * chunk_size; i < chunk_end(c); ++i) {
                const std::uint64_t at = next[digit(from_keys[i])]++;
                to_keys[at] = from_keys[i];
                to_order[at] = from_order[i];
              }
            }
          },
          1);
      from_keys = to_keys;
      from_order = to_order;
    }
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

  /// Stable partition of [0, n) into `ways` groups: place(i, at) for every
  /// i, where `at` is i's position once the indices are grouped by
  /// way_of(i) (in [0, ways)) in increasing way order, keeping their order
  /// within a way, each group starting at the first multiple of `align`
  /// after the group before it ends (positions between groups are not
  /// placed); counts[w] (host memory, `ways` entries) = the size of group
  /// w. A pass over fixed chunks that counts each chunk's ways (and keeps
  /// them), each (way, chunk)'s first position, then a pass that places
  /// every chunk in order.
  template <class WayOf, class Place>
  static void stable_partition(std::uint64_t n, std::uint32_t ways, const WayOf& way_of,
                               const Place& place, std::uint64_t* counts, stream_type stream,
                               std::uint64_t align = 1) {
    if (ways == 0) throw std::invalid_argument("gpuhash: a stable partition takes 1 way or more");
    if (align == 0) throw std::invalid_argument("gpuhash: a stable partition's align is 1 or more");
    auto& pool = stream.get();
    const std::uint64_t chunks = std::uint64_t{pool.thread_count()} * 4;
    const std::uint64_t chunk_size = (n + chunks - 1) / chunks;
    const auto chunk_end = [&](std::uint64_t c) { return std::min(n, (c + 1) * chunk_size); };
    std::vector<std::uint32_t> way(n);
    std::vector<std::uint64_t> next(chunks * ways, 0);
    pool.parallel_for(
        chunks,
        [&](std::uint64_t first, std::uint64_t last) {
          for (std::uint64_t c = first; c < last; ++c)
            for (std::uint64_t i = c * chunk_size; i < chunk_end(c); ++i) {
              way[i] = way_of(i);
              ++next[c * ways + way[i]];
            }
        },
        1);
    std::uint64_t running = 0;
    for (std::uint32_t w = 0; w < ways; ++w) {
      running = round_up(running, align);
      const std::uint64_t first = running;
      for (std::uint64_t c = 0; c < chunks; ++c) {
        const std::uint64_t count = next[c * ways + w];
        next[c * ways + w] = running;
        running += count;
      }
      counts[w] = running - first;
    }
    pool.parallel_for(
        chunks,
        [&](std::uint64_t first, std::uint64_t last) {
          for (std::uint64_t c = first; c < last; ++c)
            for (std::uint64_t i = c * chunk_size; i < chunk_end(c); ++i)
              place(i, next[c * ways + way[i]]++);
        },
        1);
  }
};

}  // namespace gpuhash::detail
