// The HashGraph experiments, named after the thesis' figures and tables
// (hashgraph-tnl-thesis.txt, chapter 4). The thesis stores the keys 1..N; we
// draw fresh distinct random keys per repetition (--dist=dense gives 1..N).
// Static tables (gpuhash/hashgraph.hpp) are timed by hashgraph/static_runs;
// the dynamic tables and the comparison columns (the slab preset where the
// thesis had SlabHash, the bucketed cuckoo table where it had WarpCore) go
// through the common API here. Every run: a warm-up, then the median of >= 5,
// results checked after timing.
//
// The thesis' map tables (4.1 to 4.4) measured its dynamic map, in AoS and
// SoA layouts. Our dynamic map keeps pairs as the race-free slots of the
// library (one word for 32/32: AoS), so the AoS/SoA columns of the build and
// retrieve tables are our static map, and the dynamic map has columns of its
// own ("dyn").

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "../basic_ops.hpp"
#include "../hashgraph/static_runs.hpp"
#include "../references/std_unordered_map_table.hpp"
#include "../report.hpp"
#include "../sweep.hpp"
#include "experiments.hpp"
#include "gpuhash/bucketed_cuckoo_map.hpp"
#include "gpuhash/dachash_map.hpp"
#include "gpuhash/hashgraph_dynamic_map.hpp"

namespace gpuhash::bench {

namespace {

constexpr std::uint64_t million = 1000000;

/// N = 10..100 million on the GPU (the thesis' axis), 1..10 million on the CPU.
std::vector<std::uint64_t> default_sizes(bool on_cpu) {
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t i = 1; i <= 10; ++i) sizes.push_back(i * (on_cpu ? 1 : 10) * million);
  return sizes;
}

constexpr segment_layout all_layouts[] = {segment_layout::csr, segment_layout::ellpack,
                                          segment_layout::sliced_ellpack};
constexpr pair_layout all_pairs[] = {pair_layout::array_of_structures,
                                     pair_layout::structure_of_arrays};

/// What a run of a table of the common API times.
enum class dynamic_work {
  build,                             ///< inserting the N keys into an empty table sized for them
  retrieve,                          ///< then finding them all
  insert_batches,                    ///< inserting them in 100 batches (the thesis' 4.5.4.3)
  retrieve_batched,                  ///< finding them all after that (its 4.5.5, Fig. 4.16)
  retrieve_batched_in_bucket_order,  ///< ... with Probe-New where the table has it (Fig. 4.17)
};

/// A table of the common API, sized for the N keys at load 0.5 (HashGraph's
/// own after a build: one bucket per key plus e = 1 empty slot each).
template <class Table>
point_report time_dynamic(const sweep_point& point, dynamic_work work, const std::string& label) {
  using backend = typename Table::backend_type;
  using key_type = typename Table::key_type;
  using value_type = typename Table::mapped_type;
  const std::uint64_t n = point.n;
  const typename backend::stream_type stream{};
  Table table(table_options{2 * n, 1.0f, 0x5eed5eedULL});
  const std::size_t capacity = table.capacity();
  auto keys = backend::template allocate<key_type>(n);
  auto values = backend::template allocate<value_type>(n);
  auto found = backend::template allocate<value_type>(n);
  auto statuses = backend::template allocate<status>(n);

  // Probe-New for the tables that have it (dynamic HashGraph's engine); the
  // others answer with their own find, as in the thesis' Fig. 4.17.
  constexpr bool has_bucket_order = requires(const Table& t) {
    t.engine().find_in_bucket_order(nullptr, 0, nullptr, nullptr, stream);
  };
  const bool bucket_order =
      has_bucket_order && work == dynamic_work::retrieve_batched_in_bucket_order;
  const char* op = work == dynamic_work::build            ? "build"
                   : work == dynamic_work::retrieve       ? "probe_standard"
                   : work == dynamic_work::insert_batches ? "insert_100_batches"
                   : bucket_order                         ? "probe_binned_after_batches"
                                                          : "probe_after_batches";
  const bool writes = work == dynamic_work::build || work == dynamic_work::insert_batches;
  point_report report = report_for<Table>(
      point, {{op, judge(table, writes ? "insert" : "find_hit",
                         bucket_order ? std::string(bucket_order_reason) : std::string())}});
  report.design = label;

  const auto insert_all = [&] {
    table.insert_async(keys.data(), values.data(), n, statuses.data(), stream);
  };
  const auto insert_in_batches = [&] {
    const std::uint64_t batch = (n + 99) / 100;
    for (std::uint64_t first = 0; first < n; first += batch) {
      const std::uint64_t count = std::min(batch, n - first);
      table.insert_async(keys.data() + first, values.data() + first, count, statuses.data() + first,
                         stream);
    }
  };
  step_timer<backend> timer;
  for (int repetition = -point.warmups; repetition < point.repetitions; ++repetition) {
    generate_keys<key_type, value_type>(backend{}, repetition_keys(point, repetition), 0, n,
                                        keys.data(), values.data(), stream);
    table.clear(stream);
    backend::synchronize(stream);
    const bool batched = work == dynamic_work::insert_batches ||
                         work == dynamic_work::retrieve_batched ||
                         work == dynamic_work::retrieve_batched_in_bucket_order;
    double ms = 0;
    if (writes)
      ms = batched ? timer.time(insert_in_batches, stream) : timer.time(insert_all, stream);
    else
      batched ? insert_in_batches() : insert_all();
    require_all(count_unexpected<key_type, value_type>(
                    backend{}, keys.data(), nullptr, statuses.data(), n, status::inserted, stream),
                n, "inserts");
    require_no_growth(table, capacity);
    const auto find_all = [&] {
      if constexpr (has_bucket_order) {
        if (bucket_order) {
          table.engine().find_in_bucket_order(keys.data(), n, found.data(), statuses.data(),
                                              stream);
          return;
        }
      }
      table.find_async(keys.data(), n, found.data(), statuses.data(), stream);
    };
    if (writes)
      find_all();
    else
      ms = timer.time(find_all, stream);
    require_all(count_unexpected<key_type, value_type>(backend{}, keys.data(), found.data(),
                                                       statuses.data(), n, status::found, stream),
                n, "finds");
    if (repetition >= 0) report.ops[0].ms.push_back(ms);
  }
  report.capacity = table.capacity();
  report.memory_bytes = table.memory_bytes();
  return report;
}

/// Runs f(backend-typed keep) on each chosen backend with a readable table.
template <class Run>
void on_each_backend(context& ctx, const std::string& experiment, Run&& run) {
  for_each_backend(ctx, [&]<class Backend>() {
    rate_table table(ctx, experiment, std::string(Backend::name));
    sweep_point base = repetitions_from(ctx);
    base.load_factor = 1.0;
    base.keys.kind = distinct_distribution(ctx, experiment);
    const auto keep = [&](const point_report& report) { record(ctx, experiment, table, report); };
    for (const std::uint64_t n :
         ctx.arguments().sizes("n", default_sizes(Backend::host_accessible))) {
      base.n = n;
      run.template operator()<Backend>(base, keep);
    }
  });
}

/// Static sets in each layout with one build algorithm, timing `work`.
template <class Backend, class Keep>
void static_sets(context& ctx, const sweep_point& point, hashgraph_build build, hashgraph_work work,
                 Keep&& keep) {
  for (const segment_layout segments : all_layouts) {
    static_case c;
    c.segments = segments;
    c.build = build;
    c.work = work;
    c.buckets_per_bin = ctx.arguments().size("bin-buckets", c.buckets_per_bin);
    if (ctx.selected_design(static_case_label(c), {"all"}))
      keep(time_static_hashgraph<Backend>(point, c));
  }
}

/// The comparison columns and the dynamic maps, 32/32.
template <class Backend, class Keep>
void dynamic_columns(context& ctx, const sweep_point& point, dynamic_work work, Keep&& keep) {
  using K = std::uint32_t;
  const auto run = [&]<class Table>(const std::string& label) {
    if (ctx.selected_design(label, {"all"})) keep(time_dynamic<Table>(point, work, label));
  };
  // On the CPU, std::unordered_map with the same Murmur hash (one thread).
  if constexpr (Backend::host_accessible)
    run.template operator()<std_unordered_map_table<K, K>>("std_unordered_map");
  run.template operator()<dachash_slab_map<K, K, Backend>>("dachash_slab");
  run.template operator()<bucketed_cuckoo_map<K, K, Backend>>("bucketed_cuckoo");
  run.template operator()<hashgraph_csr_map<K, K, Backend>>("hashgraph_dyn_csr");
  run.template operator()<hashgraph_ellpack_map<K, K, Backend>>("hashgraph_dyn_ellpack");
  run.template operator()<hashgraph_sliced_ellpack_map<K, K, Backend>>(
      "hashgraph_dyn_sliced_ellpack");
}

/// The static map in each layout and pair layout.
template <class Backend, class Keep>
void static_maps(context& ctx, const sweep_point& point, hashgraph_work work, Keep&& keep) {
  for (const pair_layout pairs : all_pairs) {
    for (const segment_layout segments : all_layouts) {
      static_case c;
      c.map = true;
      c.pairs = pairs;
      c.segments = segments;
      c.work = work;
      if (ctx.selected_design(static_case_label(c), {"all"}))
        keep(time_static_hashgraph<Backend>(point, c));
    }
  }
}

experiment cpu_against_std(const char* name, const char* description,
                           std::vector<hashgraph_work> works) {
  return {name, description, [name, works](context& ctx) {
            on_each_backend(ctx, name, [&]<class Backend>(const sweep_point& point, auto&& keep) {
              for (const hashgraph_work work : works) {
                if constexpr (Backend::host_accessible) {
                  if (ctx.selected_design("std_unordered_set", {"all"}))
                    keep(time_unordered_set(point, work));
                }
                static_sets<Backend>(ctx, point, hashgraph_build::binned, work, keep);
              }
            });
          }};
}

}  // namespace

std::vector<experiment> hashgraph_experiments() {
  std::vector<experiment> list;
  list.push_back(
      {"hashgraph.fig4_1",
       "slots allocated per key by each segment layout (static set, binned build) vs N; the "
       "build is timed too (--n: 10..100 M GPU, 1..10 M CPU)",
       [](context& ctx) {
         on_each_backend(ctx, "hashgraph.fig4_1",
                         [&]<class Backend>(const sweep_point& point, auto&& keep) {
                           static_sets<Backend>(ctx, point, hashgraph_build::binned,
                                                hashgraph_work::build, keep);
                         });
       }});
  list.push_back(cpu_against_std(
      "hashgraph.fig4_2",
      "CPU build of the static set (binned build, each layout) vs std::unordered_set with the "
      "same Murmur hash (--n: 1..10 M; fig4_3 is its speedup plot)",
      {hashgraph_work::build}));
  list.push_back(cpu_against_std(
      "hashgraph.fig4_4",
      "CPU retrieve of the static set with Probe-New (the thesis' choice) and Probe-Standard "
      "vs std::unordered_set (--n: 1..10 M; fig4_5 is its speedup plot)",
      {hashgraph_work::probe_binned, hashgraph_work::probe_standard}));
  list.push_back(
      {"hashgraph.fig4_6",
       "build of the static set: direct (V1), binned (V2) and sorted builds in each "
       "layout (--n: 10..100 M GPU; --bin-buckets, default 4096)",
       [](context& ctx) {
         on_each_backend(
             ctx, "hashgraph.fig4_6", [&]<class Backend>(const sweep_point& point, auto&& keep) {
               for (const auto build :
                    {hashgraph_build::direct, hashgraph_build::binned, hashgraph_build::sorted})
                 static_sets<Backend>(ctx, point, build, hashgraph_work::build, keep);
             });
       }});
  list.push_back(
      {"hashgraph.fig4_7",
       "GPU build speedup over std::unordered_set: the static set (binned build, each layout) "
       "on the chosen backend and std::unordered_set on this machine's CPU, one thread "
       "(--n: 10, 20, 50 M)",
       [](context& ctx) {
         const auto sizes = ctx.arguments().sizes("n", {10 * million, 20 * million, 50 * million});
         for_each_backend(ctx, [&]<class Backend>() {
           rate_table table(ctx, "hashgraph.fig4_7", std::string(Backend::name));
           sweep_point point = repetitions_from(ctx);
           point.load_factor = 1.0;
           point.keys.kind = distinct_distribution(ctx, "hashgraph.fig4_7");
           const auto keep = [&](const point_report& report) {
             record(ctx, "hashgraph.fig4_7", table, report);
           };
           for (const std::uint64_t n : sizes) {
             point.n = n;
             if (ctx.selected_design("std_unordered_set", {"all"}))
               keep(time_unordered_set(point, hashgraph_work::build));
             static_sets<Backend>(ctx, point, hashgraph_build::binned, hashgraph_work::build, keep);
           }
         });
       }});
  list.push_back({"hashgraph.fig4_8",
                  "build of the static set (binned) vs the dynamic map (inserting into an "
                  "empty table) in each layout (--n)",
                  [](context& ctx) {
                    on_each_backend(ctx, "hashgraph.fig4_8",
                                    [&]<class Backend>(const sweep_point& point, auto&& keep) {
                                      static_sets<Backend>(ctx, point, hashgraph_build::binned,
                                                           hashgraph_work::build, keep);
                                      dynamic_columns<Backend>(ctx, point, dynamic_work::build,
                                                               keep);
                                    });
                  }});
  list.push_back(
      {"hashgraph.fig4_9", "retrieve (Probe-Standard) of the static set vs the dynamic map (--n)",
       [](context& ctx) {
         on_each_backend(ctx, "hashgraph.fig4_9",
                         [&]<class Backend>(const sweep_point& point, auto&& keep) {
                           static_sets<Backend>(ctx, point, hashgraph_build::binned,
                                                hashgraph_work::probe_standard, keep);
                           dynamic_columns<Backend>(ctx, point, dynamic_work::retrieve, keep);
                         });
       }});
  list.push_back({"hashgraph.fig4_10",
                  "retrieve of the static set with Probe-Standard and Probe-New in each layout "
                  "(--n)",
                  [](context& ctx) {
                    on_each_backend(
                        ctx, "hashgraph.fig4_10",
                        [&]<class Backend>(const sweep_point& point, auto&& keep) {
                          for (const auto work :
                               {hashgraph_work::probe_standard, hashgraph_work::probe_binned})
                            static_sets<Backend>(ctx, point, hashgraph_build::binned, work, keep);
                        });
                  }});
  const auto map_table = [](const char* name, const char* description, hashgraph_work work,
                            dynamic_work dynamic) -> experiment {
    return {name, description, [=](context& ctx) {
              on_each_backend(ctx, name, [&]<class Backend>(const sweep_point& point, auto&& keep) {
                dynamic_columns<Backend>(ctx, point, dynamic, keep);
                static_maps<Backend>(ctx, point, work, keep);
              });
            }};
  };
  list.push_back(map_table("hashgraph.table4_1",
                           "map build, 32/32 pairs: slab preset, bucketed cuckoo, dynamic map, "
                           "static map (AoS and SoA) in each layout (--n)",
                           hashgraph_work::build, dynamic_work::build));
  list.push_back(map_table("hashgraph.table4_2",
                           "map retrieve with Probe-Standard, the columns of table4_1 (--n)",
                           hashgraph_work::probe_standard, dynamic_work::retrieve));
  list.push_back(map_table("hashgraph.table4_3",
                           "map retrieve with Probe-New for the static maps (the others: their "
                           "own find) (--n)",
                           hashgraph_work::probe_binned, dynamic_work::retrieve));
  list.push_back({"hashgraph.table4_4",
                  "inserting N pairs in 100 batches into a table sized for them: slab preset, "
                  "bucketed cuckoo, dynamic map in each layout (--n)",
                  [](context& ctx) {
                    on_each_backend(ctx, "hashgraph.table4_4",
                                    [&]<class Backend>(const sweep_point& point, auto&& keep) {
                                      dynamic_columns<Backend>(ctx, point,
                                                               dynamic_work::insert_batches, keep);
                                    });
                  }});
  list.push_back({"hashgraph.fig4_16",
                  "retrieve (Probe-Standard) after inserting in 100 batches, the columns of "
                  "table4_4 (--n)",
                  [](context& ctx) {
                    on_each_backend(ctx, "hashgraph.fig4_16",
                                    [&]<class Backend>(const sweep_point& point, auto&& keep) {
                                      dynamic_columns<Backend>(
                                          ctx, point, dynamic_work::retrieve_batched, keep);
                                    });
                  }});
  list.push_back({"hashgraph.fig4_17",
                  "retrieve with Probe-New after inserting in 100 batches: the dynamic maps' "
                  "find in bucket order (the slab preset and bucketed cuckoo: their own find) "
                  "(--n)",
                  [](context& ctx) {
                    on_each_backend(ctx, "hashgraph.fig4_17",
                                    [&]<class Backend>(const sweep_point& point, auto&& keep) {
                                      dynamic_columns<Backend>(
                                          ctx, point,
                                          dynamic_work::retrieve_batched_in_bucket_order, keep);
                                    });
                  }});
  return list;
}

}  // namespace gpuhash::bench
