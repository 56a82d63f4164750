#include "sweep.hpp"

#include "report.hpp"
#include "tables.hpp"

namespace gpuhash::bench {

sweep_point repetitions_from(const context& ctx) {
  const auto& a = ctx.arguments();
  sweep_point point;
  point.keys.seed = a.size("seed", 42);
  point.repetitions = static_cast<int>(a.size("reps", 5));
  point.warmups = static_cast<int>(a.size("warmup", 1));
  if (a.has("first-pass-walk"))
    point.first_pass_walk = static_cast<int>(a.size("first-pass-walk", 8));
  if (a.has("max-loop")) point.max_loop = static_cast<int>(a.size("max-loop", 64));
  if (point.repetitions < 5)
    throw std::invalid_argument("--reps must be at least 5 (median of >= 5 runs)");
  return point;
}

distribution distinct_distribution(const context& ctx, const std::string& experiment) {
  const distribution kind = parse_distribution(ctx.arguments().text("dist", "uniform"));
  if (kind == distribution::zipf)
    throw std::invalid_argument(experiment + " needs distinct keys: use --dist=uniform or dense");
  return kind;
}

void run_basic_sweep(context& ctx, const sweep_settings& settings) {
  sweep_point base = repetitions_from(ctx);
  base.keys.kind = distinct_distribution(ctx, settings.experiment);
  for_each_backend(ctx, [&]<class Backend>() {
    rate_table table(ctx, settings.experiment, std::string(Backend::name));
    const auto sweep = [&]<class Table>() {
      for_each_point<Table>(ctx, settings, base, [&](const sweep_point& point) {
        record(ctx, settings.experiment, table, run_basic_ops<Table>(point));
      });
    };
    for_each_design<Backend>(sweep);
    if constexpr (Backend::host_accessible) for_each_reference(sweep);
  });
}

}  // namespace gpuhash::bench
