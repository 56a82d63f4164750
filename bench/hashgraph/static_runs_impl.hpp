#pragma once
// The template behind static_runs.hpp; included by static_runs_cpu.cpp and
// static_runs_cuda.cu only.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "../timer.hpp"
#include "../workload.hpp"
#include "static_runs.hpp"

namespace gpuhash::bench {

template <class Backend, class Table>
point_report run_static(const sweep_point& point, const static_case& c) {
  using key_type = std::uint32_t;
  using value_type = std::uint32_t;
  const std::uint64_t n = point.n;
  const typename Backend::stream_type stream{};

  hashgraph_options options;
  options.build = c.build;
  options.buckets_per_bin = c.buckets_per_bin;
  Table table(options);

  auto keys = Backend::template allocate<key_type>(n);
  auto values = Backend::template allocate<value_type>(n);
  auto found = Backend::template allocate<value_type>(c.map ? n : 0);
  auto statuses = Backend::template allocate<status>(c.map ? n : 0);
  auto flags = Backend::template allocate<bool>(c.map ? 0 : n);

  const char* op = c.work == hashgraph_work::build            ? "build"
                   : c.work == hashgraph_work::probe_standard ? "probe_standard"
                                                              : "probe_binned";
  // The static tables' yardsticks are by segment layout (yardsticks.cpp):
  // a build is an insert, a probe a find of stored keys.
  const std::string layout = c.segments == segment_layout::csr       ? "csr"
                             : c.segments == segment_layout::ellpack ? "ellpack"
                                                                     : "sliced_ellpack";
  const judged_by judgement{
      "hashgraph_static_" + layout,
      32,
      {{c.work == hashgraph_work::build ? "insert" : "find_hit", 1.0}},
      c.work == hashgraph_work::probe_binned ? std::string(bucket_order_reason) : std::string()};
  point_report report;
  report.design = static_case_label(c);
  report.backend = std::string(Backend::name);
  report.key_bits = 32;
  report.value_bits = c.map ? 32 : 0;
  report.point = point;
  report.ops.push_back({op, judgement, {}});

  const auto probe = [&](hashgraph_probe how) {
    if constexpr (requires {
                    table.find(keys.data(), n, found.data(), statuses.data(), how, stream);
                  })
      table.find(keys.data(), n, found.data(), statuses.data(), how, stream);
    else
      table.contains(keys.data(), n, flags.data(), how, stream);
  };
  const auto build = [&] {
    if constexpr (requires { table.build(keys.data(), values.data(), n, stream); })
      table.build(keys.data(), values.data(), n, stream);
    else
      table.build(keys.data(), n, stream);
  };
  const auto check_all_found = [&](const char* what) {
    std::size_t wrong = 0;
    if constexpr (requires {
                    table.find(keys.data(), n, found.data(), statuses.data(),
                               hashgraph_probe::standard, stream);
                  })
      wrong = count_unexpected<key_type, value_type>(Backend{}, keys.data(), found.data(),
                                                     statuses.data(), n, status::found, stream);
    else {  // checked on the host: verification, outside the timed region
      const auto host_flags = std::make_unique_for_overwrite<bool[]>(n);
      Backend::copy_to_host(host_flags.get(), flags.data(), n, stream);
      wrong = static_cast<std::size_t>(std::count(host_flags.get(), host_flags.get() + n, false));
    }
    require_all(wrong, n, what);
  };

  step_timer<Backend> timer;
  for (int repetition = -point.warmups; repetition < point.repetitions; ++repetition) {
    const key_spec spec = repetition_keys(point, repetition);
    generate_keys<key_type, value_type>(Backend{}, spec, 0, n, keys.data(), values.data(), stream);
    Backend::synchronize(stream);
    double ms = 0;
    if (c.work == hashgraph_work::build) {
      ms = timer.time(build, stream);
      if (table.size() != n)
        throw std::runtime_error("verification failed: the build kept " +
                                 std::to_string(table.size()) + " of " + std::to_string(n) +
                                 " distinct keys");
      probe(hashgraph_probe::standard);
      check_all_found("the build (all keys found)");
    } else {
      build();
      const auto how = c.work == hashgraph_work::probe_standard ? hashgraph_probe::standard
                                                                : hashgraph_probe::binned;
      ms = timer.time([&] { probe(how); }, stream);
      check_all_found(op);
    }
    if (repetition >= 0) report.ops[0].ms.push_back(ms);
  }
  report.capacity = table.slot_count();
  report.memory_bytes = table.memory_bytes();
  report.parameters = {
      {"slots", static_cast<double>(table.slot_count())},
      {"buckets", static_cast<double>(table.bucket_count())},
      {"slots_per_key", static_cast<double>(table.slot_count()) / static_cast<double>(n)},
      {"build_algorithm", static_cast<double>(static_cast<int>(c.build))}};
  return report;
}

template <class Backend, segment_layout Segments>
point_report run_static_in(const sweep_point& point, const static_case& c) {
  using hash = hashgraph_hash<std::uint32_t>;
  if (!c.map)
    return run_static<Backend, hashgraph_set<std::uint32_t, Backend, hash, Segments>>(point, c);
  if (c.pairs == pair_layout::array_of_structures)
    return run_static<Backend, hashgraph_map<std::uint32_t, std::uint32_t, Backend, hash, Segments,
                                             pair_layout::array_of_structures>>(point, c);
  return run_static<Backend, hashgraph_map<std::uint32_t, std::uint32_t, Backend, hash, Segments,
                                           pair_layout::structure_of_arrays>>(point, c);
}

template <class Backend>
point_report time_static_hashgraph(const sweep_point& point, const static_case& c) {
  switch (c.segments) {
    case segment_layout::csr: return run_static_in<Backend, segment_layout::csr>(point, c);
    case segment_layout::ellpack: return run_static_in<Backend, segment_layout::ellpack>(point, c);
    case segment_layout::sliced_ellpack:
      return run_static_in<Backend, segment_layout::sliced_ellpack>(point, c);
  }
  throw std::invalid_argument("unknown segment layout");
}

}  // namespace gpuhash::bench
