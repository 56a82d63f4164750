#pragma once
// The benchmark skeleton shared by experiments that time a table's four basic
// batch operations (insert, find of present keys, find of absent keys, erase)
// at a given size and load factor:
//  * setup outside the timed region: fresh keys per repetition (new seed),
//    the table cleared, never re-inserting into a full table;
//  * one warm-up repetition, then the median of >= 5 timed repetitions;
//  * every timed result checked afterwards (statuses, and values of hits);
//    a failed check aborts the run.
// The pieces (repetition_keys, options_for, table_for, require_no_growth,
// report_for) are shared with the skeletons of query_ops.hpp and
// sharded/scaling_runs_impl.hpp.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "access_profile.hpp"
#include "gpuhash/status.hpp"
#include "gpuhash/table_options.hpp"
#include "timer.hpp"
#include "workload.hpp"

namespace gpuhash::bench {

struct sweep_point {
  std::uint64_t n = 0;
  double load_factor = 0.5;
  key_spec keys;
  int repetitions = 5;
  int warmups = 1;
};

struct op_timing {
  op_timing(std::string op_name, judged_by judgement, std::vector<double> times = {})
      : op(std::move(op_name)), judged(std::move(judgement)), ms(std::move(times)) {}

  std::string op;
  judged_by judged;  ///< the yardsticks this operation is judged against
  std::vector<double> ms;
  /// Bytes per key that the rate is also given in, against the copy limit
  /// (0: none), and which bytes they are ("value", "key+value", ...).
  std::uint64_t bytes_per_key = 0;
  std::string bytes_counted;

  double median_ms() const { return median(ms); }
  double min_ms() const { return *std::min_element(ms.begin(), ms.end()); }
  double max_ms() const { return *std::max_element(ms.begin(), ms.end()); }
};

/// An experiment's own parameter of a point (hit_ratio, zipf_exponent,
/// bucket_bytes, ...): a JSON field and a column of the readable table.
struct point_parameter {
  std::string name;
  double value;
};

struct point_report {
  std::string design;
  std::string backend;
  int key_bits = 0;
  int value_bits = 0;
  sweep_point point;
  std::size_t capacity = 0;
  std::size_t memory_bytes = 0;
  std::vector<op_timing> ops;  ///< each over point.n keys
  std::vector<point_parameter> parameters;
};

inline void require_all(std::size_t unexpected, std::size_t n, const char* what) {
  if (unexpected != 0)
    throw std::runtime_error(std::string("verification failed: ") + std::to_string(unexpected) +
                             " of " + std::to_string(n) + " results of " + what + " were wrong");
}

/// Adds one repetition's timings to the report's operations, in their
/// order; a warm-up's (repetition < 0) are dropped.
inline void keep_timings(point_report& report, int repetition, std::initializer_list<double> ms) {
  if (repetition < 0) return;
  std::size_t op = 0;
  for (const double t : ms) report.ops.at(op++).ms.push_back(t);
}

/// The keys of one repetition (warm-ups count from -warmups): a fresh seed
/// for each, derived from the point's.
inline key_spec repetition_keys(const sweep_point& point, int repetition) {
  key_spec spec = point.keys;
  spec.seed = murmur3_fmix64(point.keys.seed + static_cast<std::uint64_t>(repetition + 1000));
  return spec;
}

/// The options of a table sized for the point's load factor, with
/// max_load_factor 1: it must not grow while timed (require_no_growth
/// checks).
inline table_options options_for(const sweep_point& point) {
  const auto capacity =
      static_cast<std::size_t>(std::ceil(static_cast<double>(point.n) / point.load_factor));
  return table_options{capacity, 1.0f, 0x5eed5eedULL};
}

template <class Table>
Table table_for(const sweep_point& point) {
  return Table(options_for(point));
}

template <class Table>
void require_no_growth(const Table& table, std::size_t initial_capacity) {
  if (table.capacity() != initial_capacity)
    throw std::runtime_error("the table grew while being timed: the benchmark sized it wrong");
}

/// A report with the table's identity filled in and one empty timing per
/// (operation, judgement) pair.
template <class Table>
point_report report_for(const sweep_point& point,
                        std::vector<std::pair<std::string, judged_by>> ops) {
  point_report report;
  report.design = std::string(Table::design_name);
  report.backend = std::string(Table::backend_type::name);
  report.key_bits = static_cast<int>(8 * sizeof(typename Table::key_type));
  report.value_bits = static_cast<int>(8 * sizeof(typename Table::mapped_type));
  report.point = point;
  for (auto& [op, judgement] : ops) report.ops.push_back({std::move(op), std::move(judgement), {}});
  return report;
}

template <class Table>
point_report run_basic_ops(const sweep_point& point) {
  using backend = typename Table::backend_type;
  using key_type = typename Table::key_type;
  using value_type = typename Table::mapped_type;
  const std::uint64_t n = point.n;
  const typename backend::stream_type stream{};

  Table table = table_for<Table>(point);
  const std::size_t initial_capacity = table.capacity();

  auto keys = backend::template allocate<key_type>(n);
  auto values = backend::template allocate<value_type>(n);
  auto absent = backend::template allocate<key_type>(n);
  auto absent_values = backend::template allocate<value_type>(n);
  auto found = backend::template allocate<value_type>(n);
  auto statuses = backend::template allocate<status>(n);

  point_report report = report_for<Table>(point, {{"insert", judge(table, "insert")},
                                                  {"find_hit", judge(table, "find_hit")},
                                                  {"find_miss", judge(table, "find_miss")},
                                                  {"erase", judge(table, "erase")}});
  step_timer<backend> timer;
  for (int repetition = -point.warmups; repetition < point.repetitions; ++repetition) {
    const key_spec spec = repetition_keys(point, repetition);
    generate_keys<key_type, value_type>(backend{}, spec, 0, n, keys.data(), values.data(), stream);
    generate_keys<key_type, value_type>(backend{}, spec, n, n, absent.data(), absent_values.data(),
                                        stream);
    table.clear(stream);
    backend::synchronize(stream);

    const double insert_ms = timer.time(
        [&] { table.insert_async(keys.data(), values.data(), n, statuses.data(), stream); },
        stream);
    require_all(count_unexpected<key_type, value_type>(
                    backend{}, keys.data(), nullptr, statuses.data(), n, status::inserted, stream),
                n, "insert");
    require_no_growth(table, initial_capacity);
    report.memory_bytes = table.memory_bytes();

    const double hit_ms = timer.time(
        [&] { table.find_async(keys.data(), n, found.data(), statuses.data(), stream); }, stream);
    require_all(count_unexpected<key_type, value_type>(backend{}, keys.data(), found.data(),
                                                       statuses.data(), n, status::found, stream),
                n, "find (present keys)");

    const double miss_ms = timer.time(
        [&] { table.find_async(absent.data(), n, found.data(), statuses.data(), stream); }, stream);
    require_all(
        count_unexpected<key_type, value_type>(backend{}, absent.data(), nullptr, statuses.data(),
                                               n, status::not_found, stream),
        n, "find (absent keys)");

    const double erase_ms =
        timer.time([&] { table.erase_async(keys.data(), n, statuses.data(), stream); }, stream);
    require_all(count_unexpected<key_type, value_type>(backend{}, keys.data(), nullptr,
                                                       statuses.data(), n, status::erased, stream),
                n, "erase");

    keep_timings(report, repetition, {insert_ms, hit_ms, miss_ms, erase_ms});
  }
  report.capacity = table.capacity();
  return report;
}

}  // namespace gpuhash::bench
