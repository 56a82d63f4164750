// Static HashGraph's timed runs on the CPU backend, the case labels, and the
// std::unordered_set reference.

#include <chrono>
#include <cstdint>
#include <unordered_set>
#include <vector>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/hash.hpp"
#include "static_runs_impl.hpp"

namespace gpuhash::bench {

template point_report time_static_hashgraph<cpu_backend>(const sweep_point&, const static_case&);

std::string static_case_label(const static_case& c) {
  std::string label = c.map ? "hashgraph_map_" : "hashgraph_set_";
  label += c.segments == segment_layout::csr       ? "csr"
           : c.segments == segment_layout::ellpack ? "ellpack"
                                                   : "sliced_ellpack";
  if (c.map) label += c.pairs == pair_layout::array_of_structures ? "_aos" : "_soa";
  return label;
}

namespace {
/// The table's hash, for std::unordered_set (the thesis gave both Murmur).
struct murmur_for_std {
  std::size_t operator()(std::uint32_t key) const {
    return static_cast<std::size_t>(hashgraph_hash<std::uint32_t>{}(key));
  }
};
}  // namespace

point_report time_unordered_set(const sweep_point& point, hashgraph_work work) {
  const std::uint64_t n = point.n;
  std::vector<std::uint32_t> keys(n), values(n);
  point_report report;
  report.design = "std_unordered_set";
  report.backend = std::string(cpu_backend::name);
  report.key_bits = 32;
  report.point = point;
  // Named as the HashGraph operation it is compared with (a find is a find:
  // std::unordered_set has no binned probe).
  report.ops.push_back(
      {work == hashgraph_work::build            ? "build"
       : work == hashgraph_work::probe_standard ? "probe_standard"
                                                : "probe_binned",
       judged_by{
           report.design, 32, {{work == hashgraph_work::build ? "insert" : "find_hit", 1.0}}, {}},
       {}});
  const auto timed = [](auto&& step) {
    const auto start = std::chrono::steady_clock::now();
    step();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
  };
  for (int repetition = -point.warmups; repetition < point.repetitions; ++repetition) {
    generate_keys<std::uint32_t, std::uint32_t>(cpu_backend{}, repetition_keys(point, repetition),
                                                0, n, keys.data(), values.data(), {});
    // Its bucket array allocated up front, as the thesis allowed (4.4.2).
    std::unordered_set<std::uint32_t, murmur_for_std> set;
    set.reserve(n);
    const auto build = [&] {
      for (const std::uint32_t key : keys) set.insert(key);
    };
    double ms = 0;
    std::size_t found = 0;
    if (work == hashgraph_work::build) {
      ms = timed(build);
      for (const std::uint32_t key : keys) found += set.count(key);
    } else {
      build();
      ms = timed([&] {
        for (const std::uint32_t key : keys) found += set.count(key);
      });
    }
    require_all(n - found, n, "std::unordered_set");
    if (repetition >= 0) report.ops[0].ms.push_back(ms);
    // The same columns as the HashGraph rows: its buckets are its slots.
    const auto buckets = static_cast<double>(set.bucket_count());
    report.parameters = {{"slots", buckets},
                         {"buckets", buckets},
                         {"slots_per_key", buckets / static_cast<double>(n)},
                         {"build_algorithm", -1}};
  }
  return report;
}

}  // namespace gpuhash::bench
