// The DACHash experiments, named after the thesis' figures
// (dachash-thesis.txt, chapter 7). Each point stores n keys in a table whose
// bucket count follows from the expected chain length e (the thesis' axis:
// 0.5 means the keys would fill one node per bucket, 1 two nodes), then times
// one of: the build (inserting the n keys), a static search of the n keys, or
// a mixed batch of searches, updates and deletes over them. Rules of
// basic_ops.hpp: fresh keys per repetition, the table rebuilt outside the
// timed region, a warm-up then the median of >= 5, every result checked. The
// designs compared:
//   dachash       the thesis' DACHash: 16x4-byte nodes, reorder combining
//                 256 buckets (its 7.1.2), the dynamic mapping (tau 0.6)
//   dachash_slab  SlabHash's design (the slab preset): 128-byte nodes, a
//                 warp per key, no reorder
//   dachash_no_reorder  DACHash without the reorder (the library's default):
//                 for batches of one kind the one-to-one mapping, the
//                 thesis' baseline of Fig. 7.6a
// The reorder's time is inside every timed batch that uses it, as in the
// thesis.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../basic_ops.hpp"
#include "../report.hpp"
#include "../sweep.hpp"
#include "../variants/dachash_variants.hpp"
#include "experiments.hpp"
#include "gpuhash/dachash_map.hpp"
#include "gpuhash/operation.hpp"

namespace gpuhash::bench {

namespace {

/// What a point times.
enum class workload { build, search, mixed };

/// A mixed batch: shares of searches and updates; the rest are deletes.
struct operation_mix {
  double search = 1.0;
  double update = 0.0;
};

/// One configuration of a table at one point.
struct dachash_case {
  std::string label;          ///< the design's name in the results
  dachash_settings settings;  ///< mapping and reorder
  double expected_length = 0.5;
  std::uint64_t buckets = 0;  ///< 0: from the expected length
};

/// The thesis' DACHash, its SlabHash stand-in and its baseline.
dachash_settings thesis_settings() {
  return {dachash_mapping::dynamic, 0.6, 256};
}
dachash_settings slab_settings() {
  return dachash_slab_preset::initial;
}
dachash_settings no_reorder_settings() {
  return {dachash_mapping::dynamic, 0.6, 0};
}

const char* mapping_name(dachash_mapping m) {
  switch (m) {
    case dachash_mapping::one_to_one: return "one_to_one";
    case dachash_mapping::many_to_one: return "many_to_one";
    case dachash_mapping::dynamic: return "dynamic";
  }
  return "unknown";
}

template <class Table>
std::uint64_t buckets_for(const dachash_case& c, std::uint64_t n) {
  if (c.buckets != 0) return c.buckets;
  const double pairs = Table::engine_type::pairs_per_node;
  return std::max<std::uint64_t>(
      1, static_cast<std::uint64_t>(
             std::llround(static_cast<double>(n) / (2.0 * c.expected_length * pairs))));
}

/// n operations with the mix's shares, in random order (host memory).
std::vector<operation> mixed_operations(std::uint64_t n, const operation_mix& mix,
                                        std::uint64_t seed) {
  std::vector<operation> ops(n);
  const auto searches = static_cast<std::uint64_t>(mix.search * static_cast<double>(n));
  const auto updates = static_cast<std::uint64_t>(mix.update * static_cast<double>(n));
  for (std::uint64_t i = 0; i < n; ++i)
    ops[i] = i < searches             ? operation::search
             : i < searches + updates ? operation::update
                                      : operation::erase;
  std::shuffle(ops.begin(), ops.end(), std::mt19937_64(seed));
  return ops;
}

template <class Table>
point_report run_case(const sweep_point& point, const dachash_case& c, workload work,
                      const operation_mix& mix) {
  using backend = typename Table::backend_type;
  using key_type = typename Table::key_type;
  using value_type = typename Table::mapped_type;
  using engine_type = typename Table::engine_type;
  const std::uint64_t n = point.n;
  const typename backend::stream_type stream{};

  const std::uint64_t buckets = buckets_for<Table>(c, n);
  Table table(table_options{buckets * engine_type::pairs_per_node, 0.0f, 0x5eed5eedULL});
  // Pool nodes for every chain, so the build does not grow the table; a
  // mixed batch is counted as if each of its operations could insert.
  table.reserve(work == workload::mixed ? 2 * n : n);
  table.engine().configure(c.settings);
  const std::size_t capacity = table.capacity();

  auto keys = backend::template allocate<key_type>(n);
  auto values = backend::template allocate<value_type>(n);
  auto found = backend::template allocate<value_type>(n);
  auto statuses = backend::template allocate<status>(n);
  auto ops = backend::template allocate<operation>(work == workload::mixed ? n : 0);

  const char* op_name = work == workload::build    ? "build"
                        : work == workload::search ? "search"
                                                   : "mixed";
  // A mixed batch under the dynamic mapping runs many-to-one once the
  // expected chain length reaches tau (dachash_config.hpp): its searches read
  // whole nodes by tiles, as under the many-to-one mapping.
  const bool mixed_by_tiles = work == workload::mixed &&
                              c.settings.mapping == dachash_mapping::dynamic &&
                              table.engine().expected_chain_length(n) >= c.settings.threshold;
  const std::string search_op = mixed_by_tiles ? "find_hit_tile" : "find_hit";
  const judged_by judgement = work == workload::build ? judge(table, "insert")
                              : work == workload::search
                                  ? judge(table, "find_hit")
                                  : judge_mix(table, {{search_op, mix.search},
                                                      {"upsert", mix.update},
                                                      {"erase", 1 - mix.search - mix.update}});
  point_report report = report_for<Table>(point, {{op_name, judgement}});
  report.design = c.label;
  report.parameters = {
      {"expected_length",
       static_cast<double>(n) / (2.0 * static_cast<double>(buckets * engine_type::pairs_per_node))},
      {"buckets", static_cast<double>(buckets)},
      {"node_bytes", static_cast<double>(engine_type::node_bytes)},
      {"tile_size", static_cast<double>(engine_type::tile_size)},
      {"combined_buckets", static_cast<double>(c.settings.combined_buckets)},
      {"mapping", static_cast<double>(static_cast<int>(c.settings.mapping))},
      {"search_share", work == workload::mixed ? mix.search : 1.0},
      {"update_share", work == workload::mixed ? mix.update : 0.0}};

  step_timer<backend> timer;
  for (int repetition = -point.warmups; repetition < point.repetitions; ++repetition) {
    const key_spec spec = repetition_keys(point, repetition);
    generate_keys<key_type, value_type>(backend{}, spec, 0, n, keys.data(), values.data(), stream);
    table.clear(stream);
    backend::synchronize(stream);
    // The pool is reserved, so every key must come back `inserted` (checked
    // below): no retry hides in the time.
    const auto build = [&] {
      table.insert_async(keys.data(), values.data(), n, statuses.data(), stream);
    };
    double ms = 0;
    if (work == workload::build) {
      ms = timer.time(build, stream);
    } else {
      build();
    }
    require_all(count_unexpected<key_type, value_type>(
                    backend{}, keys.data(), nullptr, statuses.data(), n, status::inserted, stream),
                n, "build");
    require_no_growth(table, capacity);

    if (work == workload::search) {
      ms = timer.time(
          [&] { table.find_async(keys.data(), n, found.data(), statuses.data(), stream); }, stream);
      require_all(count_unexpected<key_type, value_type>(backend{}, keys.data(), found.data(),
                                                         statuses.data(), n, status::found, stream),
                  n, "search");
    } else if (work == workload::mixed) {
      const auto host_ops = mixed_operations(n, mix, spec.seed);
      backend::copy_from_host(ops.data(), host_ops.data(), n, stream);
      backend::copy(found.data(), values.data(), n, stream);  // updates write the same values
      backend::synchronize(stream);
      ms = timer.time(
          [&] {
            table.apply_async(ops.data(), keys.data(), found.data(), n, statuses.data(), stream);
          },
          stream);
      // Every key appears once: searches find the stored value, updates and
      // deletes find their key.
      std::vector<status> got(n);
      std::vector<value_type> got_values(n), expected(n);
      backend::copy_to_host(got.data(), statuses.data(), n, stream);
      backend::copy_to_host(got_values.data(), found.data(), n, stream);
      backend::copy_to_host(expected.data(), values.data(), n, stream);
      std::size_t wrong = 0;
      for (std::uint64_t i = 0; i < n; ++i) {
        const status want = host_ops[i] == operation::search   ? status::found
                            : host_ops[i] == operation::update ? status::updated
                                                               : status::erased;
        wrong += got[i] != want || (want == status::found && got_values[i] != expected[i]);
      }
      require_all(wrong, n, "mixed operations");
    }
    if (repetition < 0) continue;
    report.ops[0].ms.push_back(ms);
  }
  report.capacity = table.capacity();
  report.memory_bytes = table.memory_bytes();
  return report;
}

/// The selected width's tables of a design family; calls f.template
/// operator()<Table>().
template <class Backend, template <class, class, class> class Map, class F>
void for_each_width(const context& ctx, F&& f) {
  if (ctx.selected_width(32, {"32"}))
    f.template operator()<Map<std::uint32_t, std::uint32_t, Backend>>();
  if (ctx.selected_width(64, {"32"}))
    f.template operator()<Map<std::uint64_t, std::uint64_t, Backend>>();
}

/// Expected lengths 0.1, 0.2, ..., 1.0 (or --length).
std::vector<double> lengths(const context& ctx, std::vector<double> fallback) {
  return ctx.arguments().numbers("length", fallback);
}
const std::vector<double> tenth_to_one{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0};

/// Runs `run` for each backend (2^20 keys on the CPU, 2^22 on the GPU, or
/// --n) and records its reports.
template <class Run>
void on_each_backend(context& ctx, const std::string& experiment, Run&& run) {
  record_on_each_backend(ctx, experiment, std::uint64_t{1} << 20, std::uint64_t{1} << 22,
                         std::forward<Run>(run));
}

/// DACHash with and without the reorder against the slab preset at each
/// expected length, for one workload.
void thesis_versus_slab(context& ctx, const std::string& experiment, workload work,
                        const std::vector<operation_mix>& mixes,
                        std::vector<double> default_lengths) {
  const auto chosen = lengths(ctx, std::move(default_lengths));
  on_each_backend(ctx, experiment, [&]<class Backend>(const sweep_point& base, auto&& keep) {
    for (const operation_mix& mix : mixes) {
      for (const double length : chosen) {
        for_each_width<Backend, dachash_map>(ctx, [&]<class Table>() {
          if (ctx.selected_design("dachash", {"all"}))
            keep(run_case<Table>(base, {"dachash", thesis_settings(), length, 0}, work, mix));
          if (ctx.selected_design("dachash_no_reorder", {"all"}))
            keep(run_case<Table>(base, {"dachash_no_reorder", no_reorder_settings(), length, 0},
                                 work, mix));
        });
        for_each_width<Backend, dachash_slab_map>(ctx, [&]<class Table>() {
          if (ctx.selected_design("dachash_slab", {"all"}))
            keep(run_case<Table>(base, {"dachash_slab", slab_settings(), length, 0}, work, mix));
        });
      }
    }
  });
}

experiment fig7_1() {
  return {
      "dachash.fig7_1",
      "search rate vs node size (4x4, 8x4, 16x4, 32x4 bytes) at expected lengths 0.5 and 1, "
      "reorder on (dachash) and off (dachash_no_reorder) (--n: 2^22 GPU, 2^20 CPU; "
      "--length; --key-bits: 64/64 from 8x4 bytes). 16- and 32-byte nodes need "
      "GPUHASH_BENCH_VARIANTS",
      [](context& ctx) {
        const auto chosen = lengths(ctx, {0.5, 1.0});
        on_each_backend(
            ctx, "dachash.fig7_1", [&]<class Backend>(const sweep_point& base, auto&& keep) {
              // One width's node sizes (Configurations) with K-bit keys and values.
              const auto sizes = [&]<class K, class Configurations>(double length) {
                support::for_each_type(Configurations{}, [&]<class Preset>() {
                  using Table = dachash_map_with<K, K, Backend, Preset>;
                  if (ctx.selected_design("dachash", {"all"}))
                    keep(run_case<Table>(base, {"dachash", thesis_settings(), length, 0},
                                         workload::search, {}));
                  if (ctx.selected_design("dachash_no_reorder", {"all"}))
                    keep(run_case<Table>(base,
                                         {"dachash_no_reorder", no_reorder_settings(), length, 0},
                                         workload::search, {}));
                });
              };
              for (const double length : chosen) {
                if (ctx.selected_width(32, {"32"}))
                  sizes.template operator()<std::uint32_t, node_size_configurations>(length);
                if (ctx.selected_width(64, {"32"}))
                  sizes.template operator()<std::uint64_t, wide_node_size_configurations>(length);
              }
            });
      }};
}

/// The many-to-one mapping's tile size (thesis chapter 6: 1 to 32 lanes per
/// key), for 64-byte nodes: searches with the mapping forced to many-to-one,
/// reorder off, against the one-to-one mapping.
experiment tiles() {
  return {"dachash.tiles",
          "search rate vs the many-to-one mapping's tile size (1 to 32 lanes per key; 16x4-byte "
          "nodes, reorder off) at expected lengths 0.5 and 1, with one-to-one as the baseline "
          "(--n: 2^22 GPU, 2^20 CPU; --length). Sizes other than 8 need GPUHASH_BENCH_VARIANTS",
          [](context& ctx) {
            const auto chosen = lengths(ctx, {0.5, 1.0});
            on_each_backend(
                ctx, "dachash.tiles", [&]<class Backend>(const sweep_point& base, auto&& keep) {
                  for (const double length : chosen) {
                    support::for_each_type(tile_size_configurations{}, [&]<class Preset>() {
                      using Table = dachash_map_with<std::uint32_t, std::uint32_t, Backend, Preset>;
                      dachash_settings tiled = no_reorder_settings();
                      tiled.mapping = dachash_mapping::many_to_one;
                      keep(run_case<Table>(base, {"many_to_one", tiled, length, 0},
                                           workload::search, {}));
                    });
                    using Table = dachash_map<std::uint32_t, std::uint32_t, Backend>;
                    dachash_settings single = no_reorder_settings();
                    single.mapping = dachash_mapping::one_to_one;
                    keep(run_case<Table>(base, {"one_to_one", single, length, 0}, workload::search,
                                         {}));
                  }
                });
          }};
}

experiment fig7_2() {
  return {
      "dachash.fig7_2",
      "search time (reorder included) vs the length of combined buckets (0: reorder off), "
      "2^19 buckets (--n: 2^22 GPU, 2^20 CPU; --buckets; --combined)",
      [](context& ctx) {
        const auto combined = ctx.arguments().numbers(
            "combined", {0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096});
        on_each_backend(
            ctx, "dachash.fig7_2", [&]<class Backend>(const sweep_point& base, auto&& keep) {
              const std::uint64_t buckets = ctx.arguments().size(
                  "buckets", Backend::host_accessible ? (1u << 17) : (1u << 19));
              for (const double c : combined) {
                dachash_settings s = thesis_settings();
                s.combined_buckets = static_cast<std::uint64_t>(c);
                for_each_width<Backend, dachash_map>(ctx, [&]<class Table>() {
                  keep(run_case<Table>(base, {"dachash", s, 0.5, buckets}, workload::search, {}));
                });
              }
            });
      }};
}

/// Fig. 7.3: the two mappings across expected lengths, for uniform (all
/// searches) or mixed (half searches, half updates) batches; reorder on.
void compare_mappings(context& ctx, const std::string& experiment, bool mixed) {
  const auto chosen = lengths(ctx, tenth_to_one);
  const operation_mix mix{0.5, 0.5};
  on_each_backend(ctx, experiment, [&]<class Backend>(const sweep_point& base, auto&& keep) {
    for (const double length : chosen) {
      for_each_width<Backend, dachash_map>(ctx, [&]<class Table>() {
        for (const auto m : {dachash_mapping::one_to_one, dachash_mapping::many_to_one}) {
          dachash_settings s = thesis_settings();
          s.mapping = m;
          keep(run_case<Table>(base, {mapping_name(m), s, length, 0},
                               mixed ? workload::mixed : workload::search, mix));
        }
      });
    }
  });
}

experiment fig7_4() {
  return {"dachash.fig7_4",
          "search with reorder on (256 combined buckets) and off vs expected length "
          "(--n: 2^22 GPU, 2^20 CPU; --length)",
          [](context& ctx) {
            const auto chosen = lengths(ctx, tenth_to_one);
            on_each_backend(
                ctx, "dachash.fig7_4", [&]<class Backend>(const sweep_point& base, auto&& keep) {
                  for (const double length : chosen) {
                    for_each_width<Backend, dachash_map>(ctx, [&]<class Table>() {
                      dachash_settings off = thesis_settings();
                      off.combined_buckets = 0;
                      keep(run_case<Table>(base, {"reorder_on", thesis_settings(), length, 0},
                                           workload::search, {}));
                      keep(run_case<Table>(base, {"reorder_off", off, length, 0}, workload::search,
                                           {}));
                    });
                  }
                });
          }};
}

}  // namespace

std::vector<experiment> dachash_experiments() {
  const std::vector<double> builds{0.0625, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0};
  return {
      fig7_1(),
      fig7_2(),
      tiles(),
      {"dachash.fig7_3a",
       "one-to-one vs many-to-one mapping vs expected length, uniform batches (searches), "
       "reorder on (--n: 2^22 GPU, 2^20 CPU; --length)",
       [](context& ctx) { compare_mappings(ctx, "dachash.fig7_3a", false); }},
      {"dachash.fig7_3b",
       "one-to-one vs many-to-one mapping vs expected length, mixed batches (50% searches, "
       "50% updates), reorder on (--n: 2^22 GPU, 2^20 CPU; --length)",
       [](context& ctx) { compare_mappings(ctx, "dachash.fig7_3b", true); }},
      fig7_4(),
      {"dachash.fig7_5",
       "build rate vs expected length, DACHash with and without reorder vs the slab preset "
       "(--n: 2^22 GPU, 2^20 CPU; --length)",
       [builds](context& ctx) {
         thesis_versus_slab(ctx, "dachash.fig7_5", workload::build, {{}}, builds);
       }},
      {"dachash.fig7_6a",
       "static search vs element count at expected length 0.5: DACHash with and without "
       "reorder and the slab preset (--n: 2^19..2^28 GPU, 2^16..2^22 CPU)",
       [](context& ctx) {
         on_each_backend(ctx, "dachash.fig7_6a", [&]<class Backend>(sweep_point base, auto&& keep) {
           const auto sizes = ctx.arguments().sizes(
               "n",
               Backend::host_accessible
                   ? std::vector<std::uint64_t>{1u << 16, 1u << 18, 1u << 20, 1u << 22}
                   : std::vector<std::uint64_t>{1u << 19, 1u << 20, 1u << 21, 1u << 22, 1u << 23,
                                                1u << 24, 1u << 25, 1u << 26, 1u << 27, 1u << 28});
           for (const std::uint64_t n : sizes) {
             base.n = n;
             for_each_width<Backend, dachash_map>(ctx, [&]<class Table>() {
               keep(run_case<Table>(base, {"dachash", thesis_settings(), 0.5, 0}, workload::search,
                                    {}));
               keep(run_case<Table>(base, {"dachash_no_reorder", no_reorder_settings(), 0.5, 0},
                                    workload::search, {}));
             });
             for_each_width<Backend, dachash_slab_map>(ctx, [&]<class Table>() {
               keep(run_case<Table>(base, {"dachash_slab", slab_settings(), 0.5, 0},
                                    workload::search, {}));
             });
           }
         });
       }},
      {"dachash.fig7_6b",
       "static search vs expected length 0.1..1, 2^22 elements: DACHash with and without "
       "reorder and the slab preset (--n; --length)",
       [](context& ctx) {
         thesis_versus_slab(ctx, "dachash.fig7_6b", workload::search, {{}}, tenth_to_one);
       }},
      {"dachash.fig7_7",
       "mixed batches (80% searches, 10% updates, 10% deletes; and 60/20/20) vs expected "
       "length, DACHash (dynamic mapping) with and without reorder vs the slab preset (--n: "
       "2^22 GPU, 2^20 CPU; --length)",
       [](context& ctx) {
         thesis_versus_slab(ctx, "dachash.fig7_7", workload::mixed, {{0.8, 0.1}, {0.6, 0.2}},
                            tenth_to_one);
       }},
  };
}

}  // namespace gpuhash::bench
