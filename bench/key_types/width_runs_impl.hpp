#pragma once
// The templates behind width_runs.hpp; included by width_runs_cpu.cpp and
// width_runs_cuda.cu only.

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "../basic_ops.hpp"
#include "../report.hpp"
#include "../sweep.hpp"
#include "../workload.hpp"
#include "gpuhash/bucketed_cuckoo_map_impl.hpp"
#include "gpuhash/linear_probing_map_impl.hpp"
#include "width_runs.hpp"

namespace gpuhash::bench {

/// Which bytes of a batch the rates in bytes count: what each operation
/// takes in and hands back per key.
enum class counted_bytes : std::uint8_t {
  /// insert and find-hit: key and value (the pair taken in; the key taken in
  /// and its value handed back); find-miss and erase: the key.
  pair,
  /// insert and find-hit: the value; find-miss and erase move none.
  value,
};

template <class Table>
void count_bytes(point_report& report, counted_bytes counted) {
  constexpr std::uint64_t key_bytes = sizeof(typename Table::key_type);
  constexpr std::uint64_t value_bytes = sizeof(typename Table::mapped_type);
  for (auto& op : report.ops) {
    const bool moves_value = op.op == "insert" || op.op == "find_hit";
    if (counted == counted_bytes::pair) {
      op.bytes_per_key = moves_value ? key_bytes + value_bytes : key_bytes;
      op.bytes_counted = moves_value ? "key+value" : "key";
    } else if (moves_value) {
      op.bytes_per_key = value_bytes;
      op.bytes_counted = "value";
    }
  }
}

/// The runner of both experiments: the basic operations of each of Tables
/// (on Backend) whose value width `selected(bytes)` accepts, at each (n, load)
/// of the sweep, in one readable table.
template <class Backend, class... Tables, class Selected>
void run_width_tables(context& ctx, const sweep_settings& settings, counted_bytes counted,
                      Selected&& selected) {
  sweep_point base = repetitions_from(ctx);
  base.keys.kind = distinct_distribution(ctx, settings.experiment);
  rate_table table(ctx, settings.experiment, std::string(Backend::name));
  const auto measure = [&]<class Table>() {
    if (!selected(sizeof(typename Table::mapped_type))) return;
    for_each_point<Table>(ctx, settings, base, [&](const sweep_point& point) {
      point_report report = run_basic_ops<Table>(point);
      count_bytes<Table>(report, counted);
      record(ctx, settings.experiment, table, report);
    });
  };
  (measure.template operator()<Tables>(), ...);
}

template <class Backend>
void run_key_widths(context& ctx) {
  sweep_settings settings{
      "key_types.width", {std::uint64_t{1} << 22}, {std::uint64_t{1} << 25}, {0.5, 0.9}};
  settings.widths = {"32", "64", "128"};
  run_width_tables<Backend, linear_probing_map<std::uint32_t, std::uint32_t, Backend>,
                   linear_probing_map<std::uint64_t, std::uint64_t, Backend>,
                   linear_probing_map<word128, word128, Backend>,
                   linear_probing_map<std::uint64_t, wide_value<32>, Backend>,
                   linear_probing_map<std::uint64_t, wide_value<128>, Backend>,
                   bucketed_cuckoo_map<std::uint32_t, std::uint32_t, Backend>,
                   bucketed_cuckoo_map<std::uint64_t, std::uint64_t, Backend>,
                   bucketed_cuckoo_map<word128, word128, Backend>>(
      ctx, settings, counted_bytes::pair, [](std::size_t) { return true; });
}

template <class Backend>
void run_value_widths(context& ctx) {
  sweep_settings settings{
      "key_types.value_width", {std::uint64_t{1} << 22}, {std::uint64_t{1} << 25}, {0.5, 0.9}};
  settings.widths = {"64"};
  const std::vector<std::uint64_t> all{4, 8, 16, 32, 64, 128};
  const std::vector<std::uint64_t> widths = ctx.arguments().sizes("value-bytes", all);
  for (const std::uint64_t bytes : widths)
    if (std::find(all.begin(), all.end(), bytes) == all.end())
      throw std::invalid_argument("--value-bytes: " + std::to_string(bytes) +
                                  " is not one of 4, 8, 16, 32, 64, 128");
  run_width_tables<Backend, linear_probing_map<std::uint64_t, std::uint32_t, Backend>,
                   linear_probing_map<std::uint64_t, std::uint64_t, Backend>,
                   linear_probing_map<std::uint64_t, word128, Backend>,
                   linear_probing_map<std::uint64_t, wide_value<32>, Backend>,
                   linear_probing_map<std::uint64_t, wide_value<64>, Backend>,
                   linear_probing_map<std::uint64_t, wide_value<128>, Backend>>(
      ctx, settings, counted_bytes::value, [&](std::size_t bytes) {
        return std::find(widths.begin(), widths.end(), bytes) != widths.end();
      });
}

}  // namespace gpuhash::bench
