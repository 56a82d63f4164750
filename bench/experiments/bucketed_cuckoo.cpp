// The bucketed cuckoo experiments: the table's rates against the load factor,
// the number of keys, the share of searches that hit, skewed (Zipf) keys, the
// key width, and the bucket size and number of choices.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../query_ops.hpp"
#include "../report.hpp"
#include "../sweep.hpp"
#include "../tables.hpp"
#include "../variants/bucketed_cuckoo_variants.hpp"
#include "experiments.hpp"

namespace gpuhash::bench {

namespace {

/// 2^first, 2^(first+1), ..., 2^last.
std::vector<std::uint64_t> powers_of_two(int first, int last) {
  std::vector<std::uint64_t> sizes;
  for (int exponent = first; exponent <= last; ++exponent)
    sizes.push_back(std::uint64_t{1} << exponent);
  return sizes;
}

/// Settings at the targets' size (2^26 keys on the GPU, 2^22 on the CPU).
sweep_settings cuckoo_settings(std::string experiment, std::vector<double> loads) {
  return {std::move(experiment),
          powers_of_two(22, 22),
          powers_of_two(26, 26),
          std::move(loads),
          {"bucketed_cuckoo"}};
}

std::string join(const std::vector<std::string>& words) {
  std::string text;
  for (const auto& word : words) text += (text.empty() ? "" : ", ") + word;
  return text;
}

std::vector<double> numbers_in(const context& ctx, const std::string& name,
                               const std::vector<double>& fallback, double low, double high) {
  const auto values = ctx.arguments().numbers(name, fallback);
  for (const double value : values)
    if (!(value >= low && value <= high))
      throw std::invalid_argument("--" + name + " must be in [" + std::to_string(low) + ", " +
                                  std::to_string(high) + "], got " + std::to_string(value));
  return values;
}

void sweep_hit_ratio(context& ctx) {
  const sweep_settings settings = cuckoo_settings("bucketed_cuckoo.hit_ratio", {0.9});
  const auto ratios = numbers_in(ctx, "hit-ratio", {0, 0.25, 0.5, 0.75, 1}, 0, 1);
  sweep_point base = repetitions_from(ctx);
  base.keys.kind = distinct_distribution(ctx, settings.experiment);
  for_each_backend(ctx, [&]<class Backend>() {
    rate_table table(ctx, settings.experiment, std::string(Backend::name));
    for_each_design<Backend>([&]<class Table>() {
      for_each_point<Table>(ctx, settings, base, [&](const sweep_point& point) {
        for (const double ratio : ratios)
          record(ctx, settings.experiment, table, run_hit_ratio<Table>(point, ratio));
      });
    });
  });
}

void sweep_zipf(context& ctx) {
  const sweep_settings settings = cuckoo_settings("bucketed_cuckoo.zipf", {0.9});
  const auto exponents = numbers_in(ctx, "zipf", {0.5, 0.8, 0.99, 1.2}, 0.01, 10);
  const sweep_point base = repetitions_from(ctx);
  for_each_backend(ctx, [&]<class Backend>() {
    rate_table table(ctx, settings.experiment, std::string(Backend::name));
    for_each_design<Backend>([&]<class Table>() {
      for_each_point<Table>(ctx, settings, base, [&](sweep_point point) {
        for (const double exponent : exponents) {
          point.keys.zipf_exponent = exponent;
          record(ctx, settings.experiment, table, run_zipf_queries<Table>(point));
        }
      });
    });
  });
}

void sweep_bucket_size(context& ctx) {
  const sweep_settings settings = cuckoo_settings("bucketed_cuckoo.bucket_size", {0.5, 0.9, 0.95});
  if (!cuckoo_variants_built)
    std::printf(
        "note: this gpuhash-bench was built with GPUHASH_BENCH_VARIANTS=OFF, so only the "
        "library's configuration (%s) runs; configure with -DGPUHASH_BENCH_VARIANTS=ON for "
        "64/128-byte buckets, two, three and four choices, backyards and tile finds\n",
        default_cuckoo_configuration::label().c_str());
  std::vector<std::string> built;
  support::for_each_type(bucket_size_configurations{},
                         [&]<class Configuration>() { built.push_back(Configuration::label()); });
  const auto variants = ctx.arguments().list("variant", {"all"});
  for (const auto& variant : variants)
    if (variant != "all" && std::find(built.begin(), built.end(), variant) == built.end())
      throw std::invalid_argument("--variant=" + variant + " is not built here (built: " +
                                  join(built) + "; the others need -DGPUHASH_BENCH_VARIANTS=ON)");
  const auto chosen = [&](const std::string& label) {
    return std::find(variants.begin(), variants.end(), "all") != variants.end() ||
           std::find(variants.begin(), variants.end(), label) != variants.end();
  };
  sweep_point base = repetitions_from(ctx);
  base.keys.kind = distinct_distribution(ctx, settings.experiment);
  for_each_backend(ctx, [&]<class Backend>() {
    rate_table table(ctx, settings.experiment, std::string(Backend::name));
    support::for_each_type(bucket_size_configurations{}, [&]<class Configuration>() {
      if constexpr (Configuration::template runs_on<Backend>) {
        if (!chosen(Configuration::label())) return;
        using Table = typename Configuration::template on<Backend>;
        for_each_point<Table>(ctx, settings, base, [&](const sweep_point& point) {
          point_report report = run_basic_ops<Table>(point);
          report.design += "/" + Configuration::label();
          report.parameters = {
              {"bucket_bytes", static_cast<double>(Configuration::bucket_bytes)},
              {"choices", static_cast<double>(Configuration::choices)},
              {"backyard_sixteenths", static_cast<double>(Configuration::backyard_sixteenths)},
              {"find_lanes", static_cast<double>(Configuration::find_lanes)}};
          record(ctx, settings.experiment, table, report);
        });
      }
    });
  });
}

}  // namespace

std::vector<experiment> bucketed_cuckoo_experiments() {
  return {
      {"bucketed_cuckoo.lf_sweep",
       "bucketed cuckoo: insert / find-hit / find-miss / erase vs load factor 0.5..0.97 "
       "(--n: 2^26 GPU, 2^22 CPU; --load, --key-bits, --dist=uniform|dense, "
       "--design=bucketed_cuckoo,libcuckoo to compare, --backend, --reps)",
       [](context& ctx) {
         run_basic_sweep(ctx, cuckoo_settings("bucketed_cuckoo.lf_sweep",
                                              {0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.97}));
       }},
      {"bucketed_cuckoo.n_sweep",
       "bucketed cuckoo: the four operations vs n = 2^20..2^28 (GPU), 2^16..2^22 (CPU) at load "
       "0.9 (--n=2^a..2^b, --load: several give a line each, --key-bits, --dist, --design, "
       "--backend, --reps)",
       [](context& ctx) {
         sweep_settings settings = cuckoo_settings("bucketed_cuckoo.n_sweep", {0.9});
         settings.cpu_sizes = powers_of_two(16, 22);
         settings.gpu_sizes = powers_of_two(20, 28);
         run_basic_sweep(ctx, settings);
       }},
      {"bucketed_cuckoo.hit_ratio",
       "bucketed cuckoo: finds of which a fraction hit (--hit-ratio=0,0.25,0.5,0.75,1) in a "
       "table at load 0.9 (--n: 2^26 GPU, 2^22 CPU; --load, --key-bits, --dist, --design, "
       "--backend, --reps)",
       sweep_hit_ratio},
      {"bucketed_cuckoo.zipf",
       "bucketed cuckoo: finds and upserts of Zipf-distributed keys (--zipf=0.5,0.8,0.99,1.2: "
       "exponents) over the n keys of a table at load 0.9; upserts in batches of capacity - n, "
       "the most that leave the table's size (--n: 2^26 GPU, 2^22 CPU; --load, --key-bits, "
       "--design, --backend, --reps)",
       sweep_zipf},
      {"bucketed_cuckoo.key_width",
       "bucketed cuckoo: 32/32 against 64/64-bit pairs at loads 0.5, 0.9, 0.95 "
       "(--key-bits=32,64, --n: 2^26 GPU, 2^22 CPU; --load, --dist, --design, --backend, "
       "--reps)",
       [](context& ctx) {
         sweep_settings settings = cuckoo_settings("bucketed_cuckoo.key_width", {0.5, 0.9, 0.95});
         settings.widths = {"32", "64"};
         run_basic_sweep(ctx, settings);
       }},
      {"bucketed_cuckoo.bucket_size",
       "bucketed cuckoo, 32/32: 32/64/128-byte buckets, two to four choices, backyards, "
       "lookahead or random-walk eviction, finds by one thread or one tile of threads per key "
       "(GPU only), at loads 0.5, 0.9, 0.95 (needs -DGPUHASH_BENCH_VARIANTS=ON, else the default "
       "b32c4-y3 only; --variant=b32c4-y3,b32c2,b64c2,b128c2,b32c3,b64c3,b128c3,b32c4,b32c3-y2,"
       "b32c3-y3,b32c3-y4,b32c4-y2,b32c4-y4,b32c2-walk,b32c3-walk,b32c2-tile,b64c2-tile,"
       "b128c2-tile,b32c3-tile; --n: 2^26 GPU, 2^22 CPU; --load, --dist, --backend, --reps)",
       sweep_bucket_size},
  };
}

}  // namespace gpuhash::bench
