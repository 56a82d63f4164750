#include "report.hpp"

#include <cstdio>

#include "gpuhash/cpu/backend.hpp"
#include "json.hpp"
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

namespace {
double rate_gops(std::uint64_t n, double ms) {
  return static_cast<double>(n) / (ms * 1e6);
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
        .add("distribution", to_string(report.point.keys.kind))
        .add("op", op.op)
        .add("repetitions", static_cast<int>(op.ms.size()))
        .add("median_ms", op.median_ms())
        .add("min_ms", op.min_ms())
        .add("max_ms", op.max_ms())
        .add("rate_gops", rate)
        .add("capacity", static_cast<std::uint64_t>(report.capacity))
        .add("memory_bytes", static_cast<std::uint64_t>(report.memory_bytes))
        .add("verified", true);
    if (report.backend == "cuda") {
      const double measured = ctx.measured_limits(report.memory_bytes).by_name(op.limit);
      line.add("limit", op.limit)
          .add("limit_gops", measured)
          .add("fraction_of_limit", rate / measured);
      if (const auto reference = reference_limits(device)) {
        const double value = reference->by_name(op.limit);
        line.add("reference_limit_gops", value).add("fraction_of_reference_limit", rate / value);
      }
    }
    ctx.emit(line.str());
  }
}

void print_basic_ops_header(const std::string& title) {
  std::printf("\n%s\n", title.c_str());
  std::printf("%-26s %-7s %-5s %-5s %-14s %-14s %-14s %-14s\n", "design", "backend", "bits", "load",
              "insert", "find-hit", "find-miss", "erase");
}

void print_basic_ops_row(context& ctx, const point_report& report) {
  std::printf("%-26s %-7s %-5s %-5.2f", report.design.c_str(), report.backend.c_str(),
              (std::to_string(report.key_bits) + "/" + std::to_string(report.value_bits)).c_str(),
              report.point.load_factor);
  for (const auto& op : report.ops) {
    const double rate = rate_gops(report.point.n, op.median_ms());
    char cell[32];
    if (report.backend == "cuda")
      std::snprintf(cell, sizeof cell, "%.3g (%.0f%%)", rate,
                    100.0 * rate / ctx.measured_limits(report.memory_bytes).by_name(op.limit));
    else
      std::snprintf(cell, sizeof cell, "%.3g", 1000 * rate);  // M ops/s: CPU rates are small
    std::printf(" %-14s", cell);
  }
  std::printf("\n");
  std::fflush(stdout);
}

}  // namespace gpuhash::bench
