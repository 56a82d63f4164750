#pragma once
// Sweeps over sizes and load factors, shared by lf_sweep, demo and the
// bucketed_cuckoo.* experiments: what an experiment sweeps by default, the
// options every sweep reads from the command line, and the loops over
// backends, tables and points.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "basic_ops.hpp"
#include "experiment.hpp"
#include "gpuhash/cpu/backend.hpp"
#include "report.hpp"
#include "workload.hpp"
#if defined(GPUHASH_HAS_CUDA)
#include "gpuhash/cuda/backend.hpp"
#endif

namespace gpuhash::bench {

/// What an experiment sweeps unless the command line says otherwise.
struct sweep_settings {
  std::string experiment;
  std::vector<std::uint64_t> cpu_sizes;     ///< keys per batch on the CPU (--n)
  std::vector<std::uint64_t> gpu_sizes;     ///< keys per batch on the GPU (--n)
  std::vector<double> loads;                ///< load factors (--load)
  std::vector<std::string> designs{"all"};  ///< designs (--design)
  std::vector<std::string> widths{"32"};    ///< key widths in bits (--key-bits)
};

/// Repetitions (--reps, at least 5), warm-ups (--warmup) and seed (--seed).
sweep_point repetitions_from(const context& ctx);

/// The key distribution (--dist) of an experiment that needs distinct keys:
/// uniform (the default) or dense.
distribution distinct_distribution(const context& ctx, const std::string& experiment);

/// Calls f.template operator()<Backend>() for each backend chosen (--backend).
template <class F>
void for_each_backend(const context& ctx, F&& f) {
  for (const auto& backend : ctx.backends()) {
    if (backend == "cpu") f.template operator()<cpu_backend>();
#if defined(GPUHASH_HAS_CUDA)
    if (backend == "cuda") f.template operator()<cuda_backend>();
#endif
  }
}

/// Calls run.template operator()<Backend>(base, keep) on each backend chosen,
/// with a readable table per backend. `base` has the command line's
/// repetitions and seed, load 1, and n from --n (default `cpu_n` or
/// `gpu_n`); keep(report) records a report (its JSON lines and table row).
template <class Run>
void record_on_each_backend(context& ctx, const std::string& experiment, std::uint64_t cpu_n,
                            std::uint64_t gpu_n, Run&& run) {
  for_each_backend(ctx, [&]<class Backend>() {
    rate_table table(ctx, experiment, std::string(Backend::name));
    sweep_point base = repetitions_from(ctx);
    base.load_factor = 1.0;
    base.n = ctx.arguments().size("n", Backend::host_accessible ? cpu_n : gpu_n);
    run.template operator()<Backend>(
        base, [&](const point_report& report) { record(ctx, experiment, table, report); });
  });
}

/// Calls measure(point) at each (n, load) of the sweep, `base` giving the
/// rest of the point, if the command line (or the settings' defaults)
/// selects Table's design and key width.
template <class Table, class Measure>
void for_each_point(const context& ctx, const sweep_settings& settings, sweep_point base,
                    Measure&& measure) {
  if (!ctx.selected_design(Table::design_name, settings.designs)) return;
  if (!ctx.selected_width(static_cast<int>(8 * sizeof(typename Table::key_type)), settings.widths))
    return;
  const auto& a = ctx.arguments();
  const auto sizes =
      a.sizes("n", Table::backend_type::host_accessible ? settings.cpu_sizes : settings.gpu_sizes);
  const auto loads = a.numbers("load", settings.loads);
  for (const std::uint64_t n : sizes) {
    if (n == 0) throw std::invalid_argument("--n must be positive");
    for (const double load : loads) {
      if (!(load > 0 && load <= 1))
        throw std::invalid_argument("--load must be in (0, 1], got " + std::to_string(load));
      base.n = n;
      base.load_factor = load;
      measure(std::as_const(base));
    }
  }
}

/// The basic operations (insert, find-hit, find-miss, erase) at every point
/// of the sweep, for each selected design and, on the CPU, reference map.
void run_basic_sweep(context& ctx, const sweep_settings& settings);

}  // namespace gpuhash::bench
