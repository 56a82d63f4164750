#pragma once
// Physical limits against which table rates are judged: of random memory
// access (G accesses/s), and of copying (bytes/s), the yardstick of rates in
// bytes. Reference values of the access limits were measured earlier on an
// H200 and an H100 (docs/results/limits.md); the `limits` experiment measures
// both kinds again on the device at hand, and a rate is judged against the
// limit of its own run.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpuhash::bench {

struct access_limits {
  double random_read_32 = 0;       ///< G accesses/s: one random 32-byte read per key
  double random_read_64 = 0;       ///< one random 64-byte read per key
  double random_read_128 = 0;      ///< one random 128-byte read per key
  double two_reads_64 = 0;         ///< two independent random 64-byte reads per key
  double cas_8 = 0;                ///< one random 8-byte atomicCAS per key
  double read_then_cas = 0;        ///< a random 64-byte read, then a (failing) CAS in that line
  double read_then_cas_write = 0;  ///< the same with a CAS that succeeds: the line is written back

  /// The limit by its JSON name ("random_read_64", ...), 0 if unknown.
  double by_name(std::string_view name) const;
};

/// Names of all limits, in report order.
inline constexpr const char* limit_names[] = {
    "random_read_32", "random_read_64", "random_read_128",    "two_reads_64",
    "cas_8",          "read_then_cas",  "read_then_cas_write"};

/// The earlier measurements for an H200 or H100 (by device name), if known.
std::optional<access_limits> reference_limits(const std::string& device_name);

/// The bandwidth of one large copy within a backend's memory, in bytes copied
/// per second: a byte read once and written once counts once, so an
/// operation that hands back values at this rate moves them as fast as a copy
/// of the values would.
struct copy_limit {
  double bytes_per_s = 0;
  std::uint64_t buffer_bytes = 0;  ///< bytes of each copy
};

/// The size of the copy: far larger than a GPU's L2 cache and than the
/// last-level cache of the CPUs the benchmark runs on (tens of MB).
inline constexpr std::uint64_t copy_buffer_bytes = std::uint64_t{1} << 30;

/// Copies `buffer_bytes` between two host buffers on the CPU backend's thread
/// pool, every thread a share (memcpy); one warm-up, then the median of
/// `repetitions` copies.
copy_limit measure_cpu_copy(int repetitions, std::uint64_t buffer_bytes = copy_buffer_bytes);

#if defined(GPUHASH_HAS_CUDA)
/// Copies `buffer_bytes` device to device (cudaMemcpyAsync, timed by CUDA
/// events); one warm-up, then the median of `repetitions` copies.
copy_limit measure_cuda_copy(int repetitions, std::uint64_t buffer_bytes = copy_buffer_bytes);

/// Measures the limits on the current CUDA device (about a second) over a
/// buffer of `buffer_bytes` (default 1 GiB: the size of a table of 2^26
/// 32/32-bit pairs at load 0.5; far larger than the L2 cache).
access_limits measure_limits(int repetitions, std::uint64_t buffer_bytes = std::uint64_t{1} << 30);
#endif

}  // namespace gpuhash::bench
