// limits: the ceilings rates are judged against, measured here: the GPU's
// random-access limits and each backend's copy bandwidth; and the yardsticks,
// which limit judges which operation of which design.

#include <cstdio>
#include <string>

#include "../json.hpp"
#include "../report.hpp"
#include "../yardsticks.hpp"
#include "experiments.hpp"

namespace gpuhash::bench {
namespace {

#if defined(GPUHASH_HAS_CUDA)
void report_access_limits(context& ctx) {
  const std::string device = device_name("cuda");
  for (const std::uint64_t megabytes : ctx.arguments().sizes("table-mb", {1024})) {
    const std::uint64_t table_bytes = megabytes << 20;
    std::printf("\naccess limits on %s for a table of %llu MB, G accesses/s\n%-24s %8s %11s  %s\n",
                device.c_str(), static_cast<unsigned long long>(megabytes), "limit", "G/s",
                "buffer MiB", "one access");
    for (const access_limit& limit : access_limits) {
      const access_measurement& measured = ctx.measured_limit(limit.name, table_bytes);
      std::printf("%-24s %8.2f %11.1f  %s\n", std::string(limit.name).c_str(), measured.gops,
                  static_cast<double>(measured.buffer_bytes) / (1 << 20),
                  std::string(limit.pattern).c_str());
      json_line line;
      line.add("experiment", "limits")
          .add("backend", "cuda")
          .add("device", device)
          .add("commit", ctx.commit())
          .add("table_bytes", table_bytes)
          .add("buffer_bytes", measured.buffer_bytes)
          .add("limit", limit.name)
          .add("pattern", limit.pattern)
          .add("rate_gops", measured.gops);
      ctx.emit(line.str());
    }
  }
}
#endif

void report_copy_limit(context& ctx, const std::string& backend) {
  const std::string device = device_name(backend);
  const copy_limit& copy = ctx.measured_copy(backend);
  std::printf("\ncopy limit on %s: %.1f GB/s (bytes copied per second, %llu MB copied)\n",
              device.c_str(), copy.bytes_per_s * 1e-9,
              static_cast<unsigned long long>(copy.buffer_bytes >> 20));
  json_line line;
  line.add("experiment", "limits")
      .add("backend", backend)
      .add("device", device)
      .add("commit", ctx.commit())
      .add("buffer_bytes", copy.buffer_bytes)
      .add("limit", "copy")
      .add("copy_bytes_per_s", copy.bytes_per_s)
      .add("counted", "bytes copied: each byte read once and written once counts once");
  ctx.emit(line.str());
}

/// The yardstick table as Markdown (docs/results/limits.md shows it).
void print_yardsticks() {
  std::printf(
      "\nyardsticks (bench/yardsticks.cpp): which limit judges each operation of each design; "
      "random_read_unit is a random read of the design's bucket, node or slot\n"
      "| design | op | limit | why | a rate above the limit |\n|---|---|---|---|---|\n");
  for (const yardstick& stick : yardsticks())
    std::printf(
        "| %s | %s | %s | %s | %s |\n", std::string(stick.design).c_str(),
        std::string(stick.op).c_str(), std::string(stick.limit).c_str(),
        std::string(stick.why).c_str(),
        stick.above_limit_because.empty() ? "-" : std::string(stick.above_limit_because).c_str());
}

}  // namespace

experiment limits_experiment() {
  return {"limits",
          "the ceilings rates are judged against: on the GPU every access limit (random reads, "
          "CAS, read-then-CAS; limits.hpp) for a table of --table-mb=1024 (several: a list), on "
          "each backend the copy bandwidth in bytes copied per second over a 1 GiB copy "
          "(--backend); then the yardsticks, which limit judges which operation",
          [](context& ctx) {
            for (const auto& backend : ctx.backends()) {
#if defined(GPUHASH_HAS_CUDA)
              if (backend == "cuda") report_access_limits(ctx);
#endif
              report_copy_limit(ctx, backend);
            }
            print_yardsticks();
          }};
}

}  // namespace gpuhash::bench
