// The Cuckoo Node Hashing experiments (cuckoo-node-hashing-paper.txt, V),
// with the paper's settings unless the command line changes them: 2^25 keys,
// nodes of 2^7 key slots, |H| = 4, max_loop 2^6, the warp-cooperative reorder
// with a combining factor of 2^7. The designs compared:
//   cuckoo_node_paper             the paper's settings (cuckoo_node_paper_map)
//   cuckoo_node_paper_no_reorder  the same without the reorder
//   cuckoo_node                   the library's default: 32-slot nodes, no reorder
//   cuckoo_node_local             our variant: the paper's node with a key's
//                                 |H| = 8 positions in two spans, no reorder
//   dachash_paper                 DACHash as the paper ran it: 32x4-byte nodes,
//                                 Alg. 1's reorder combining 2^10 buckets
//   dachash_slab                  SlabHash's design (DACHash's slab preset)
// Each point builds a table of the given bucket count from the point's n keys
// (pool nodes reserved ahead, and added by the warm-up build where chains
// need more: nothing grows while timed) and times the
// build, a search of the n keys, or a search of n absent keys. The reorder's
// time is inside every timed batch that uses it. Rules of basic_ops.hpp:
// fresh keys per repetition, a warm-up then the median of >= 5, every result
// checked after timing.
//
// cnh.fig6 times the two reorders alone (bench/cuckoo_node/reorder_runs.hpp);
// cnh.table1 counts probes on the CPU (the counts do not depend on the
// device).

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../basic_ops.hpp"
#include "../cuckoo_node/reorder_runs.hpp"
#include "../json.hpp"
#include "../report.hpp"
#include "../sweep.hpp"
#include "../variants/cuckoo_node_variants.hpp"
#include "../variants/dachash_variants.hpp"
#include "../workload.hpp"
#include "experiments.hpp"
#include "gpuhash/cuckoo_node_map.hpp"
#include "gpuhash/dachash_map.hpp"
#include "gpuhash/map.hpp"

namespace gpuhash::bench {

namespace {

/// The paper's Table I, Cuckoo Node Hashing's columns: (buckets, found,
/// not found).
struct paper_row {
  std::uint64_t buckets;
  double found;
  double not_found;
};
constexpr paper_row paper_table1[] = {{32768, 16.92, 36.59}, {65536, 8.89, 20.15},
                                      {131072, 4.82, 12.03}, {262144, 2.65, 8.00},
                                      {524288, 1.52, 5.32},  {1048576, 1.19, 4.05}};

/// Table I's tables: our insert policy, and the paper's (view.hpp).
using counting_map =
    cuckoo_node_map_with<std::uint32_t, std::uint32_t, cpu_backend, probe_counting_preset>;
using counting_paper_insert_map = cuckoo_node_map_with<std::uint32_t, std::uint32_t, cpu_backend,
                                                       probe_counting_paper_insert_preset>;

/// Table I for one insert policy (`policy`: "ours" or "paper"). The
/// paper's row for a bucket count is the one with as many keys per bucket
/// (its 2^25 keys over its bucket count), so that smaller --n compare too.
template <class Table>
void table1_rows(context& ctx, const char* policy, const std::vector<std::uint32_t>& keys,
                 const std::vector<std::uint32_t>& values, const std::vector<std::uint32_t>& absent,
                 const std::vector<std::uint64_t>& bucket_counts) {
  const std::uint64_t n = keys.size();
  const std::string device = device_name("cpu");
  for (const std::uint64_t buckets : bucket_counts) {
    Table table(table_options{buckets * 128, 1.0f, 0x5eed5eedULL});
    std::vector<status> statuses(n);
    table.insert(keys.data(), values.data(), n, statuses.data());
    std::vector<std::uint32_t> found(n);
    table.engine().reset_probes({});
    table.find(keys.data(), n, found.data(), statuses.data());
    std::uint64_t missing = 0;
    for (const status s : statuses) missing += s != status::found;
    table.find(absent.data(), n, found.data(), statuses.data());
    for (const status s : statuses) missing += s != status::not_found;
    require_all(missing, 2 * n, "cnh.table1 searches");
    const auto tally = table.engine().probes({});
    const double kf =
        static_cast<double>(tally.found_probes) / static_cast<double>(tally.found_searches);
    const double knf =
        static_cast<double>(tally.missed_probes) / static_cast<double>(tally.missed_searches);
    double paper_found = 0, paper_missed = 0;
    const double keys_per_bucket = static_cast<double>(n) / static_cast<double>(buckets);
    for (const auto& row : paper_table1)
      if (static_cast<double>(std::uint64_t{1} << 25) / static_cast<double>(row.buckets) ==
          keys_per_bucket)
        paper_found = row.found, paper_missed = row.not_found;
    const std::size_t chain_nodes =
        buckets + table.engine().pool_nodes() - table.engine().free_nodes({});
    const double nodes = static_cast<double>(chain_nodes) / static_cast<double>(buckets);
    std::printf("%-7s %-10llu %-12.2f %-12.2f %-14.2f %-14.2f %-8.2f\n", policy,
                static_cast<unsigned long long>(buckets), kf, knf, paper_found, paper_missed,
                nodes);
    json_line line;
    line.add("experiment", "cnh.table1")
        .add("design", "cuckoo_node")
        .add("insert_policy", policy)
        .add("backend", "cpu")
        .add("device", device)
        .add("commit", ctx.commit())
        .add("key_bits", 32)
        .add("value_bits", 32)
        .add("n", n)
        .add("buckets", buckets)
        .add("node_slots", std::uint64_t{128})
        .add("choices", std::uint64_t{4})
        .add("probes_found", kf)
        .add("probes_not_found", knf)
        .add("nodes_per_bucket", nodes)
        .add("paper_probes_found", paper_found)
        .add("paper_probes_not_found", paper_missed)
        .add("verified", true);
    ctx.emit(line.str());
  }
}

void run_table1(context& ctx) {
  const auto& a = ctx.arguments();
  const std::uint64_t n = a.size("n", std::uint64_t{1} << 25);
  const auto bucket_counts =
      a.sizes("buckets", {1u << 15, 1u << 16, 1u << 17, 1u << 18, 1u << 19, 1u << 20});
  const sweep_point base = repetitions_from(ctx);
  std::printf("\ncnh.table1 on %s: %llu keys, 128-slot nodes, |H| = 4, max_loop 64\n",
              device_name("cpu").c_str(), static_cast<unsigned long long>(n));
  std::printf("%-7s %-10s %-12s %-12s %-14s %-14s %-8s\n", "insert", "buckets", "found",
              "not found", "paper found", "paper missed", "nodes");
  std::vector<std::uint32_t> keys(n), values(n), absent(n), absent_values(n);
  key_spec spec = base.keys;
  generate_keys<std::uint32_t, std::uint32_t>(cpu_backend{}, spec, 0, n, keys.data(), values.data(),
                                              {});
  // Generator indices [n, 2n): distinct from the stored keys.
  generate_keys<std::uint32_t, std::uint32_t>(cpu_backend{}, spec, n, n, absent.data(),
                                              absent_values.data(), {});
  const auto policies = a.list("insert", {"ours", "paper"});
  for (const auto& policy : policies) {
    if (policy == "ours")
      table1_rows<counting_map>(ctx, "ours", keys, values, absent, bucket_counts);
    else if (policy == "paper")
      table1_rows<counting_paper_insert_map>(ctx, "paper", keys, values, absent, bucket_counts);
    else
      throw std::invalid_argument("--insert: ours or paper, not " + policy);
  }
}

/// What a point times.
enum class workload { build, search_present, search_absent };

const char* name_of(workload work) {
  switch (work) {
    case workload::build: return "build";
    case workload::search_present: return "search_present";
    case workload::search_absent: return "search_absent";
  }
  return "unknown";
}

/// Key slots per node of a chained design (Cuckoo Node Hashing's slots,
/// DACHash's pairs), for sizing a table by its bucket count.
template <class Table>
constexpr std::uint64_t slots_per_node() {
  if constexpr (requires { Table::engine_type::slots_per_node; })
    return Table::engine_type::slots_per_node;
  else
    return Table::engine_type::pairs_per_node;
}

/// The paper's combining factors: 2^7 for Cuckoo Node Hashing, 2^10 for
/// DACHash.
constexpr std::uint64_t cnh_combining = 128;
constexpr std::uint64_t dachash_combining = 1024;

/// One table at one point: `buckets` buckets, the engine configured by
/// configure(engine) before the keys go in.
template <class Table, class Configure>
point_report run_case(const sweep_point& point, const std::string& label, std::uint64_t buckets,
                      std::uint64_t combining, Configure&& configure, workload work) {
  using backend = typename Table::backend_type;
  using key_type = typename Table::key_type;
  using value_type = typename Table::mapped_type;
  const std::uint64_t n = point.n;
  const typename backend::stream_type stream{};

  Table table(table_options{buckets * slots_per_node<Table>(), 0.0f, 0x5eed5eedULL});
  if (table.engine().buckets() != buckets)
    throw std::runtime_error("cnh: the table has " + std::to_string(table.engine().buckets()) +
                             " buckets, not " + std::to_string(buckets));
  table.reserve(n);  // room for the keys; chains' extra nodes come in the warm-up
  configure(table.engine());
  std::size_t capacity = table.capacity();

  auto keys = backend::template allocate<key_type>(n);
  auto values = backend::template allocate<value_type>(n);
  auto absent = backend::template allocate<key_type>(work == workload::search_absent ? n : 0);
  auto absent_values =
      backend::template allocate<value_type>(work == workload::search_absent ? n : 0);
  auto found = backend::template allocate<value_type>(n);
  auto statuses = backend::template allocate<status>(n);

  point_report report = report_for<Table>(
      point, {{name_of(work), judge(table, work == workload::build            ? "insert"
                                           : work == workload::search_present ? "find_hit"
                                                                              : "find_miss")}});
  report.design = label;
  report.parameters = {{"buckets", static_cast<double>(buckets)},
                       {"node_slots", static_cast<double>(slots_per_node<Table>())},
                       {"combining_factor", static_cast<double>(combining)},
                       {"keys_per_bucket", static_cast<double>(n) / static_cast<double>(buckets)}};

  step_timer<backend> timer;
  for (int repetition = -point.warmups; repetition < point.repetitions; ++repetition) {
    const key_spec spec = repetition_keys(point, repetition);
    generate_keys<key_type, value_type>(backend{}, spec, 0, n, keys.data(), values.data(), stream);
    if (work == workload::search_absent)  // generator indices [n, 2n): not stored
      generate_keys<key_type, value_type>(backend{}, spec, n, n, absent.data(),
                                          absent_values.data(), stream);
    table.clear(stream);
    backend::synchronize(stream);
    const auto build = [&] {
      table.insert(keys.data(), values.data(), n, statuses.data(), stream);
    };
    double ms = 0;
    if (work == workload::build)
      ms = timer.time(build, stream);
    else
      build();
    require_all(count_unexpected<key_type, value_type>(
                    backend{}, keys.data(), nullptr, statuses.data(), n, status::inserted, stream),
                n, "build");
    // The warm-up build may add pool nodes (chains that overflow their head
    // need more than reserve's count of slots); timed builds may not.
    if (repetition < 0) capacity = table.capacity();
    require_no_growth(table, capacity);
    if (work != workload::build) {
      const bool present = work == workload::search_present;
      const key_type* queries = present ? keys.data() : absent.data();
      ms = timer.time([&] { table.find_async(queries, n, found.data(), statuses.data(), stream); },
                      stream);
      require_all(count_unexpected<key_type, value_type>(
                      backend{}, queries, present ? found.data() : nullptr, statuses.data(), n,
                      present ? status::found : status::not_found, stream),
                  n, name_of(work));
    }
    if (repetition >= 0) report.ops[0].ms.push_back(ms);
  }
  report.capacity = table.capacity();
  report.memory_bytes = table.memory_bytes();
  return report;
}

/// The designs of figs. 8 to 11 at one bucket count (32/32-bit pairs).
template <class Backend, class Keep>
void compare_designs(const context& ctx, const sweep_point& point, std::uint64_t buckets,
                     workload work, Keep&& keep) {
  using key = std::uint32_t;
  const auto cnh_reorder = [](std::uint64_t combining) {
    return [combining](auto& engine) {
      engine.configure({combining, reorder_scheme::warp_cooperative});
    };
  };
  const auto dachash_reorder = [](std::uint64_t combining) {
    return [combining](auto& engine) {
      auto s = engine.settings();
      s.combined_buckets = combining;
      engine.configure(s);
    };
  };
  using paper = cuckoo_node_paper_map<key, key, Backend>;
  if (ctx.selected_design("cuckoo_node_paper", {"all"}))
    keep(run_case<paper>(point, "cuckoo_node_paper", buckets, cnh_combining,
                         cnh_reorder(cnh_combining), work));
  if (ctx.selected_design("cuckoo_node_paper_no_reorder", {"all"}))
    keep(run_case<paper>(point, "cuckoo_node_paper_no_reorder", buckets, 0, cnh_reorder(0), work));
  if (ctx.selected_design("cuckoo_node", {"all"}))
    keep(run_case<cuckoo_node_map<key, key, Backend>>(point, "cuckoo_node", buckets, 0,
                                                      cnh_reorder(0), work));
  if (ctx.selected_design("cuckoo_node_local", {"all"}))
    keep(run_case<cuckoo_node_local_map<key, key, Backend>>(point, "cuckoo_node_local", buckets, 0,
                                                            cnh_reorder(0), work));
  if (ctx.selected_design("dachash_paper", {"all"}))
    keep(run_case<dachash_paper_map<key, key, Backend>>(point, "dachash_paper", buckets,
                                                        dachash_combining,
                                                        dachash_reorder(dachash_combining), work));
  if (ctx.selected_design("dachash_slab", {"all"}))
    keep(run_case<dachash_slab_map<key, key, Backend>>(point, "dachash_slab", buckets, 0,
                                                       dachash_reorder(0), work));
}

const std::vector<std::uint64_t> paper_bucket_counts{1u << 15, 1u << 16, 1u << 17,
                                                     1u << 18, 1u << 19, 1u << 20};

/// Runs f<Backend>(base point, keep) on each backend chosen and records the
/// reports. The paper's 2^25 keys on the GPU; on the CPU 2^20 keys, with the
/// bucket counts scaled by the same 2^-5 so that chains are as long.
template <class Run>
void on_each_backend(context& ctx, const std::string& experiment, Run&& run) {
  record_on_each_backend(ctx, experiment, std::uint64_t{1} << 20, std::uint64_t{1} << 25,
                         std::forward<Run>(run));
}

/// The bucket counts of figs. 8, 9, 11 (--buckets): the paper's on the GPU,
/// scaled down by 2^5 with the keys on the CPU.
std::vector<std::uint64_t> bucket_counts(const context& ctx, bool on_cpu) {
  std::vector<std::uint64_t> fallback = paper_bucket_counts;
  if (on_cpu)
    for (auto& b : fallback) b >>= 5;
  return ctx.arguments().sizes("buckets", fallback);
}

void versus_bucket_count(context& ctx, const std::string& experiment, workload work) {
  on_each_backend(ctx, experiment, [&]<class Backend>(const sweep_point& base, auto&& keep) {
    for (const std::uint64_t buckets : bucket_counts(ctx, Backend::host_accessible))
      compare_designs<Backend>(ctx, base, buckets, work, keep);
  });
}

experiment fig6() {
  return {"cnh.fig6",
          "reorder rate vs combining factor 2^0..2^15: the warp-cooperative reorder (Alg. 3) "
          "with slack and with the paper's exact rows (cnh_reorder_paper_width, from 2^4 unless "
          "--design names it) vs DACHash's (Alg. 1), 2^25 keys for 2^21 buckets (--n; "
          "--buckets; --combined), the new order and the keys gathered into it",
          [](context& ctx) {
            on_each_backend(ctx, "cnh.fig6", [&]<class Backend>(sweep_point base, auto&& keep) {
              const std::uint64_t buckets = ctx.arguments().size(
                  "buckets", Backend::host_accessible ? (1u << 16) : (1u << 21));
              std::vector<double> fallback;
              for (int e = 0; e <= 15; ++e) fallback.push_back(static_cast<double>(1u << e));
              for (const double c : ctx.arguments().numbers("combined", fallback)) {
                const auto combined = static_cast<std::uint64_t>(c);
                const auto cooperative = reorder_scheme::warp_cooperative;
                if (ctx.selected_design("cnh_reorder", {"all"}))
                  keep(time_reorder<Backend>(base, cooperative, false, buckets, combined));
                // The paper's exact rows are slow below a combining factor of 2^4
                // (docs/results/cuckoo_node.md): run there only when asked for.
                if (ctx.selected_design("cnh_reorder_paper_width", {"all"}) &&
                    (combined >= 16 || ctx.selected_design("cnh_reorder_paper_width", {})))
                  keep(time_reorder<Backend>(base, cooperative, true, buckets, combined));
                if (ctx.selected_design("dachash_reorder", {"all"}))
                  keep(time_reorder<Backend>(base, reorder_scheme::rows, false, buckets, combined));
              }
            });
          }};
}

experiment fig10() {
  return {"cnh.fig10",
          "search, keys present, vs input size 2^20..2^26 at 2^20 buckets (CPU: 2^15..2^21 "
          "keys, 2^15 buckets); the paper's settings against DACHash and the slab preset (--n; "
          "--buckets)",
          [](context& ctx) {
            on_each_backend(ctx, "cnh.fig10", [&]<class Backend>(sweep_point base, auto&& keep) {
              const bool cpu = Backend::host_accessible;
              const std::uint64_t buckets =
                  ctx.arguments().size("buckets", cpu ? (1u << 15) : (1u << 20));
              std::vector<std::uint64_t> fallback;
              for (int e = 20; e <= 26; ++e)
                fallback.push_back((std::uint64_t{1} << e) >> (cpu ? 5 : 0));
              for (const std::uint64_t n : ctx.arguments().sizes("n", fallback)) {
                base.n = n;
                compare_designs<Backend>(ctx, base, buckets, workload::search_present, keep);
              }
            });
          }};
}

experiment fig12() {
  return {"cnh.fig12",
          "search, keys present, vs node size at 2^17 buckets (CPU 2^12), 2^25 keys (CPU "
          "2^20): Cuckoo Node Hashing with 8 to 256 key slots (reorder combining 2^7) against "
          "DACHash with 4x4- to 32x4-byte nodes (reorder combining 2^10); sizes besides 32 "
          "and 128 slots, and DACHash's 4x4 and 8x4, need GPUHASH_BENCH_VARIANTS (--n; "
          "--buckets)",
          [](context& ctx) {
            on_each_backend(ctx, "cnh.fig12", [&]<class Backend>(sweep_point base, auto&& keep) {
              const std::uint64_t buckets = ctx.arguments().size(
                  "buckets", Backend::host_accessible ? (1u << 12) : (1u << 17));
              using key = std::uint32_t;
              if (ctx.selected_design("cuckoo_node", {"all"}))
                support::for_each_type(cuckoo_node_sizes{}, [&]<class Preset>() {
                  using Table = cuckoo_node_map_with<key, key, Backend, Preset>;
                  keep(run_case<Table>(
                      base, "cuckoo_node", buckets, cnh_combining,
                      [](auto& engine) {
                        engine.configure({cnh_combining, reorder_scheme::warp_cooperative});
                      },
                      workload::search_present));
                });
              if (ctx.selected_design("dachash", {"all"}))
                support::for_each_type(node_size_configurations{}, [&]<class Preset>() {
                  using Table = dachash_map_with<key, key, Backend, Preset>;
                  keep(run_case<Table>(
                      base, "dachash", buckets, dachash_combining,
                      [](auto& engine) {
                        auto s = engine.settings();
                        s.combined_buckets = dachash_combining;
                        engine.configure(s);
                      },
                      workload::search_present));
                });
            });
          }};
}

experiment cnh_table1() {
  return {"cnh.table1",
          "average probes per search (slots compared), keys found and not found, vs bucket "
          "count 2^15..2^20: 2^25 keys, 128-slot nodes, |H| = 4, max_loop 64, the paper's Table "
          "I, with our insert policy and the paper's (--n, --buckets, --insert=ours,paper); "
          "counted on the CPU backend: the counts do not depend on the device",
          [](context& ctx) { run_table1(ctx); }};
}

}  // namespace

std::vector<experiment> cnh_experiments() {
  return {
      fig6(),
      {"cnh.fig8",
       "build vs bucket count 2^15..2^20 (CPU 2^10..2^15), 2^25 keys (CPU 2^20): the paper's "
       "settings against DACHash's paper preset and the slab preset (--n; --buckets)",
       [](context& ctx) { versus_bucket_count(ctx, "cnh.fig8", workload::build); }},
      {"cnh.fig9",
       "search, keys present, vs bucket count 2^15..2^20 (CPU 2^10..2^15), 2^25 keys (CPU "
       "2^20) (--n; --buckets)",
       [](context& ctx) { versus_bucket_count(ctx, "cnh.fig9", workload::search_present); }},
      fig10(),
      {"cnh.fig11",
       "search, keys absent, vs bucket count 2^15..2^20 (CPU 2^10..2^15), 2^25 keys (CPU "
       "2^20) (--n; --buckets)",
       [](context& ctx) { versus_bucket_count(ctx, "cnh.fig11", workload::search_absent); }},
      fig12(),
      cnh_table1(),
  };
}

}  // namespace gpuhash::bench
