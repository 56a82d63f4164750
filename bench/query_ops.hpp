#pragma once
// Skeletons that time searches and upserts against a table filled to the
// point's load, on the rules of basic_ops.hpp: fresh keys per repetition, the
// table cleared and filled outside the timed region, one warm-up then the
// median of >= 5 timed repetitions, every result checked after timing.
//  * run_hit_ratio: n searches of which a fraction hit_ratio look for stored
//    keys (workload.hpp's query_mix);
//  * run_zipf_queries: n searches, then n upserts, of keys drawn from a Zipf
//    distribution over the n stored keys. Each upsert writes a value of its
//    own (workload.hpp's value_tags), so the writes to a hot key contend as
//    they would in use, and each key must end with one of its upserts' values.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "access_profile.hpp"
#include "basic_ops.hpp"
#include "gpuhash/status.hpp"
#include "timer.hpp"
#include "workload.hpp"

namespace gpuhash::bench {

/// Clears the table and inserts keys [0, n) of `spec` (outside the timed
/// region, checked), leaving them and their values in `keys` and `values`.
template <class Table>
void fill_table(Table& table, const key_spec& spec, std::uint64_t n, typename Table::key_type* keys,
                typename Table::mapped_type* values, status* statuses,
                typename Table::stream_type stream) {
  using backend = typename Table::backend_type;
  using key_type = typename Table::key_type;
  using value_type = typename Table::mapped_type;
  generate_keys<key_type, value_type>(backend{}, spec, 0, n, keys, values, stream);
  table.clear(stream);
  table.insert_async(keys, values, n, statuses, stream);
  require_results<backend, key_type, value_type>(keys, nullptr, statuses, n, status::inserted,
                                                 stream, "insert (filling the table)");
}

template <class Table>
point_report run_hit_ratio(const sweep_point& point, double hit_ratio) {
  using backend = typename Table::backend_type;
  using key_type = typename Table::key_type;
  using value_type = typename Table::mapped_type;
  const std::uint64_t n = point.n;
  const typename backend::stream_type stream{};

  Table table = table_for<Table>(point);
  const std::size_t initial_capacity = table.capacity();
  auto keys = backend::template allocate<key_type>(n);
  auto values = backend::template allocate<value_type>(n);
  auto queries = backend::template allocate<key_type>(n);
  auto found = backend::template allocate<value_type>(n);
  auto statuses = backend::template allocate<status>(n);

  point_report report = report_for<Table>(
      point, {{"find", judge_mix(table, {{"find_hit", hit_ratio}, {"find_miss", 1 - hit_ratio}})}});
  report.parameters = {{"hit_ratio", hit_ratio}};
  step_timer<backend> timer;
  for (int repetition = -point.warmups; repetition < point.repetitions; ++repetition) {
    const key_spec spec = repetition_keys(point, repetition);
    fill_table(table, spec, n, keys.data(), values.data(), statuses.data(), stream);
    require_no_growth(table, initial_capacity);
    const query_mix mix{spec, n, hit_ratio};
    generate_queries<key_type, value_type>(backend{}, mix, n, queries.data(), stream);
    backend::synchronize(stream);

    const double find_ms = timer.time(
        [&] { table.find_async(queries.data(), n, found.data(), statuses.data(), stream); },
        stream);
    require_all(count_wrong_answers<key_type, value_type>(backend{}, mix, queries.data(),
                                                          found.data(), statuses.data(), n, stream),
                n, "find (mixed hits and misses)");
    if (repetition >= 0) report.ops[0].ms.push_back(find_ms);
  }
  report.capacity = table.capacity();
  report.memory_bytes = table.memory_bytes();
  report.touched_bytes = touched_bytes(table, stream);
  return report;
}

/// point.keys gives the Zipf exponent; the universe is the n stored keys.
template <class Table>
point_report run_zipf_queries(const sweep_point& point) {
  using backend = typename Table::backend_type;
  using key_type = typename Table::key_type;
  using value_type = typename Table::mapped_type;
  const std::uint64_t n = point.n;
  const typename backend::stream_type stream{};

  Table table = table_for<Table>(point);
  const std::size_t initial_capacity = table.capacity();
  // basic_map grows before a batch that could take the occupancy past
  // max_load_factor (1 here) x capacity, counting every upsert as a possible
  // insert: batches of at most capacity - n upserts leave the table as it is.
  if (initial_capacity <= n)
    throw std::invalid_argument("upserts need room in the table: use a load below 1");
  const std::uint64_t upsert_batch = std::min<std::uint64_t>(n, initial_capacity - n);

  auto keys = backend::template allocate<key_type>(n);
  auto values = backend::template allocate<value_type>(n);
  auto queries = backend::template allocate<key_type>(n);
  auto query_values = backend::template allocate<value_type>(n);
  auto found = backend::template allocate<value_type>(n);
  auto statuses = backend::template allocate<status>(n);

  sweep_point zipf_point = point;
  zipf_point.keys.kind = distribution::zipf;
  zipf_point.keys.universe = n;
  char exponent[24];
  std::snprintf(exponent, sizeof exponent, "%g", point.keys.zipf_exponent);
  const std::string hot_keys =
      std::string("Zipf keys repeat (exponent ") + exponent + "): the hot keys' sectors stay in L2";
  point_report report = report_for<Table>(
      zipf_point,
      {{"find", judge(table, "find_hit", hot_keys)}, {"upsert", judge(table, "upsert", hot_keys)}});
  report.parameters = {{"zipf_exponent", point.keys.zipf_exponent},
                       {"upsert_batch", static_cast<double>(upsert_batch)}};
  step_timer<backend> timer;
  for (int repetition = -point.warmups; repetition < point.repetitions; ++repetition) {
    // Zipf rank r maps to the key that index r - 1 of the uniform
    // distribution with the same seed gives (workload.hpp): a stored key.
    const key_spec queried = repetition_keys(zipf_point, repetition);
    key_spec stored = queried;
    stored.kind = distribution::uniform;
    fill_table(table, stored, n, keys.data(), values.data(), statuses.data(), stream);
    require_no_growth(table, initial_capacity);
    generate_keys<key_type, value_type>(backend{}, queried, 0, n, queries.data(),
                                        query_values.data(), stream);
    generate_tagged_values<key_type, value_type>(backend{}, queries.data(), n, query_values.data(),
                                                 stream);
    backend::synchronize(stream);

    const double find_ms = timer.time(
        [&] { table.find_async(queries.data(), n, found.data(), statuses.data(), stream); },
        stream);
    require_all(count_unexpected<key_type, value_type>(backend{}, queries.data(), found.data(),
                                                       statuses.data(), n, status::found, stream),
                n, "find (Zipf keys)");

    const double upsert_ms = timer.time(
        [&] {
          for (std::uint64_t first = 0; first < n; first += upsert_batch)
            table.insert_or_assign_async(queries.data() + first, query_values.data() + first,
                                         std::min(upsert_batch, n - first), statuses.data() + first,
                                         stream);
        },
        stream);
    require_all(count_unexpected<key_type, value_type>(backend{}, queries.data(), nullptr,
                                                       statuses.data(), n, status::updated, stream),
                n, "upsert (Zipf keys)");
    require_no_growth(table, initial_capacity);
    // Each key now holds the value of one of its upserts.
    table.find_async(queries.data(), n, found.data(), statuses.data(), stream);
    require_all(count_untagged<key_type, value_type>(backend{}, queries.data(), n, queries.data(),
                                                     found.data(), statuses.data(), n, stream),
                n, "find after the upserts");

    if (repetition < 0) continue;
    report.ops[0].ms.push_back(find_ms);
    report.ops[1].ms.push_back(upsert_ms);
  }
  report.capacity = table.capacity();
  report.memory_bytes = table.memory_bytes();
  report.touched_bytes = touched_bytes(table, stream);
  return report;
}

}  // namespace gpuhash::bench
