#pragma once
// sharded.scaling --capacity (scaling_runs.hpp): one sharded map filled with
// n pairs, more than the GPUs could hold as one batch beside the table, in
// successive spread batches of at most `batch` keys (each part's keys
// generated on its own GPU); then the map's size checked against n, every
// inserted key found in batches of the same size (values checked) and one
// batch of absent keys looked for. The rules of the benchmark skeleton
// (basic_ops.hpp) hold: fresh keys per repetition, the map cleared outside
// the timed region, every result checked after its call's timing, one
// warm-up then the median of >= 5. A repetition's time of an operation is
// the sum of its batches' calls, each timed as sharded.scaling times a
// sharded call (scaling_runs_impl.hpp).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "../basic_ops.hpp"
#include "../timer.hpp"
#include "../workload.hpp"
#include "batch_parts.hpp"
#include "gpuhash/status.hpp"
#include "scaling_report.hpp"

namespace gpuhash::bench {

namespace sharded_scaling {

/// One batch of a capacity run: the keys of generator indices
/// [first, first + count).
struct index_range {
  std::uint64_t first = 0;
  std::uint64_t count = 0;
};

/// The batches that insert n keys, at most `batch` each, in index order:
/// every index of [0, n) in exactly one.
inline std::vector<index_range> capacity_batches(std::uint64_t n, std::uint64_t batch) {
  if (batch == 0) throw std::invalid_argument("--batch: a batch needs at least one key");
  std::vector<index_range> batches;
  for (std::uint64_t first = 0; first < n; first += batch)
    batches.push_back({first, std::min(batch, n - first)});
  return batches;
}

/// The capacity run of `map` at the point (n keys, the map sized for the
/// point's load), in batches of at most `batch` keys spread over its shards.
template <class Map>
scaling_row run_capacity(Map& map, const sweep_point& point, std::uint64_t batch) {
  using backend = typename Map::backend_type;
  using looked_for = typename batch_parts<Map>::looked_for;
  auto& exchange = map.exchange();
  const std::size_t shards = map.shard_count();
  const std::uint64_t n = point.n;
  const std::vector<index_range> batches = capacity_batches(n, batch);
  const std::uint64_t largest = batches.front().count;

  batch_parts<Map> parts(map, part_layout::of(largest, shards, true));
  const auto in_batch = [&](const char* what, const index_range& range) {
    return std::string(what) + " (capacity run, the batch of indices from " +
           std::to_string(range.first) + ")";
  };

  const std::size_t initial_capacity = map.capacity();
  scaling_row row = row_for<typename Map::map_type>(point, "capacity", shards);
  row.batch = largest;
  row.batches = batches.size();
  row.devices.resize(shards);
  exchange.for_each_shard([&](std::size_t g) { row.devices[g] = backend::device_name(); });
  // One batch of absent keys: generator indices from n, which no present key
  // of the point reaches.
  const index_range misses{n, largest};
  row.ops[2].keys = misses.count;

  for (int repetition = -point.warmups; repetition < point.repetitions; ++repetition) {
    const key_spec spec = repetition_keys(point, repetition);
    map.clear();
    synchronize_shards(exchange);

    double insert_ms = 0;
    for (const index_range& range : batches) {
      parts.use(part_layout::of(range.count, shards, true));
      parts.generate(looked_for::present, spec, range.first);
      insert_ms += wall_clock_ms([&] { parts.insert_spread(); });
      require_all(parts.wrong_results(looked_for::present, status::inserted), range.count,
                  in_batch("insert", range).c_str());
    }
    if (map.capacity() != initial_capacity)
      throw std::runtime_error(
          "a shard grew in a capacity run: its share of the keys passed its capacity (lower "
          "--load)");
    const std::size_t size = map.size();
    if (size != n)
      throw std::runtime_error("verification failed: the map holds " + std::to_string(size) +
                               " keys after " + std::to_string(n) + " distinct ones were inserted");

    double hit_ms = 0;
    for (const index_range& range : batches) {
      parts.use(part_layout::of(range.count, shards, true));
      parts.generate(looked_for::present, spec, range.first);
      hit_ms += wall_clock_ms([&] { parts.find_spread(looked_for::present); });
      require_all(parts.wrong_results(looked_for::present, status::found), range.count,
                  in_batch("find of present keys", range).c_str());
    }

    parts.use(part_layout::of(misses.count, shards, true));
    parts.generate(looked_for::absent, spec, misses.first);
    const double miss_ms = wall_clock_ms([&] { parts.find_spread(looked_for::absent); });
    require_all(parts.wrong_results(looked_for::absent, status::not_found), misses.count,
                in_batch("find of absent keys", misses).c_str());
    keep_times(row, repetition, {insert_ms, hit_ms, miss_ms});
  }
  row.capacity = map.capacity();
  row.memory_bytes = map.memory_bytes();
  row.shard_memory_bytes.resize(shards);
  exchange.for_each_shard(
      [&](std::size_t g) { row.shard_memory_bytes[g] = map.shard(g).memory_bytes(); });
  return row;
}

}  // namespace sharded_scaling

}  // namespace gpuhash::bench
