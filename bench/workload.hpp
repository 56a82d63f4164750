#pragma once
// Benchmark inputs, generated where the table lives (on the GPU for the CUDA
// backend) from a seed, so every repetition gets fresh keys cheaply:
//  * uniform: distinct keys, uniformly spread over the key space. Key i is a
//    fixed random permutation of i+1, so indices [0, n) and [n, 2n) give two
//    disjoint sets (present and absent keys). Never 0, never one of the 16
//    largest values (reserved by the designs).
//  * zipf: ranks drawn from a Zipf distribution over `universe` ranks
//    (rejection-inversion sampling, Hormann and Derflinger 1996), each rank
//    mapped to a key by the same permutation: skewed, with repeats.
//  * dense: the keys offset+1 .. offset+n in order.
// Values are a fixed function of the key, so results can be checked.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/hash.hpp"
#include "gpuhash/host_device.hpp"
#include "gpuhash/status.hpp"
#if defined(GPUHASH_HAS_CUDA)
#include "gpuhash/cuda/backend.hpp"
#endif

namespace gpuhash::bench {

enum class distribution : std::uint8_t { uniform, zipf, dense };

distribution parse_distribution(const std::string& name);
std::string to_string(distribution d);

struct key_spec {
  distribution kind = distribution::uniform;
  std::uint64_t seed = 1;
  double zipf_exponent = 0.99;
  std::uint64_t universe = 0;  ///< zipf: number of distinct ranks
};

/// The 16-byte keys and values of the key_types experiments (the tables
/// store 16-byte types as this word: gpuhash/key_types.hpp).
__extension__ typedef unsigned __int128 word128;

/// A wide value of the key_types experiments: `Bytes` bytes (32: eight
/// floats, as HierarchicalKV's benchmark stores; 128: 32 floats).
template <std::size_t Bytes>
struct wide_value {
  std::uint64_t words[Bytes / 8];
  GPUHASH_HD bool operator==(const wide_value& other) const {
    for (std::size_t i = 0; i < Bytes / 8; ++i)
      if (words[i] != other.words[i]) return false;
    return true;
  }
  GPUHASH_HD bool operator!=(const wide_value& other) const { return !(*this == other); }
};

template <class T>
inline constexpr bool is_bench_wide_value = false;
template <std::size_t Bytes>
inline constexpr bool is_bench_wide_value<wide_value<Bytes>> = true;

/// The key and value types each backend compiles the generators and
/// checkers below for (workload_cpu.cpp, workload_cuda.cu), as lists of
/// X(Key, Value): the pairs of every experiment, with all of them; and 64-bit
/// keys with values of other widths (the key_types experiments), with only
/// what basic_ops.hpp uses (value tags XOR values, which wide ones cannot).
// clang-format off
#define GPUHASH_BENCH_PAIRS(X)                                                          \
  X(std::uint32_t, std::uint32_t)                                                       \
  X(std::uint64_t, std::uint64_t)                                                       \
  X(word128, word128)
#define GPUHASH_BENCH_VALUE_WIDTH_PAIRS(X)                                              \
  X(std::uint64_t, std::uint32_t)                                                       \
  X(std::uint64_t, word128)                                                             \
  X(std::uint64_t, wide_value<32>)                                                      \
  X(std::uint64_t, wide_value<64>)                                                      \
  X(std::uint64_t, wide_value<128>)
// clang-format on

template <class Key>
struct key_permutation {
  std::uint64_t seed;

  GPUHASH_HD static constexpr Key largest_allowed() {
    if constexpr (sizeof(Key) == 16)
      return ~Key{0} - 16;  // strict C++ has no numeric_limits<unsigned __int128>
    else
      return std::numeric_limits<Key>::max() - 16;
  }
  /// Two rounds, each a XOR with a seed word and a finalizer: every step is a
  /// bijection, and the second XOR makes the image of a range of indices
  /// depend on the whole seed (after one round it depends only on the seed's
  /// bits above the range, so two seeds could give almost the same key set).
  GPUHASH_HD Key mix(Key x) const {
    const std::uint64_t second = murmur3_fmix64(seed + 0x9e3779b97f4a7c15ULL);
    if constexpr (sizeof(Key) == 4)
      return murmur3_fmix32(murmur3_fmix32(x ^ static_cast<std::uint32_t>(seed)) ^
                            static_cast<std::uint32_t>(second));
    else
      return murmur3_fmix64(murmur3_fmix64(x ^ seed) ^ second);
  }
  /// A bijection of [1, largest_allowed] onto itself (cycle walking: applying
  /// a permutation of all keys until the result lands in the allowed set).
  GPUHASH_HD Key operator()(Key x) const {
    if constexpr (sizeof(Key) == 16) {
      // The high half is the 64-bit permutation of x's low half (so no key
      // is reserved: those have a high half of all ones), the low half a
      // hash of the high one; distinct x below 2^64 give distinct keys.
      const std::uint64_t high =
          key_permutation<std::uint64_t>{seed}(static_cast<std::uint64_t>(x));
      const std::uint64_t low = murmur3_fmix64(high ^ murmur3_fmix64(seed + 1));
      return (static_cast<Key>(high) << 64) | low;
    } else {
      Key y = mix(x);
      while (y == 0 || y > largest_allowed()) y = mix(y);
      return y;
    }
  }
};

/// Zipf(s) over ranks 1..universe by rejection-inversion; uniform inputs come
/// from a counter-based generator, so sample i is a pure function of (seed, i).
struct zipf_sampler {
  double exponent;
  double universe;
  double h_integral_x1;
  double h_integral_n;
  double s;

  GPUHASH_HD static double helper1(double x) {
    return std::fabs(x) > 1e-8 ? std::log1p(x) / x : 1 - x * (0.5 - x / 3);
  }
  GPUHASH_HD static double helper2(double x) {
    return std::fabs(x) > 1e-8 ? std::expm1(x) / x : 1 + x * 0.5 * (1 + x / 3);
  }
  GPUHASH_HD double h(double x) const { return std::exp(-exponent * std::log(x)); }
  GPUHASH_HD double h_integral(double x) const {
    const double log_x = std::log(x);
    return helper2((1 - exponent) * log_x) * log_x;
  }
  GPUHASH_HD double h_integral_inverse(double x) const {
    double t = x * (1 - exponent);
    if (t < -1) t = -1;
    return std::exp(helper1(t) * x);
  }

  static zipf_sampler make(double exponent, std::uint64_t universe) {
    zipf_sampler z{exponent, static_cast<double>(universe), 0, 0, 0};
    z.h_integral_x1 = z.h_integral(1.5) - 1;
    z.h_integral_n = z.h_integral(z.universe + 0.5);
    z.s = 2 - z.h_integral_inverse(z.h_integral(2.5) - z.h(2));
    return z;
  }

  GPUHASH_HD static double unit(std::uint64_t seed, std::uint64_t counter) {
    return static_cast<double>(
               murmur3_fmix64(seed ^ murmur3_fmix64(counter + 0x9e3779b97f4a7c15ULL)) >> 11) *
           0x1.0p-53;
  }

  GPUHASH_HD std::uint64_t operator()(std::uint64_t seed, std::uint64_t i) const {
    for (std::uint64_t attempt = 0;; ++attempt) {
      const double u = h_integral_n + unit(seed, 4 * i + attempt) * (h_integral_x1 - h_integral_n);
      const double x = h_integral_inverse(u);
      double k = std::floor(x + 0.5);
      if (k < 1) k = 1;
      if (k > universe) k = universe;
      if (k - x <= s || u >= h_integral(k + 0.5) - h(k)) return static_cast<std::uint64_t>(k);
    }
  }
};

/// Key i and its value, for i counted from the start of the generated range.
template <class Key, class Value>
struct key_generator {
  key_spec spec;
  std::uint64_t first_index;
  zipf_sampler zipf;

  GPUHASH_HD Key key(std::uint64_t i) const {
    const std::uint64_t index = first_index + i;
    switch (spec.kind) {
      case distribution::dense: return static_cast<Key>(index + 1);
      case distribution::zipf:
        return key_permutation<Key>{spec.seed}(static_cast<Key>(zipf(spec.seed, index)));
      case distribution::uniform: break;
    }
    return key_permutation<Key>{spec.seed}(static_cast<Key>(index + 1));
  }
  GPUHASH_HD static Value value_for(Key key) {
    const std::uint64_t low =
        murmur3_fmix64(static_cast<std::uint64_t>(key) ^ 0xa5a5a5a5a5a5a5a5ULL);
    if constexpr (is_bench_wide_value<Value>) {
      Value value{};
      std::uint64_t word = low;
      for (auto& w : value.words) w = word = murmur3_fmix64(word);
      return value;
    } else if constexpr (sizeof(Value) == 16) {
      return (static_cast<Value>(murmur3_fmix64(low)) << 64) | low;
    } else {
      return static_cast<Value>(low);
    }
  }
};

template <class Key, class Value>
key_generator<Key, Value> make_generator(const key_spec& spec, std::uint64_t first_index) {
  const auto universe = spec.universe == 0 ? std::uint64_t{1} << 20 : spec.universe;
  return {spec, first_index, zipf_sampler::make(spec.zipf_exponent, universe)};
}

/// A batch of searches of which a fraction `hit_ratio` look for present keys.
/// Query i looks for key i of the inserted ones (generator indices [0,
/// present), so at most `present` queries) when a hash of (seed, i) falls
/// under hit_ratio, and for key present + i, never inserted, otherwise. Which
/// queries hit is a pure function of i: results are checked without storing
/// the expected statuses.
struct query_mix {
  key_spec keys;          ///< the inserted keys' spec (distinct: uniform or dense)
  std::uint64_t present;  ///< how many keys were inserted
  double hit_ratio;
};

template <class Key, class Value>
struct query_mix_generator {
  key_generator<Key, Value> keys;
  std::uint64_t present;
  double hit_ratio;

  GPUHASH_HD bool hits(std::uint64_t i) const {
    // A salted seed: which queries hit is independent of the keys' permutation.
    return zipf_sampler::unit(keys.spec.seed ^ 0x68697472617469ULL, i) < hit_ratio;
  }
  GPUHASH_HD Key key(std::uint64_t i) const { return keys.key(hits(i) ? i : present + i); }
};

template <class Key, class Value>
query_mix_generator<Key, Value> make_query_generator(const query_mix& mix) {
  return {make_generator<Key, Value>(mix.keys, 0), mix.present, mix.hit_ratio};
}

/// Values that name their write (generate_tagged_values): write i of a batch
/// of n stores value_for(key) ^ (i + 1).
template <class Key, class Value>
struct value_tags {
  const Key* written;  ///< the batch's keys
  std::uint64_t n;

  GPUHASH_HD static Value tagged(Key key, std::uint64_t i) {
    return key_generator<Key, Value>::value_for(key) ^ static_cast<Value>(i + 1);
  }
  /// Whether `value` was stored by a write of `key` in the batch.
  GPUHASH_HD bool written_for(Key key, Value value) const {
    const std::uint64_t tag = static_cast<std::uint64_t>(
        static_cast<Value>(value ^ key_generator<Key, Value>::value_for(key)));
    return tag >= 1 && tag <= n && written[tag - 1] == key;
  }
};

/// Backend-specific work on benchmark data, overloaded on the backend tag
/// (defined in workload_cpu.cpp and workload_cuda.cu for 32/32, 64/64 and
/// 128/128 bits; generate_keys and count_unexpected also for 64-bit keys
/// with values of 4 and 16 bytes and wide values of 32, 64 and 128 bytes):
///   generate_keys:    keys[i] and values[i] for generator indices
///                     [first_index, first_index + n)
///   count_unexpected: how many i have statuses[i] != expected or, when values
///                     is not null and expected == found, a value other than
///                     value_for(keys[i])
///   generate_queries: keys[i] = query i of the mix, for i in [0, n), n <= mix.present
///   count_wrong_answers: how many queries of the mix got another key, a
///                     status other than found (hits) or not_found (misses),
///                     or, when found, a value other than value_for(keys[i])
///   generate_tagged_values: values[i] = value_for(keys[i]) ^ (i + 1), so that
///                     each write of a batch with repeated keys stores a value
///                     of its own that names the write
///   count_untagged:   how many i have statuses[i] != found or a value that no
///                     write of keys[i] in the tagged batch `written` (of n
///                     keys) stored
template <class Key, class Value>
void generate_keys(cpu_backend, const key_spec& spec, std::uint64_t first_index, std::size_t n,
                   Key* keys, Value* values, cpu::stream stream);
template <class Key, class Value>
std::size_t count_unexpected(cpu_backend, const Key* keys, const Value* values,
                             const status* statuses, std::size_t n, status expected,
                             cpu::stream stream);
template <class Key, class Value>
void generate_queries(cpu_backend, const query_mix& mix, std::size_t n, Key* keys,
                      cpu::stream stream);
template <class Key, class Value>
std::size_t count_wrong_answers(cpu_backend, const query_mix& mix, const Key* keys,
                                const Value* values, const status* statuses, std::size_t n,
                                cpu::stream stream);
template <class Key, class Value>
void generate_tagged_values(cpu_backend, const Key* keys, std::size_t n, Value* values,
                            cpu::stream stream);
template <class Key, class Value>
std::size_t count_untagged(cpu_backend, const Key* written, std::size_t n, const Key* keys,
                           const Value* values, const status* statuses, std::size_t count,
                           cpu::stream stream);
#if defined(GPUHASH_HAS_CUDA)
template <class Key, class Value>
void generate_keys(cuda_backend, const key_spec& spec, std::uint64_t first_index, std::size_t n,
                   Key* keys, Value* values, cudaStream_t stream);
template <class Key, class Value>
std::size_t count_unexpected(cuda_backend, const Key* keys, const Value* values,
                             const status* statuses, std::size_t n, status expected,
                             cudaStream_t stream);
template <class Key, class Value>
void generate_queries(cuda_backend, const query_mix& mix, std::size_t n, Key* keys,
                      cudaStream_t stream);
template <class Key, class Value>
std::size_t count_wrong_answers(cuda_backend, const query_mix& mix, const Key* keys,
                                const Value* values, const status* statuses, std::size_t n,
                                cudaStream_t stream);
template <class Key, class Value>
void generate_tagged_values(cuda_backend, const Key* keys, std::size_t n, Value* values,
                            cudaStream_t stream);
template <class Key, class Value>
std::size_t count_untagged(cuda_backend, const Key* written, std::size_t n, const Key* keys,
                           const Value* values, const status* statuses, std::size_t count,
                           cudaStream_t stream);
#endif

}  // namespace gpuhash::bench
