#pragma once
// The measurements of sharded.scaling (scaling_runs.hpp) and how they are
// shown: one JSON line and one line of the printed table per operation,
// each sharded rate compared with the rate of one table of the design and
// of the one-shard map at the same point, and with the rate its
// all-to-all allows (all_to_all_limit.hpp).

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "../experiment.hpp"
#include "all_to_all_limit.hpp"

namespace gpuhash::bench {

/// One operation of a row: insert, find_hit or find_miss over the row's n keys.
struct scaling_op {
  std::string name;
  std::vector<double> ms;  ///< the timed repetitions (host wall clock)
  /// What moving its batch's bytes takes on the row's shards (sharded rows).
  std::optional<all_to_all_limit> exchange;
};

/// One point: a table of the design (inputs "table": no sharding), or a
/// sharded map of `shards` shards fed from shard 0 ("one") or one part on
/// each shard ("spread").
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
  std::size_t memory_bytes = 0;
  std::vector<scaling_op> ops;
};

/// The targets (#35) for bucketed cuckoo shards at load 0.8:
/// inputs spread, G shards reach 0.8 x G x one table's rate; inputs on one
/// GPU, 70% of the rate their all-to-all allows. Judged where G >= 2.
inline constexpr double spread_target_per_shard = 0.8;
inline constexpr double one_gpu_target_of_all_to_all = 0.7;

class scaling_report {
 public:
  scaling_report(context& ctx, std::string backend);

  /// Records a row: its JSON lines and its lines of the table. A sharded
  /// row is compared with the table row and the one-shard row of the same
  /// point (design, widths, n, load) recorded before it, where there are.
  void add(const scaling_row& row);
  /// A point that was not measured, and why (printed with the table).
  void skipped(const std::string& what, const std::string& why);

 private:
  /// Median rates (G ops/s) by operation, of the table or the one-shard map.
  using rates = std::map<std::string, double>;
  static std::string point_of(const scaling_row& row);
  void print_header(const scaling_row& row);

  context& ctx_;
  std::string backend_;
  bool header_printed_ = false;
  std::map<std::string, rates> one_table_;
  std::map<std::string, rates> one_shard_;
};

}  // namespace gpuhash::bench
