#pragma once
// The template behind width_runs.hpp; included by width_runs_cpu.cpp and
// width_runs_cuda.cu only.

#include <cstdint>
#include <string>

#include "../basic_ops.hpp"
#include "../report.hpp"
#include "../sweep.hpp"
#include "../workload.hpp"
#include "gpuhash/linear_probing_map_impl.hpp"
#include "width_runs.hpp"

namespace gpuhash::bench {

template <class Backend>
void run_key_widths(context& ctx) {
  sweep_settings settings{
      "key_types.width", {std::uint64_t{1} << 22}, {std::uint64_t{1} << 25}, {0.5, 0.9}};
  settings.widths = {"32", "64", "128"};
  sweep_point base = repetitions_from(ctx);
  base.keys.kind = distinct_distribution(ctx, settings.experiment);
  rate_table table(ctx, settings.experiment, std::string(Backend::name));
  const auto measure = [&]<class Table>() {
    for_each_point<Table>(ctx, settings, base, [&](const sweep_point& point) {
      record(ctx, settings.experiment, table, run_basic_ops<Table>(point));
    });
  };
  measure.template operator()<linear_probing_map<std::uint32_t, std::uint32_t, Backend>>();
  measure.template operator()<linear_probing_map<std::uint64_t, std::uint64_t, Backend>>();
  measure.template operator()<linear_probing_map<word128, word128, Backend>>();
  measure.template operator()<linear_probing_map<std::uint64_t, wide_value<32>, Backend>>();
  measure.template operator()<linear_probing_map<std::uint64_t, wide_value<128>, Backend>>();
}

}  // namespace gpuhash::bench
