#pragma once
// The measurements of sharded.scaling (scaling_runs.hpp) and how they are
// shown: one JSON line and one line of the printed table per operation,
// each sharded rate compared with the rate of one table of the design and
// of the one-shard map at the same point, and with the rate its
// all-to-all allows (all_to_all_limit.hpp); a capacity run's rows
// (capacity_run.hpp) in a table of their own.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../basic_ops.hpp"
#include "../experiment.hpp"
#include "../json.hpp"
#include "../workload.hpp"
#include "all_to_all_limit.hpp"

namespace gpuhash::bench {

/// One operation of a row: insert, find_hit or find_miss over the row's n
/// keys (a capacity run's find_miss: over `keys`).
struct scaling_op {
  std::string name;
  std::vector<double> ms;  ///< the timed repetitions (host wall clock)
  /// What moving its batch's bytes takes on the row's shards (sharded rows).
  std::optional<all_to_all_limit> exchange;
  std::uint64_t keys = 0;  ///< keys per repetition where not the row's n
};

/// One point: a table of the design (inputs "table": no sharding), or a
/// sharded map of `shards` shards fed from shard 0 ("one") or one part on
/// each shard ("spread"). A capacity run (`batch` not 0) is a sharded map
/// filled with n keys in spread batches of at most `batch` keys; each
/// repetition's time of an operation is the sum of its batches' calls.
struct scaling_row {
  std::string design;
  std::string backend;
  std::vector<std::string> devices;  ///< the device of each shard (of the table: one)
  int key_bits = 0;
  int value_bits = 0;
  std::uint64_t n = 0;
  double load_factor = 0;
  std::string distribution;
  std::size_t shards = 1;
  std::string inputs;
  std::size_t capacity = 0;
  std::size_t memory_bytes = 0;  ///< the tables' of every shard together
  std::vector<scaling_op> ops;
  std::uint64_t batch = 0;    ///< a capacity run's keys per batch, all parts together
  std::uint64_t batches = 0;  ///< a capacity run's batches (the last may be smaller)
  std::vector<std::uint64_t> shard_memory_bytes;  ///< a capacity run's table on each shard
};

/// The targets (#35) for bucketed cuckoo shards at load 0.8:
/// inputs spread, G shards reach 0.8 x G x one table's rate; inputs on one
/// GPU, 70% of the rate their all-to-all allows. Judged where G >= 2.
inline constexpr double spread_target_per_shard = 0.8;
inline constexpr double one_gpu_target_of_all_to_all = 0.7;

/// A row of Table's design at the point, its operations not yet timed.
template <class Table>
scaling_row row_for(const sweep_point& point, std::string inputs, std::size_t shards) {
  scaling_row row;
  row.design = std::string(Table::design_name);
  row.backend = std::string(Table::backend_type::name);
  row.key_bits = static_cast<int>(8 * sizeof(typename Table::key_type));
  row.value_bits = static_cast<int>(8 * sizeof(typename Table::mapped_type));
  row.n = point.n;
  row.load_factor = point.load_factor;
  row.distribution = to_string(point.keys.kind);
  row.shards = shards;
  row.inputs = std::move(inputs);
  row.ops = {{"insert", {}, {}}, {"find_hit", {}, {}}, {"find_miss", {}, {}}};
  return row;
}

/// Adds one repetition's times (insert, find_hit, find_miss); a warm-up's
/// (repetition < 0) are dropped.
inline void keep_times(scaling_row& row, int repetition, std::initializer_list<double> ms) {
  if (repetition < 0) return;
  std::size_t op = 0;
  for (const double t : ms) row.ops.at(op++).ms.push_back(t);
}

class scaling_report {
 public:
  scaling_report(context& ctx, std::string backend);

  /// Records a row: its JSON lines and its lines of the table. A sharded
  /// row is compared with the table row and the one-shard row of the same
  /// point (design, widths, n, load) recorded before it, where there are.
  void add(const scaling_row& row);
  /// Records a capacity run's row: its JSON lines and its lines of a table
  /// of its own (no other row is measured beside it).
  void add_capacity(const scaling_row& row);
  /// A point that was not measured, and why (printed with the table).
  void skipped(const std::string& what, const std::string& why);

 private:
  /// Median rates (G ops/s) by operation, of the table or the one-shard map.
  using rates = std::map<std::string, double>;
  static std::string point_of(const scaling_row& row);
  void print_header(const scaling_row& row);
  void print_capacity_header(const scaling_row& row);
  /// The JSON fields of the row's point, its map and its operation `op`.
  json_line json_of(const scaling_row& row, const scaling_op& op, double rate) const;

  context& ctx_;
  std::string backend_;
  bool header_printed_ = false;
  bool capacity_header_printed_ = false;
  std::map<std::string, rates> one_table_;
  std::map<std::string, rates> one_shard_;
};

}  // namespace gpuhash::bench
