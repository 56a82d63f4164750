#include "scaling_report.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "../json.hpp"
#include "../report.hpp"
#include "../timer.hpp"

namespace gpuhash::bench {

namespace {

std::string joined(const std::vector<std::string>& words) {
  std::string text;
  for (const auto& word : words) text += (text.empty() ? "" : ", ") + word;
  return text;
}

/// A number of the table, or "-" where there is none.
std::string cell(std::optional<double> value, const char* format) {
  char text[32] = "-";
  if (value) std::snprintf(text, sizeof text, format, *value);
  return text;
}
/// A rate: three digits, and no exponent for the thousands of M ops/s.
std::string rate_cell(double rate) {
  return cell(rate, rate >= 1000 ? "%.0f" : "%.3g");
}

double rate_gops(std::uint64_t n, double ms) {
  return static_cast<double>(n) / (ms * 1e6);
}

/// The target a row is judged by, if any: as JSON names it, as the table
/// does, and whether it was met.
struct verdict {
  std::string target;
  std::string label;
  bool met = false;
};

}  // namespace

scaling_report::scaling_report(context& ctx, std::string backend)
    : ctx_(ctx), backend_(std::move(backend)) {}

std::string scaling_report::point_of(const scaling_row& row) {
  return row.design + "/" + std::to_string(row.key_bits) + "/" + std::to_string(row.value_bits) +
         "/" + std::to_string(row.n) + "/" + std::to_string(row.load_factor);
}

void scaling_report::print_header(const scaling_row& row) {
  const bool gpu = backend_ == "cuda";
  const char* table_on = gpu ? "GPU 0" : "the shared thread pool";
  const char* shard = gpu ? "GPU" : "shard";
  std::printf(
      "\nsharded.scaling on %s (%s): rates in %s, host wall clock around each synchronous call, "
      "median of %zu\n"
      "  inputs: table = one table of the design on %s; one = all keys on %s; spread = a part "
      "on each %s\n"
      "  x table: over that table's rate at the same n and load; x G=1: over the map of one "
      "shard; per shard: x table / G\n"
      "  a2a: the exchange moving the batch's bytes alone: GB/s between shards, the rate it "
      "allows, the share of it reached\n",
      backend_.c_str(), row.devices.front().c_str(), gpu ? "G ops/s" : "M ops/s",
      row.ops.front().ms.size(), table_on, gpu ? "GPU 0" : "shard 0", shard);
  std::printf("%-24s %-6s %-5s %-5s %-2s %-7s %-10s %9s %8s %6s %9s %9s %9s %7s  %s\n", "design",
              "bits", "n", "load", "G", "inputs", "op", "rate", "x table", "x G=1", "per shard",
              "a2a GB/s", "a2a rate", "of a2a", "target");
  header_printed_ = true;
}

void scaling_report::add(const scaling_row& row) {
  if (!header_printed_) print_header(row);
  const std::string point = point_of(row);
  const bool is_table = row.inputs == "table";
  const auto table_rates = one_table_.find(point);
  const auto shard_rates = one_shard_.find(point);
  const double scale = backend_ == "cuda" ? 1.0 : 1000.0;  // CPU rates in M ops/s

  rates measured;
  for (const scaling_op& op : row.ops) {
    const double median_ms = median(op.ms);
    const double rate = rate_gops(row.n, median_ms);
    measured[op.name] = rate;
    std::optional<double> over_table;
    std::optional<double> over_one_shard;
    if (!is_table && table_rates != one_table_.end())
      over_table = rate / table_rates->second.at(op.name);
    if (!is_table && shard_rates != one_shard_.end())
      over_one_shard = rate / shard_rates->second.at(op.name);
    std::optional<double> of_all_to_all;
    if (op.exchange) of_all_to_all = rate / op.exchange->rate_gops(row.n);

    std::optional<verdict> judged;
    if (row.shards >= 2 && row.inputs == "spread" && over_table) {
      const double per_shard = *over_table / static_cast<double>(row.shards);
      judged = verdict{">= 0.8 x G x table rate", "0.8 G", per_shard >= spread_target_per_shard};
    } else if (row.shards >= 2 && row.inputs == "one" && of_all_to_all) {
      judged = verdict{">= 0.7 x all-to-all rate", "70% a2a",
                       *of_all_to_all >= one_gpu_target_of_all_to_all};
    }

    json_line line = json_of(row, op, rate);
    if (over_table)
      line.add("table_rate_gops", table_rates->second.at(op.name))
          .add("ratio_to_table", *over_table)
          .add("ratio_to_table_per_shard", *over_table / static_cast<double>(row.shards));
    if (over_one_shard)
      line.add("one_shard_rate_gops", shard_rates->second.at(op.name))
          .add("ratio_to_one_shard", *over_one_shard);
    if (op.exchange)
      line.add("all_to_all_ms", op.exchange->median_ms)
          .add("all_to_all_bytes", op.exchange->bytes)
          .add("all_to_all_bytes_between", op.exchange->bytes_between)
          .add("all_to_all_bytes_between_per_s", op.exchange->bytes_between_per_s())
          .add("all_to_all_rate_gops", op.exchange->rate_gops(row.n))
          .add("fraction_of_all_to_all", *of_all_to_all);
    if (judged) line.add("target", judged->target).add("target_met", judged->met);
    line.add("verified", true);
    ctx_.emit(line.str());

    std::optional<double> per_shard;
    if (over_table) per_shard = *over_table / static_cast<double>(row.shards);
    std::optional<double> exchange_gbps;
    std::optional<double> exchange_rate;
    if (op.exchange) {
      exchange_gbps = op.exchange->bytes_between_per_s() * 1e-9;
      exchange_rate = scale * op.exchange->rate_gops(row.n);
    }
    std::optional<double> of_all_to_all_percent;
    if (of_all_to_all) of_all_to_all_percent = 100 * *of_all_to_all;
    const std::string target = judged ? judged->label + (judged->met ? " met" : " missed") : "";
    std::printf("%-24s %-6s %-5s %-5.2f %-2zu %-7s %-10s %9s %8s %6s %9s %9s %9s %7s  %s\n",
                row.design.c_str(),
                (std::to_string(row.key_bits) + "/" + std::to_string(row.value_bits)).c_str(),
                size_text(row.n).c_str(), row.load_factor, row.shards, row.inputs.c_str(),
                op.name.c_str(), rate_cell(scale * rate).c_str(), cell(over_table, "%.2f").c_str(),
                cell(over_one_shard, "%.2f").c_str(), cell(per_shard, "%.2f").c_str(),
                cell(exchange_gbps, "%.1f").c_str(),
                exchange_rate ? rate_cell(*exchange_rate).c_str() : "-",
                cell(of_all_to_all_percent, "%.0f%%").c_str(), target.c_str());
  }
  std::fflush(stdout);
  if (is_table) one_table_[point] = std::move(measured);
  if (!is_table && row.shards == 1) one_shard_[point] = std::move(measured);
}

json_line scaling_report::json_of(const scaling_row& row, const scaling_op& op, double rate) const {
  json_line line;
  line.add("experiment", "sharded.scaling")
      .add("design", row.design)
      .add("backend", row.backend)
      .add("device", row.devices.front())
      .add("devices", joined(row.devices))
      .add("shards", static_cast<std::uint64_t>(row.shards));
  if (row.backend == "cuda") line.add("gpus", static_cast<std::uint64_t>(row.shards));
  line.add("inputs", row.inputs)
      .add("commit", ctx_.commit())
      .add("key_bits", row.key_bits)
      .add("value_bits", row.value_bits)
      .add("n", row.n)
      .add("load_factor", row.load_factor)
      .add("distribution", row.distribution)
      .add("capacity", static_cast<std::uint64_t>(row.capacity))
      .add("memory_bytes", static_cast<std::uint64_t>(row.memory_bytes))
      .add("op", op.name)
      .add("timing", row.batch == 0 ? "host wall clock around the synchronous call"
                                    : "host wall clock around each batch's synchronous call, "
                                      "summed over the batches")
      .add("repetitions", static_cast<int>(op.ms.size()))
      .add("median_ms", median(op.ms))
      .add("min_ms", *std::min_element(op.ms.begin(), op.ms.end()))
      .add("max_ms", *std::max_element(op.ms.begin(), op.ms.end()))
      .add("rate_gops", rate);
  return line;
}

void scaling_report::print_capacity_header(const scaling_row& row) {
  const bool gpu = backend_ == "cuda";
  std::printf(
      "\nsharded.scaling --capacity on %s (%s): one map filled with n pairs in spread batches, "
      "rates in %s, host wall clock summed over each repetition's batches, median of %zu\n"
      "  insert and find_hit: every key, batch by batch; find_miss: one batch of absent keys\n"
      "  table GB: each %s's table (the largest) and all of them together\n",
      backend_.c_str(), row.devices.front().c_str(), gpu ? "G ops/s" : "M ops/s",
      row.ops.front().ms.size(), gpu ? "GPU" : "shard");
  std::printf("%-24s %-6s %-5s %-5s %-2s %-6s %7s %-10s %6s %9s %10s %9s\n", "design", "bits", "n",
              "load", "G", "batch", "batches", "op", "keys", "rate", "GB/shard", "GB total");
  capacity_header_printed_ = true;
}

void scaling_report::add_capacity(const scaling_row& row) {
  if (!capacity_header_printed_) print_capacity_header(row);
  const double scale = backend_ == "cuda" ? 1.0 : 1000.0;  // CPU rates in M ops/s
  const std::uint64_t largest_shard =
      *std::max_element(row.shard_memory_bytes.begin(), row.shard_memory_bytes.end());
  for (const scaling_op& op : row.ops) {
    const std::uint64_t keys = op.keys != 0 ? op.keys : row.n;
    const double rate = rate_gops(keys, median(op.ms));
    json_line line = json_of(row, op, rate);
    line.add("keys", keys)
        .add("batch", row.batch)
        .add("batches", row.batches)
        .add("shard_memory_bytes", row.shard_memory_bytes)
        .add("verified", true);
    ctx_.emit(line.str());
    std::printf(
        "%-24s %-6s %-5s %-5.2f %-2zu %-6s %7llu %-10s %6s %9s %10.2f %9.2f\n", row.design.c_str(),
        (std::to_string(row.key_bits) + "/" + std::to_string(row.value_bits)).c_str(),
        size_text(row.n).c_str(), row.load_factor, row.shards, size_text(row.batch).c_str(),
        static_cast<unsigned long long>(row.batches), op.name.c_str(), size_text(keys).c_str(),
        rate_cell(scale * rate).c_str(), static_cast<double>(largest_shard) * 1e-9,
        static_cast<double>(row.memory_bytes) * 1e-9);
  }
  std::fflush(stdout);
}

void scaling_report::skipped(const std::string& what, const std::string& why) {
  std::printf("skipped %s: %s\n", what.c_str(), why.c_str());
  std::fflush(stdout);
}

}  // namespace gpuhash::bench
