#pragma once
// Physical limits against which table rates are judged: of random memory
// access patterns (G accesses/s), and of copying (bytes/s), the yardstick of
// rates in bytes. Every limit is measured on the device at hand, in the same
// run as the rates it judges (context::measured_limit), over a footprint that
// matches the judged table; bench/yardsticks.cpp says which limit judges
// which operation of which design, docs/results/limits.md shows them measured.

#include <cstdint>
#include <string_view>

namespace gpuhash::bench {

/// Where the random accesses of a limit land.
enum class limit_footprint : std::uint8_t {
  /// A buffer of the judged table's size (limit_buffer_bytes): a table far
  /// larger than L2 is judged against DRAM, one that fits against L2.
  table,
  /// A buffer of half the device's L2 cache: every access can hit L2.
  l2,
};

/// One random-access pattern the tables' operations are made of.
struct access_limit {
  std::string_view name;     ///< its name in results ("limit" in JSON)
  std::string_view pattern;  ///< what one access does
  limit_footprint footprint;
};

/// Every access limit, in report order. Reads load 16 bytes per lane; a read
/// wider than a sector is made by a tile of lanes, one 16-byte piece each
/// (one request per line, the cheapest way to read it). Atomics are 8 bytes
/// wide.
inline constexpr access_limit access_limits[] = {
    {"random_read_32", "one random 32-byte sector (one 16-byte load: memory moves whole sectors)",
     limit_footprint::table},
    {"random_read_64", "one random 64-byte line, read by a tile of 4 lanes",
     limit_footprint::table},
    {"random_read_128", "one random 128-byte line, read by a tile of 8 lanes",
     limit_footprint::table},
    {"two_reads_32", "two independent random 32-byte sectors", limit_footprint::table},
    {"two_reads_64", "two independent random 64-byte lines, by a tile of 4 lanes",
     limit_footprint::table},
    {"l2_then_random_read_32",
     "an 8-byte read at a random position of a buffer of half the L2 cache, then a random "
     "32-byte sector of the table-sized buffer at a position that depends on the value read",
     limit_footprint::table},
    {"random_read_32_l2", "random_read_32 in a buffer of half the L2 cache", limit_footprint::l2},
    {"two_reads_32_l2", "two_reads_32 in a buffer of half the L2 cache", limit_footprint::l2},
    {"cas_8", "a random 8-byte CAS that fails (no read before it; nothing is written)",
     limit_footprint::table},
    {"cas_8_write",
     "a random 8-byte CAS that succeeds (no read before it; each word once per run, so every "
     "access writes)",
     limit_footprint::table},
    {"read_then_cas",
     "a random 8-byte relaxed load, then a CAS of the word read that fails (nothing is written)",
     limit_footprint::table},
    {"read_then_cas_write",
     "a random 8-byte relaxed load, then a CAS of the word read that succeeds (the sector is "
     "written back)",
     limit_footprint::table},
    {"sector_read_then_cas_write",
     "a random 32-byte sector read by two weak 16-byte loads (as tables probe a bucket), then "
     "a CAS of its first word that succeeds (the sector is written back)",
     limit_footprint::table},
};

/// The access limit of this name; nullptr if there is none.
const access_limit* find_access_limit(std::string_view name);

/// The size of the buffer a limit measured for a table of `table_bytes` reads
/// at random: the table's size rounded up to a quarter of an octave (1, 1.25,
/// 1.5 or 1.75 times a power of two), at least 1 MiB. The limits change slowly
/// with the footprint, so the points of a sweep share measurements, and a
/// table that fits in L2 is judged over a buffer that fits too.
std::uint64_t limit_buffer_bytes(std::uint64_t table_bytes);

/// One measured access limit.
struct access_measurement {
  double gops = 0;                 ///< G accesses/s
  std::uint64_t buffer_bytes = 0;  ///< the size of the buffer read at random
};

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

/// Measures the access limit `name` (one of access_limits) on the current
/// CUDA device for a table of `table_bytes`: 2^26 accesses per run (fewer for
/// cas_8_write over a buffer of fewer words: each word once), CUDA events,
/// one warm-up, then the median of `repetitions` runs. Throws if the
/// atomics did not do what the limit says (a CAS meant to fail succeeded, or
/// one meant to succeed failed).
access_measurement measure_access_limit(std::string_view name, std::uint64_t table_bytes,
                                        int repetitions);
#endif

}  // namespace gpuhash::bench
