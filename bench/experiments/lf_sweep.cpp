// lf_sweep: insert, find-hit, find-miss and erase rates against the load
// factor, for every registered design on every backend (and the CPU reference
// maps). demo: the same at two loads, sized to finish in seconds.

#include <cmath>
#include <cstdio>
#include <string>

#include "../basic_ops.hpp"
#include "../report.hpp"
#include "../tables.hpp"
#include "experiments.hpp"
#if defined(GPUHASH_HAS_CUDA)
#include "gpuhash/cuda/backend.hpp"
#endif

namespace gpuhash::bench {

namespace {

struct sweep_settings {
  std::string experiment;
  std::uint64_t cpu_n;
  std::uint64_t gpu_n;
  std::vector<double> loads;
};

template <class Table>
void sweep_table(context& ctx, const sweep_settings& settings, std::uint64_t n) {
  if (!ctx.selected_design(Table::design_name)) return;
  if (!ctx.selected_width(static_cast<int>(8 * sizeof(typename Table::key_type)))) return;
  const auto& a = ctx.arguments();
  sweep_point point;
  point.n = n;
  point.keys.kind = parse_distribution(a.text("dist", "uniform"));
  if (point.keys.kind == distribution::zipf)
    throw std::invalid_argument(settings.experiment +
                                " needs distinct keys: use --dist=uniform or dense");
  point.keys.seed = a.size("seed", 42);
  point.repetitions = static_cast<int>(a.size("reps", 5));
  point.warmups = static_cast<int>(a.size("warmup", 1));
  if (point.repetitions < 5)
    throw std::invalid_argument("--reps must be at least 5 (median of >= 5 runs)");
  for (const double load : a.numbers("load", settings.loads)) {
    point.load_factor = load;
    const auto report = run_basic_ops<Table>(point);
    emit_basic_ops(ctx, settings.experiment, report);
    print_basic_ops_row(ctx, report);
  }
}

template <class Backend>
void sweep_backend(context& ctx, const sweep_settings& settings, std::uint64_t default_n) {
  const std::uint64_t n = ctx.arguments().size("n", default_n);
  print_basic_ops_header(
      settings.experiment + " on " + device_name(std::string(Backend::name)) +
      ", n = " + std::to_string(n) + ", rates in " +
      (Backend::host_accessible ? "M ops/s" : "G ops/s (% of the measured access limit)"));
  for_each_design<Backend>([&]<class Table>() { sweep_table<Table>(ctx, settings, n); });
  if constexpr (Backend::host_accessible)
    for_each_reference([&]<class Table>() { sweep_table<Table>(ctx, settings, n); });
}

void run_sweep(context& ctx, const sweep_settings& settings) {
  for (const auto& backend : ctx.backends()) {
    if (backend == "cpu") sweep_backend<cpu_backend>(ctx, settings, settings.cpu_n);
#if defined(GPUHASH_HAS_CUDA)
    if (backend == "cuda") sweep_backend<cuda_backend>(ctx, settings, settings.gpu_n);
#endif
  }
}

}  // namespace

experiment lf_sweep_experiment() {
  return {
      "lf_sweep",
      "insert / find-hit / find-miss / erase vs load factor 0.5..0.95, every design and backend "
      "(--n, --load, --key-bits, --dist=uniform|dense, --design, --backend, --reps)",
      [](context& ctx) {
        run_sweep(ctx, {"lf_sweep",
                        std::uint64_t{1} << 22,
                        std::uint64_t{1} << 26,
                        {0.5, 0.6, 0.7, 0.8, 0.9, 0.95}});
      }};
}

experiment demo_experiment() {
  return {"demo",
          "a short comparison of every table on this machine's CPU (and GPU when there is one)",
          [](context& ctx) {
            run_sweep(ctx, {"demo", std::uint64_t{1} << 20, std::uint64_t{1} << 24, {0.5, 0.8}});
          }};
}

}  // namespace gpuhash::bench
