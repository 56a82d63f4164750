// limits: the random-access ceilings of the GPU, measured here.

#include <cstdio>
#include <stdexcept>

#include "../json.hpp"
#include "../report.hpp"
#include "experiments.hpp"

namespace gpuhash::bench {

experiment limits_experiment() {
  return {"limits",
          "random-access limits of the GPU: 32/64/128-byte reads, two reads, CAS, read-then-CAS "
          "(--buffer-mb=1024: the size of the buffer read at random)",
          [](context& ctx) {
#if defined(GPUHASH_HAS_CUDA)
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
                    .add("device", device)
                    .add("commit", ctx.commit())
                    .add("buffer_bytes", megabytes << 20)
                    .add("limit", name)
                    .add("rate_gops", value);
                if (reference) line.add("reference_gops", expected);
                ctx.emit(line.str());
              }
            }
#else
            (void)ctx;
            throw std::invalid_argument("limits needs the CUDA backend (this build has none)");
#endif
          }};
}

}  // namespace gpuhash::bench
