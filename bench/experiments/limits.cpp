// limits: the ceilings rates are judged against, measured here: the GPU's
// random-access limits, and each backend's copy bandwidth.

#include <cstdio>
#include <string>

#include "../json.hpp"
#include "../report.hpp"
#include "experiments.hpp"

namespace gpuhash::bench {
namespace {

#if defined(GPUHASH_HAS_CUDA)
void report_access_limits(context& ctx) {
  const std::string device = device_name("cuda");
  const auto reference = reference_limits(device);
  for (const std::uint64_t megabytes : ctx.arguments().sizes("buffer-mb", {1024})) {
    const auto& measured = ctx.measured_limits(megabytes << 20);
    std::printf(
        "\nlimits on %s, %llu MB buffer, G accesses/s (reference: earlier runs, "
        "bench/limits.cpp)\n",
        device.c_str(), static_cast<unsigned long long>(megabytes));
    for (const char* name : limit_names) {
      const double value = measured.by_name(name);
      const double expected = reference ? reference->by_name(name) : 0.0;
      std::printf("%-20s %7.2f   reference %7.2f\n", name, value, expected);
      json_line line;
      line.add("experiment", "limits")
          .add("backend", "cuda")
          .add("device", device)
          .add("commit", ctx.commit())
          .add("buffer_bytes", megabytes << 20)
          .add("limit", name)
          .add("rate_gops", value);
      if (reference) line.add("reference_gops", expected);
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

}  // namespace

experiment limits_experiment() {
  return {"limits",
          "the ceilings rates are judged against: on the GPU random 32/64/128-byte reads, two "
          "reads, CAS, read-then-CAS (--buffer-mb=1024: the size of the buffer read at random); "
          "on each backend the copy bandwidth, in bytes copied per second over a 1 GiB copy "
          "(--backend)",
          [](context& ctx) {
            for (const auto& backend : ctx.backends()) {
#if defined(GPUHASH_HAS_CUDA)
              if (backend == "cuda") report_access_limits(ctx);
#endif
              report_copy_limit(ctx, backend);
            }
          }};
}

}  // namespace gpuhash::bench
