#include "report.hpp"

#include <bit>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "gpuhash/cpu/backend.hpp"
#include "json.hpp"
#include "yardsticks.hpp"
#if defined(GPUHASH_HAS_CUDA)
#include "gpuhash/cuda/backend.hpp"
#endif

namespace gpuhash::bench {

std::string device_name(const std::string& backend) {
#if defined(GPUHASH_HAS_CUDA)
  if (backend == "cuda") return cuda_backend::device_name();
#endif
  (void)backend;
  return cpu_backend::device_name();
}

std::string size_text(std::uint64_t n) {
  if (std::has_single_bit(n)) return "2^" + std::to_string(std::countr_zero(n));
  return std::to_string(n);
}

namespace {
double rate_gops(std::uint64_t n, double ms) {
  return static_cast<double>(n) / (ms * 1e6);
}
/// Bytes per second of an operation over n keys that counts bytes.
double bytes_rate(std::uint64_t n, const op_timing& op) {
  return static_cast<double>(n) * static_cast<double>(op.bytes_per_key) / (op.median_ms() * 1e-3);
}
bool counts_bytes(const point_report& report) {
  for (const auto& op : report.ops)
    if (op.bytes_per_key > 0) return true;
  return false;
}

/// An operation's rate on the GPU against its yardstick, whose limits are
/// measured for the report's table (context::measured_limit).
struct judged_rate {
  resolved_yardstick yardstick;
  double limit_gops = 0;
  std::uint64_t limit_buffer_bytes = 0;  ///< the buffer of the first limit
  double fraction = 0;

  bool above_limit() const { return fraction > 1; }
  bool explained() const { return !yardstick.above_limit_because.empty(); }
};

judged_rate judge_rate(context& ctx, const point_report& report, const op_timing& op) {
  judged_rate judged{resolve(op.judged)};
  std::vector<double> gops;
  for (const limit_share& part : judged.yardstick.parts) {
    const access_measurement& measured = ctx.measured_limit(
        part.limit, report.touched_bytes != 0 ? report.touched_bytes : report.memory_bytes);
    gops.push_back(measured.gops);
    if (judged.limit_buffer_bytes == 0) judged.limit_buffer_bytes = measured.buffer_bytes;
  }
  judged.limit_gops = combined_limit(judged.yardstick.parts, gops);
  judged.fraction = rate_gops(report.point.n, op.median_ms()) / judged.limit_gops;
  return judged;
}
}  // namespace

void emit_basic_ops(context& ctx, const std::string& experiment, const point_report& report) {
  const std::string device = device_name(report.backend);
  for (const auto& op : report.ops) {
    const double rate = rate_gops(report.point.n, op.median_ms());
    json_line line;
    line.add("experiment", experiment)
        .add("design", report.design)
        .add("backend", report.backend)
        .add("device", device)
        .add("commit", ctx.commit())
        .add("key_bits", report.key_bits)
        .add("value_bits", report.value_bits)
        .add("n", report.point.n)
        .add("load_factor", report.point.load_factor)
        .add("distribution", to_string(report.point.keys.kind));
    for (const auto& parameter : report.parameters) line.add(parameter.name, parameter.value);
    line.add("op", op.op)
        .add("repetitions", static_cast<int>(op.ms.size()))
        .add("median_ms", op.median_ms())
        .add("min_ms", op.min_ms())
        .add("max_ms", op.max_ms())
        .add("rate_gops", rate)
        .add("capacity", static_cast<std::uint64_t>(report.capacity))
        .add("memory_bytes", static_cast<std::uint64_t>(report.memory_bytes))
        .add("touched_bytes",
             static_cast<std::uint64_t>(report.touched_bytes != 0 ? report.touched_bytes
                                                                  : report.memory_bytes))
        .add("verified", true);
    if (report.backend == "cuda") {
      const judged_rate judged = judge_rate(ctx, report, op);
      line.add("yardstick", judged.yardstick.yardstick)
          .add("limit", judged.yardstick.limit)
          .add("limit_gops", judged.limit_gops)
          .add("limit_buffer_bytes", judged.limit_buffer_bytes)
          .add("fraction_of_limit", judged.fraction);
      if (judged.above_limit()) {
        line.add("above_limit_because", judged.explained() ? judged.yardstick.above_limit_because
                                                           : std::string(unexplained));
        if (!judged.explained())
          std::fprintf(stderr,
                       "warning: %s %s runs at %.0f%% of its limit (%s), and no reason the "
                       "yardstick or the workload gives explains it\n",
                       report.design.c_str(), op.op.c_str(), 100 * judged.fraction,
                       judged.yardstick.limit.c_str());
      }
    }
    if (op.bytes_per_key > 0) {
      const copy_limit& copy = ctx.measured_copy(report.backend);
      const double bytes_per_s = bytes_rate(report.point.n, op);
      line.add("bytes_counted", op.bytes_counted)
          .add("bytes_per_key", op.bytes_per_key)
          .add("bytes_per_s", bytes_per_s)
          .add("copy_bytes_per_s", copy.bytes_per_s)
          .add("copy_buffer_bytes", copy.buffer_bytes)
          .add("fraction_of_copy", bytes_per_s / copy.bytes_per_s);
    }
    ctx.emit(line.str());
  }
}

rate_table::rate_table(context& ctx, const std::string& experiment, const std::string& backend)
    : ctx_(ctx),
      title_(experiment + " on " + device_name(backend) + ", rates in " +
             (backend == "cuda" ? "G ops/s (% of the yardstick's measured access limit; ^ above "
                                  "it for a reason the JSON gives, ! above it unexplained)"
                                : "M ops/s")) {}

void rate_table::add(const point_report& report) {
  const bool in_bytes = counts_bytes(report);
  if (!header_printed_) {
    std::string title = title_;
    if (in_bytes) {
      title += "; then GB/s of the bytes counted per key (";
      const char* separator = "";
      for (const auto& op : report.ops) {
        if (op.bytes_per_key == 0) continue;
        title += separator + op.op + ": " + op.bytes_counted;
        separator = ", ";
      }
      char limit[96];
      std::snprintf(limit, sizeof limit, ") and %% of the copy limit, %.1f GB/s copied",
                    ctx_.measured_copy(report.backend).bytes_per_s * 1e-9);
      title += limit;
    }
    std::printf("\n%s\n%-26s %-7s %-8s %-5s %-5s", title.c_str(), "design", "backend", "bits", "n",
                "load");
    for (const auto& parameter : report.parameters) std::printf(" %-13s", parameter.name.c_str());
    for (const auto& op : report.ops) std::printf(" %-14s", op.op.c_str());
    for (const auto& op : report.ops)
      if (op.bytes_per_key > 0) std::printf(" %-14s", (op.op + " GB/s").c_str());
    std::printf("\n");
    header_printed_ = true;
  }
  std::printf("%-26s %-7s %-8s %-5s %-5.2f", report.design.c_str(), report.backend.c_str(),
              (std::to_string(report.key_bits) + "/" + std::to_string(report.value_bits)).c_str(),
              size_text(report.point.n).c_str(), report.point.load_factor);
  for (const auto& parameter : report.parameters) std::printf(" %-13g", parameter.value);
  for (const auto& op : report.ops) {
    const double rate = rate_gops(report.point.n, op.median_ms());
    char cell[32];
    if (report.backend == "cuda") {
      const judged_rate judged = judge_rate(ctx_, report, op);
      std::snprintf(cell, sizeof cell, "%.3g (%.0f%%%s)", rate, 100.0 * judged.fraction,
                    !judged.above_limit() ? ""
                    : judged.explained()  ? "^"
                                          : "!");
    } else
      std::snprintf(cell, sizeof cell, "%.3g", 1000 * rate);  // M ops/s: CPU rates are small
    std::printf(" %-14s", cell);
  }
  for (const auto& op : report.ops) {
    if (op.bytes_per_key == 0) continue;
    const double gigabytes = bytes_rate(report.point.n, op) * 1e-9;
    char cell[32];
    std::snprintf(cell, sizeof cell, "%.*f (%.0f%%)",
                  gigabytes < 10    ? 2
                  : gigabytes < 100 ? 1
                                    : 0,
                  gigabytes,
                  100.0 * gigabytes / (ctx_.measured_copy(report.backend).bytes_per_s * 1e-9));
    std::printf(" %-14s", cell);
  }
  std::printf("\n");
  std::fflush(stdout);
}

void record(context& ctx, const std::string& experiment, rate_table& table,
            const point_report& report) {
  emit_basic_ops(ctx, experiment, report);
  table.add(report);
}

}  // namespace gpuhash::bench
