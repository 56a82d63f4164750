// String keys (docs/key_types.md, "Strings"):
//   key_types.strings  string_map with keys of 8 to 64 and 16 to 32 bytes:
//                      insert / find-hit / find-miss / erase (--n: 2^24 GPU,
//                      2^22 CPU; --load: 0.5, 0.8; --backend, --reps), and on
//                      the CPU std::unordered_map<std::string, ...> with the
//                      same hash, one thread, at the same points
//
// Keys are random bytes, each beginning with its 4-byte index so that no two
// are equal (present keys are indices [0, n), absent ones [n, 2n)); a fresh
// set per repetition. The table is sized for the point's load and the
// keys' bytes, so it never rebuilds while timed (checked). A find is judged
// against two random 64-byte reads (the slot, then the key's bytes in the
// arena), an insert or erase against a read then a CAS.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../basic_ops.hpp"
#include "../report.hpp"
#include "../sweep.hpp"
#include "../timer.hpp"
#include "experiments.hpp"
#include "gpuhash/string_map.hpp"

namespace gpuhash::bench {
namespace {

struct length_range {
  std::uint32_t min;
  std::uint32_t max;
};

/// n keys with indices [first, first + n): Arrow's layout on the host.
struct host_strings {
  std::vector<std::int64_t> offsets;
  std::vector<char> bytes;

  host_strings(std::uint64_t seed, std::uint64_t first, std::uint64_t n, length_range lengths) {
    std::uint64_t state = seed ^ (first * 0x9e3779b97f4a7c15ULL);
    const auto next = [&] {  // splitmix64
      std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      return z ^ (z >> 31);
    };
    offsets.resize(n + 1);
    offsets[0] = 0;
    const std::uint32_t span = lengths.max - lengths.min + 1;
    for (std::uint64_t i = 0; i < n; ++i)
      offsets[i + 1] = offsets[i] + lengths.min + static_cast<std::int64_t>(next() % span);
    bytes.resize(static_cast<std::size_t>(offsets[n]) + 8);
    for (std::uint64_t i = 0; i < n; ++i) {
      char* key = bytes.data() + offsets[i];
      const auto length = static_cast<std::size_t>(offsets[i + 1] - offsets[i]);
      for (std::size_t at = 4; at < length; at += 8) {
        const std::uint64_t word = next();
        std::memcpy(key + at, &word, std::min<std::size_t>(8, length - at));
      }
      const auto index = static_cast<std::uint32_t>(first + i);
      std::memcpy(key, &index, 4);
    }
    bytes.resize(static_cast<std::size_t>(offsets[n]));
  }
  std::string_view key(std::uint64_t i) const {
    return {bytes.data() + offsets[i], static_cast<std::size_t>(offsets[i + 1] - offsets[i])};
  }
};

/// host_strings in a backend's memory.
template <class Backend>
struct backend_strings {
  typename Backend::template buffer<std::int64_t> offsets;
  typename Backend::template buffer<char> bytes;
  std::uint64_t n;
  explicit backend_strings(const host_strings& host) : n(host.offsets.size() - 1) {
    offsets = Backend::template allocate<std::int64_t>(host.offsets.size());
    bytes = Backend::template allocate<char>(std::max<std::size_t>(host.bytes.size(), 1));
    Backend::copy_from_host(offsets.data(), host.offsets.data(), host.offsets.size());
    Backend::copy_from_host(bytes.data(), host.bytes.data(), host.bytes.size());
  }
  string_column column() const { return {bytes.data(), offsets.data(), n}; }
};

std::size_t count_other(const std::vector<status>& statuses, status expected) {
  return static_cast<std::size_t>(
      std::count_if(statuses.begin(), statuses.end(), [&](status s) { return s != expected; }));
}

/// A report of a table of strings with 32-bit values: key_bits is the keys'
/// mean length in bits, their range is two parameters.
point_report strings_report(std::string design, std::string backend, const sweep_point& point,
                            length_range lengths) {
  point_report report;
  report.design = std::move(design);
  report.backend = std::move(backend);
  report.key_bits = static_cast<int>(4 * (lengths.min + lengths.max));
  report.value_bits = 32;
  report.point = point;
  for (const char* op : {"insert", "find_hit", "find_miss", "erase"})
    report.ops.push_back({op, judged_by{report.design, 32, {{op, 1.0}}, {}}, {}});
  report.parameters.push_back({"min_key_bytes", static_cast<double>(lengths.min)});
  report.parameters.push_back({"max_key_bytes", static_cast<double>(lengths.max)});
  return report;
}

template <class Backend>
point_report run_string_map(const sweep_point& point, length_range lengths) {
  using map_type = string_map<std::uint32_t, Backend>;
  const std::uint64_t n = point.n;
  const auto capacity =
      static_cast<std::size_t>(std::ceil(static_cast<double>(n) / point.load_factor));
  // Room for one batch's bytes (plus growth of nothing): the arena never fills.
  const std::size_t arena = n * lengths.max + 4096;
  map_type table(table_options{capacity, 1.0f, 0x5eed5eedULL}, arena);
  const std::size_t rebuilds_before = table.rebuilds();

  auto values = Backend::template allocate<std::uint32_t>(n);
  {
    std::vector<std::uint32_t> host(n);
    for (std::uint64_t i = 0; i < n; ++i) host[i] = static_cast<std::uint32_t>(i);
    Backend::copy_from_host(values.data(), host.data(), n);
  }
  auto found = Backend::template allocate<std::uint32_t>(n);
  auto statuses = Backend::template allocate<status>(n);
  std::vector<status> host_statuses(n);
  std::vector<std::uint32_t> host_found(n);

  point_report report = strings_report(std::string(map_type::design_name),
                                       std::string(Backend::name), point, lengths);

  step_timer<Backend> timer;
  const auto check = [&](status expected, const char* what) {
    Backend::copy_to_host(host_statuses.data(), statuses.data(), n);
    require_all(count_other(host_statuses, expected), n, what);
  };
  for (int repetition = -point.warmups; repetition < point.repetitions; ++repetition) {
    const std::uint64_t seed = repetition_keys(point, repetition).seed;
    const backend_strings<Backend> present(host_strings(seed, 0, n, lengths));
    const backend_strings<Backend> absent(host_strings(seed, n, n, lengths));
    table.clear();
    Backend::synchronize({});

    const double insert_ms =
        timer.time([&] { table.insert(present.column(), values.data(), statuses.data()); }, {});
    check(status::inserted, "insert");
    if (table.rebuilds() != rebuilds_before)
      throw std::runtime_error("string_map rebuilt while timed: the benchmark sized it wrong");
    report.memory_bytes = table.memory_bytes();

    const double hit_ms =
        timer.time([&] { table.find(present.column(), found.data(), statuses.data()); }, {});
    check(status::found, "find (present keys)");
    Backend::copy_to_host(host_found.data(), found.data(), n);
    std::size_t wrong = 0;
    for (std::uint64_t i = 0; i < n; ++i) wrong += host_found[i] != i;
    require_all(wrong, n, "find (values of present keys)");

    const double miss_ms =
        timer.time([&] { table.find(absent.column(), found.data(), statuses.data()); }, {});
    check(status::not_found, "find (absent keys)");

    const double erase_ms = timer.time([&] { table.erase(present.column(), statuses.data()); }, {});
    check(status::erased, "erase");

    keep_timings(report, repetition, {insert_ms, hit_ms, miss_ms, erase_ms});
  }
  report.capacity = table.capacity();
  return report;
}

/// The reference on the CPU: std::unordered_map with string_map's hash, one
/// thread, reserved for n keys at the point's load.
struct same_hash {
  std::size_t operator()(const std::string& key) const {
    return string_bytes_hash{}(key.data(), static_cast<std::uint32_t>(key.size()), 0x5eed5eedULL);
  }
};

point_report run_unordered_map(const sweep_point& point, length_range lengths) {
  const std::uint64_t n = point.n;
  point_report report = strings_report("std_unordered_map", "cpu", point, lengths);
  step_timer<cpu_backend> timer;
  for (int repetition = -point.warmups; repetition < point.repetitions; ++repetition) {
    const std::uint64_t seed = repetition_keys(point, repetition).seed;
    const host_strings present(seed, 0, n, lengths);
    const host_strings absent(seed, n, n, lengths);
    std::unordered_map<std::string, std::uint32_t, same_hash> map;
    map.max_load_factor(static_cast<float>(point.load_factor));
    map.reserve(n);
    std::size_t wrong = 0;
    const double insert_ms = timer.time([&] {
      for (std::uint64_t i = 0; i < n; ++i)
        wrong += !map.emplace(present.key(i), static_cast<std::uint32_t>(i)).second;
    });
    require_all(wrong, n, "insert");
    const double hit_ms = timer.time([&] {
      for (std::uint64_t i = 0; i < n; ++i) {
        const auto it = map.find(std::string(present.key(i)));
        wrong += it == map.end() || it->second != i;
      }
    });
    require_all(wrong, n, "find (present keys)");
    const double miss_ms = timer.time([&] {
      for (std::uint64_t i = 0; i < n; ++i) wrong += map.contains(std::string(absent.key(i)));
    });
    require_all(wrong, n, "find (absent keys)");
    const double erase_ms = timer.time([&] {
      for (std::uint64_t i = 0; i < n; ++i) wrong += map.erase(std::string(present.key(i))) != 1;
    });
    require_all(wrong, n, "erase");
    keep_timings(report, repetition, {insert_ms, hit_ms, miss_ms, erase_ms});
  }
  return report;
}

}  // namespace

experiment strings_experiment() {
  return {"key_types.strings",
          "string_map with keys of 8-64 and 16-32 bytes: insert / find-hit / find-miss / erase "
          "at loads 0.5 and 0.8 (--n: 2^24 GPU, 2^22 CPU; --load, --backend, --reps); on the "
          "CPU also std::unordered_map<std::string> with the same hash, one thread",
          [](context& ctx) {
            const auto loads = ctx.arguments().numbers("load", {0.5, 0.8});
            record_on_each_backend(
                ctx, "key_types.strings", std::uint64_t{1} << 22, std::uint64_t{1} << 24,
                [&]<class Backend>(sweep_point base, const auto& keep) {
                  for (const length_range lengths : {length_range{8, 64}, length_range{16, 32}}) {
                    for (const double load : loads) {
                      sweep_point point = base;
                      point.load_factor = load;
                      keep(run_string_map<Backend>(point, lengths));
                      if constexpr (Backend::host_accessible)
                        keep(run_unordered_map(point, lengths));
                    }
                  }
                });
          }};
}

}  // namespace gpuhash::bench
