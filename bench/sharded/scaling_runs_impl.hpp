#pragma once
// The templates behind scaling_runs.hpp; included by scaling_runs_cpu.cpp
// and scaling_runs_nccl.cpp only.
//
// Timing. A sharded call is synchronous: it returns when every part's
// results are written, and its work is spread over every shard's device
// and the host (the counts meet on the host between the partition and the
// exchange, and the host waits between steps). CUDA events on one GPU's
// stream would see that GPU's work only, and events of two GPUs cannot be
// subtracted (cudaEventElapsedTime takes two events of one device), so each
// call is timed by the host's steady clock, from a moment when every
// shard's stream is idle to the call's return: the time its caller waits.
// The one table it is compared with is timed the same way around its own
// synchronous call, whose host part (a counter read back after an insert)
// is microseconds against the milliseconds of a batch.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "../basic_ops.hpp"
#include "../report.hpp"
#include "../sweep.hpp"
#include "../tables.hpp"
#include "../timer.hpp"
#include "../workload.hpp"
#include "all_to_all_limit.hpp"
#include "batch_parts.hpp"
#include "capacity_run.hpp"
#include "gpuhash/errors.hpp"
#include "gpuhash/sharded_map.hpp"
#include "gpuhash/status.hpp"
#include "scaling_report.hpp"
#include "scaling_runs.hpp"

namespace gpuhash::bench {

namespace sharded_scaling {

/// Where a batch's keys are: all on shard 0 (one GPU), or one part on each
/// shard, each part in its shard's memory.
enum class input_form : std::uint8_t { one, spread };

inline const char* name_of(input_form form) {
  return form == input_form::one ? "one" : "spread";
}

struct scaling_options {
  std::vector<std::size_t> shard_counts;  ///< --gpus that fit here, increasing
  std::vector<input_form> forms;          ///< --inputs
  /// --capacity: the keys of one batch (--batch) of the capacity run
  /// (capacity_run.hpp), which replaces the rows of the comparison; 0
  /// without --capacity.
  std::uint64_t capacity_batch = 0;
};

/// How many shards an exchange can have in this process: a GPU each for
/// nccl_exchange; host threads, any number, for host_exchange.
template <class Exchange>
std::size_t shards_available() {
  if constexpr (requires { Exchange::device_count(); })
    return Exchange::device_count();
  else
    return std::numeric_limits<std::size_t>::max();
}

/// --gpus (default 1,2,4), and --inputs (default one,spread) or --capacity
/// with --batch (default 2^28 keys on the GPUs, 2^16 on the CPU). A G
/// larger than the devices present is skipped, with a line saying so.
inline scaling_options options_from(const context& ctx, std::size_t available, bool host_backend,
                                    scaling_report& report) {
  scaling_options options;
  std::vector<std::uint64_t> wanted = ctx.arguments().sizes("gpus", {1, 2, 4});
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  for (const std::uint64_t shards : wanted) {
    if (shards == 0) throw std::invalid_argument("--gpus: a map needs at least one shard");
    if (shards > available)
      report.skipped("G=" + std::to_string(shards),
                     "this process sees " + std::to_string(available) + " GPUs");
    else
      options.shard_counts.push_back(static_cast<std::size_t>(shards));
  }
  if (options.shard_counts.empty())
    throw std::invalid_argument("--gpus: no count fits the " + std::to_string(available) +
                                " GPUs this process sees");
  if (ctx.arguments().flag("capacity")) {
    options.capacity_batch =
        ctx.arguments().size("batch", std::uint64_t{1} << (host_backend ? 16 : 28));
    if (options.capacity_batch == 0)
      throw std::invalid_argument("--batch: a batch needs at least one key");
    return options;
  }
  for (const auto& name : ctx.arguments().list("inputs", {"one", "spread"})) {
    if (name == "one")
      options.forms.push_back(input_form::one);
    else if (name == "spread")
      options.forms.push_back(input_form::spread);
    else
      throw std::invalid_argument("--inputs: '" + name +
                                  "' is neither one (all keys on GPU 0) nor spread (a part on "
                                  "each GPU)");
  }
  return options;
}

/// Each point draws n present and n absent distinct keys (generator indices
/// [0, 2n)), a capacity run n present keys and one batch of absent ones:
/// with 32-bit keys, at most 2^32 - 17 in all (the keys not reserved).
/// Checked before anything is measured.
inline void check_key_space(const context& ctx, const sweep_settings& settings, bool host_backend,
                            std::uint64_t capacity_batch) {
  if (!ctx.selected_width(32, settings.widths)) return;
  const std::uint64_t distinct = key_permutation<std::uint32_t>::largest_allowed();
  for (const std::uint64_t n :
       ctx.arguments().sizes("n", host_backend ? settings.cpu_sizes : settings.gpu_sizes)) {
    const std::uint64_t absent = capacity_batch == 0 ? n : std::min(n, capacity_batch);
    if (n + absent > distinct)
      throw std::invalid_argument(
          "--n=" + std::to_string(n) + " with 32-bit keys: a point draws n present and " +
          std::to_string(absent) + " absent distinct keys, and 32-bit keys have " +
          std::to_string(distinct) + " that are not reserved; use a smaller n or --key-bits=64");
  }
}

/// One table of the design on the backend's first device, each synchronous
/// call timed as the sharded map's are: the rate G shards are compared with.
template <class Table>
scaling_row run_one_table(const sweep_point& point) {
  using backend = typename Table::backend_type;
  Table table = table_for<Table>(point);
  const std::size_t initial_capacity = table.capacity();
  basic_batch<Table> batch(point.n);
  scaling_row row = row_for<Table>(point, "table", 1);
  row.devices = {backend::device_name()};
  synchronous_calls calls;
  for (int repetition = -point.warmups; repetition < point.repetitions; ++repetition) {
    const insert_find_times times = time_insert_and_finds(
        table, batch, repetition_keys(point, repetition), initial_capacity, calls, " (one table)");
    keep_times(row, repetition, {times.insert_ms, times.hit_ms, times.miss_ms});
  }
  row.capacity = table.capacity();
  row.memory_bytes = table.memory_bytes();
  return row;
}

/// The sharded map fed in one input form: the map's operations timed, then
/// the all-to-all of each operation's bytes on the map's own exchange.
template <class Map>
scaling_row run_sharded(Map& map, const sweep_point& point, input_form form) {
  using backend = typename Map::backend_type;
  using key_type = typename Map::key_type;
  using value_type = typename Map::mapped_type;
  auto& exchange = map.exchange();
  const std::size_t shards = map.shard_count();
  const std::uint64_t n = point.n;

  // One: all n keys on shard 0. Spread: part g is the g-th G-th of them.
  const part_layout layout = part_layout::of(n, shards, form == input_form::spread);
  batch_parts<Map> parts(map, layout);
  using looked_for = typename batch_parts<Map>::looked_for;

  // The one-GPU form calls the map's one-shard API, as a caller holding a
  // batch on GPU 0 would.
  const auto insert = [&] {
    if (form == input_form::one)
      map.insert(parts.keys(0), parts.values(0), n, parts.statuses(0), 0);
    else
      parts.insert_spread();
  };
  const auto find = [&](looked_for which) {
    if (form == input_form::one)
      map.find(which == looked_for::present ? parts.keys(0) : parts.absent(0), n, parts.found(0),
               parts.statuses(0), 0);
    else
      parts.find_spread(which);
  };

  const std::size_t initial_capacity = map.capacity();
  scaling_row row = row_for<typename Map::map_type>(point, name_of(form), shards);
  row.devices.resize(shards);
  exchange.for_each_shard([&](std::size_t g) { row.devices[g] = backend::device_name(); });
  for (int repetition = -point.warmups; repetition < point.repetitions; ++repetition) {
    const key_spec spec = repetition_keys(point, repetition);
    parts.generate(looked_for::present, spec, 0);
    parts.generate(looked_for::absent, spec, n);
    map.clear();
    synchronize_shards(exchange);

    const double insert_ms = wall_clock_ms(insert);
    require_all(parts.wrong_results(looked_for::present, status::inserted), n, "insert (sharded)");
    if (map.capacity() != initial_capacity)
      throw std::runtime_error(
          "a shard grew while being timed: its share of the keys passed its capacity (lower "
          "--load)");
    const double hit_ms = wall_clock_ms([&] { find(looked_for::present); });
    require_all(parts.wrong_results(looked_for::present, status::found), n,
                "find of present keys (sharded)");
    const double miss_ms = wall_clock_ms([&] { find(looked_for::absent); });
    require_all(parts.wrong_results(looked_for::absent, status::not_found), n,
                "find of absent keys (sharded)");
    keep_times(row, repetition, {insert_ms, hit_ms, miss_ms});
  }
  row.capacity = map.capacity();
  row.memory_bytes = map.memory_bytes();
  parts.release();  // room for the all-to-all's buffers

  const exchange_plan there = even_plan(layout.counts);
  const auto inserts = insert_transfers<key_type, value_type>();
  const auto finds = find_transfers<key_type, value_type>();
  row.ops[0].exchange =
      measure_all_to_all(exchange, there, std::span<const exchange_transfer>(inserts),
                         point.warmups, point.repetitions);
  // find_hit and find_miss move the same bytes: every value comes back.
  row.ops[1].exchange = row.ops[2].exchange = measure_all_to_all(
      exchange, there, std::span<const exchange_transfer>(finds), point.warmups, point.repetitions);
  return row;
}

/// body(), or a line saying why not where memory ran out: the largest
/// points fit some forms and shard counts and not others.
template <class Body>
void unless_out_of_memory(scaling_report& report, const std::string& what, Body&& body) {
  try {
    body();
  } catch (const out_of_memory& e) {
    report.skipped(what, e.what());
  } catch (const std::bad_alloc& e) {
    report.skipped(what, std::string("out of memory (") + e.what() + ")");
  }
}

/// One table of the design, then a sharded map over each shard count, fed
/// in each input form (at G = 1 both forms are one batch on shard 0: it
/// runs once, as "one"). With --capacity, a capacity run over each shard
/// count instead.
template <class Exchange, class Table>
void measure_point(scaling_report& report, const scaling_options& options,
                   const sweep_point& point) {
  char load[16];
  std::snprintf(load, sizeof load, "%.2f", point.load_factor);
  const std::string at = std::string(Table::design_name) + " " +
                         std::to_string(8 * sizeof(typename Table::key_type)) +
                         "-bit n=" + size_text(point.n) + " load=" + load;
  if (options.capacity_batch != 0) {
    for (const std::size_t shards : options.shard_counts)
      unless_out_of_memory(report, at + ", G=" + std::to_string(shards) + ", capacity run", [&] {
        sharded_map<Table, Exchange> map(shards, options_for(point));
        report.add_capacity(run_capacity(map, point, options.capacity_batch));
      });
    return;
  }
  unless_out_of_memory(report, at + ", one table",
                       [&] { report.add(run_one_table<Table>(point)); });
  for (const std::size_t shards : options.shard_counts) {
    const std::string over = at + ", G=" + std::to_string(shards);
    const std::vector<input_form> forms =
        shards == 1 ? std::vector<input_form>{input_form::one} : options.forms;
    unless_out_of_memory(report, over, [&] {
      sharded_map<Table, Exchange> map(shards, options_for(point));
      for (const input_form form : forms)
        unless_out_of_memory(report, over + ", inputs " + name_of(form),
                             [&] { report.add(run_sharded(map, point, form)); });
    });
  }
}

}  // namespace sharded_scaling

template <class Exchange>
void run_sharded_scaling(context& ctx) {
  using namespace sharded_scaling;
  using backend = typename Exchange::backend_type;
  const sweep_settings settings{"sharded.scaling",
                                {std::uint64_t{1} << 20},
                                {std::uint64_t{1} << 26, std::uint64_t{1} << 28},
                                {0.8},
                                {"bucketed_cuckoo"},
                                {"32", "64"}};
  sweep_point base = repetitions_from(ctx);
  base.keys.kind = distinct_distribution(ctx, settings.experiment);
  scaling_report report(ctx, std::string(backend::name));
  const scaling_options options =
      options_from(ctx, shards_available<Exchange>(), backend::host_accessible, report);
  check_key_space(ctx, settings, backend::host_accessible, options.capacity_batch);
  for_each_design<backend>([&]<class Table>() {
    for_each_point<Table>(ctx, settings, base, [&](const sweep_point& point) {
      measure_point<Exchange, Table>(report, options, point);
    });
  });
}

}  // namespace gpuhash::bench
