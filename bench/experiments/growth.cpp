// bucketed_cuckoo.growth and hashgraph.growth: growth by rebuilding against
// growth by added subtables (for HashGraph: overflow tables, the thesis'
// point 3). n keys are inserted in batches (synchronous inserts) into
//  * a table created small, which rebuilds itself larger as needed (the
//    library's growth),
//  * a chain of subtables created small, which adds a table instead
//    (subtable_chain.hpp),
//  * a table created for all n keys (no growth: the baseline),
// and then the grown table and the chain are searched for the n keys and for
// n absent ones: rebuilding costs inserts once, subtables cost every later
// search. Every design that can be selected runs (bucketed cuckoo and linear
// probing, or the dynamic HashGraph layouts, by default); every result is
// checked.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "../json.hpp"
#include "../report.hpp"
#include "../sweep.hpp"
#include "../tables.hpp"
#include "../timer.hpp"
#include "experiments.hpp"
#include "subtable_chain.hpp"

namespace gpuhash::bench {

namespace {

struct growth_timings {
  std::vector<double> grown_ms, presized_ms, subtables_ms;
  std::vector<double> grown_hit_ms, grown_miss_ms, subtables_hit_ms, subtables_miss_ms;
  std::size_t grown_capacity = 0;
  std::size_t presized_capacity = 0;
  std::size_t subtables_capacity = 0;
  std::size_t subtables = 0;
};

/// Inserts keys [0, n) in batches of `batch` into `table` (a map or a
/// subtable chain); returns the time.
template <class Table, class Backend>
double insert_in_batches(Table& table, step_timer<Backend>& timer,
                         const typename Table::key_type* keys,
                         const typename Table::mapped_type* values, std::uint64_t n,
                         std::uint64_t batch, status* statuses) {
  const typename Backend::stream_type stream{};
  return timer.time(
      [&] {
        for (std::uint64_t first = 0; first < n; first += batch)
          table.insert(keys + first, values + first, std::min(batch, n - first), statuses + first,
                       stream);
      },
      stream);
}

template <class Table>
growth_timings time_growth(std::uint64_t n, std::uint64_t batch, std::uint64_t initial,
                           const sweep_point& base) {
  using backend = typename Table::backend_type;
  using key_type = typename Table::key_type;
  using value_type = typename Table::mapped_type;
  const typename backend::stream_type stream{};
  auto keys = backend::template allocate<key_type>(n);
  auto values = backend::template allocate<value_type>(n);
  auto absent = backend::template allocate<key_type>(n);
  auto absent_values = backend::template allocate<value_type>(n);
  auto found = backend::template allocate<value_type>(n);
  auto statuses = backend::template allocate<status>(n);
  step_timer<backend> timer;
  growth_timings out;
  const auto require_statuses = [&](const key_type* queried, const value_type* expected_values,
                                    status expected, const char* what) {
    require_all(count_unexpected<key_type, value_type>(backend{}, queried, expected_values,
                                                       statuses.data(), n, expected, stream),
                n, what);
  };
  for (int repetition = -base.warmups; repetition < base.repetitions; ++repetition) {
    key_spec spec = base.keys;
    spec.seed = murmur3_fmix64(base.keys.seed + static_cast<std::uint64_t>(repetition + 1000));
    generate_keys<key_type, value_type>(backend{}, spec, 0, n, keys.data(), values.data(), stream);
    generate_keys<key_type, value_type>(backend{}, spec, n, n, absent.data(), absent_values.data(),
                                        stream);
    backend::synchronize(stream);
    // Times finds of the n keys and of n absent ones in `table`, checked.
    const auto time_finds = [&](auto& table, std::vector<double>& hit_ms,
                                std::vector<double>& miss_ms, const char* what) {
      const double hit = timer.time(
          [&] { table.find(keys.data(), n, found.data(), statuses.data(), stream); }, stream);
      require_statuses(keys.data(), found.data(), status::found, what);
      const double miss = timer.time(
          [&] { table.find(absent.data(), n, found.data(), statuses.data(), stream); }, stream);
      require_statuses(absent.data(), nullptr, status::not_found, what);
      if (repetition < 0) return;
      hit_ms.push_back(hit);
      miss_ms.push_back(miss);
    };

    Table grown(table_options{initial, 0.0f, spec.seed});
    const double grown_ms =
        insert_in_batches(grown, timer, keys.data(), values.data(), n, batch, statuses.data());
    require_statuses(keys.data(), nullptr, status::inserted, "insert with growth");
    if (grown.size() != n) throw std::runtime_error("insert with growth: wrong size");
    time_finds(grown, out.grown_hit_ms, out.grown_miss_ms, "find after growth");
    out.grown_capacity = grown.capacity();

    subtable_chain<Table> chain(initial, spec.seed);
    const double subtables_ms =
        insert_in_batches(chain, timer, keys.data(), values.data(), n, batch, statuses.data());
    require_statuses(keys.data(), nullptr, status::inserted, "insert into subtables");
    if (chain.size() != n) throw std::runtime_error("insert into subtables: wrong size");
    time_finds(chain, out.subtables_hit_ms, out.subtables_miss_ms, "find in subtables");
    out.subtables_capacity = chain.capacity();
    out.subtables = chain.tables();

    // The same default load limit, with room for all n keys from the start.
    Table presized(table_options{
        static_cast<std::size_t>(static_cast<double>(n) / grown.max_load_factor()) + 1, 0.0f,
        spec.seed});
    const std::size_t presized_capacity = presized.capacity();
    const double presized_ms =
        insert_in_batches(presized, timer, keys.data(), values.data(), n, batch, statuses.data());
    require_statuses(keys.data(), nullptr, status::inserted, "insert into a presized table");
    if (presized.capacity() != presized_capacity)
      throw std::runtime_error("the presized table grew: the benchmark sized it wrong");
    out.presized_capacity = presized_capacity;
    if (repetition < 0) continue;
    out.grown_ms.push_back(grown_ms);
    out.presized_ms.push_back(presized_ms);
    out.subtables_ms.push_back(subtables_ms);
  }
  return out;
}

template <class Backend>
void run_growth(context& ctx, const std::string& experiment_name,
                const std::vector<std::string>& designs) {
  const auto& a = ctx.arguments();
  const std::uint64_t n = a.size("n", Backend::host_accessible ? (1u << 22) : (1u << 26));
  const std::uint64_t batch = a.size("batch", n / 16);
  const std::uint64_t initial = a.size("initial", 1024);
  sweep_point base = repetitions_from(ctx);
  base.keys.kind = distinct_distribution(ctx, experiment_name);
  const std::string device = device_name(std::string(Backend::name));
  std::printf("\n%s on %s: %llu keys in batches of %llu, from %llu slots\n",
              experiment_name.c_str(), device.c_str(), static_cast<unsigned long long>(n),
              static_cast<unsigned long long>(batch), static_cast<unsigned long long>(initial));
  std::printf("%-16s %-5s %-22s %-22s %-22s %-10s\n", "design", "bits", "insert ms: rebuild",
              "subtables", "presized", "tables");
  for_each_design<Backend>([&]<class Table>() {
    if (!ctx.selected_design(Table::design_name, designs)) return;
    const int bits = static_cast<int>(8 * sizeof(typename Table::key_type));
    if (!ctx.selected_width(bits, {"32"})) return;
    const auto t = time_growth<Table>(n, batch, initial, base);
    const double presized = median(t.presized_ms);
    const auto versus = [&](double ms) {
      char text[32];
      std::snprintf(text, sizeof text, "%.3f (%+d%%)", ms,
                    static_cast<int>(std::lround(100 * (ms / presized - 1))));
      return std::string(text);
    };
    std::printf("%-16s %-5d %-22s %-22s %-22.3f %-10zu\n", std::string(Table::design_name).c_str(),
                bits, versus(median(t.grown_ms)).c_str(), versus(median(t.subtables_ms)).c_str(),
                presized, t.subtables);
    std::printf(
        "%-16s %-5s find-hit ms: rebuilt %.3f, subtables %.3f; find-miss ms: rebuilt "
        "%.3f, subtables %.3f\n",
        "", "", median(t.grown_hit_ms), median(t.subtables_hit_ms), median(t.grown_miss_ms),
        median(t.subtables_miss_ms));
    const auto emit = [&](const char* op, const std::vector<double>& ms, std::size_t capacity) {
      json_line line;
      line.add("experiment", experiment_name)
          .add("design", std::string(Table::design_name))
          .add("backend", std::string(Backend::name))
          .add("device", device)
          .add("commit", ctx.commit())
          .add("key_bits", bits)
          .add("value_bits", bits)
          .add("op", op)
          .add("n", n)
          .add("batch", batch)
          .add("initial_capacity", initial)
          .add("final_capacity", static_cast<std::uint64_t>(capacity))
          .add("subtables", static_cast<std::uint64_t>(t.subtables))
          .add("repetitions", static_cast<int>(ms.size()))
          .add("median_ms", median(ms))
          .add("rate_gops", static_cast<double>(n) / (median(ms) * 1e6))
          .add("verified", true);
      ctx.emit(line.str());
    };
    emit("insert_grown", t.grown_ms, t.grown_capacity);
    emit("insert_subtables", t.subtables_ms, t.subtables_capacity);
    emit("insert_presized", t.presized_ms, t.presized_capacity);
    emit("find_hit_grown", t.grown_hit_ms, t.grown_capacity);
    emit("find_miss_grown", t.grown_miss_ms, t.grown_capacity);
    emit("find_hit_subtables", t.subtables_hit_ms, t.subtables_capacity);
    emit("find_miss_subtables", t.subtables_miss_ms, t.subtables_capacity);
  });
}

/// A growth experiment over `designs`, on every backend chosen.
experiment growth_experiment(std::string_view name, std::string_view description,
                             std::vector<std::string> designs) {
  return {name, description, [name, designs](context& ctx) {
            for_each_backend(ctx, [&]<class Backend>() {
              run_growth<Backend>(ctx, std::string(name), designs);
            });
          }};
}

}  // namespace

experiment bucketed_cuckoo_growth_experiment() {
  return growth_experiment(
      "bucketed_cuckoo.growth",
      "growth by rebuilding against added subtables: n keys inserted in batches into a "
      "table created small, a subtable chain created small and a table created for n, then "
      "finds of n present and n absent keys in the grown ones (--n: 2^26 GPU, 2^22 CPU; "
      "--batch: n/16; --initial: 1024 slots; "
      "--design=bucketed_cuckoo,linear_probing; --key-bits; --backend; --reps)",
      {"bucketed_cuckoo", "linear_probing"});
}

experiment hashgraph_growth_experiment() {
  return growth_experiment(
      "hashgraph.growth",
      "dynamic HashGraph's two growth strategies: rebuilding everything (the thesis' Alg. "
      "8, the library's) against overflow tables (a chain of subtables, each added as large "
      "as the others together), with a table created for n as reference; then finds of n "
      "present and n absent keys (--n: 2^26 GPU, 2^22 CPU; --batch: n/16; --initial: 1024 "
      "slots; --design=hashgraph,hashgraph_ellpack,hashgraph_sliced_ellpack)",
      {"hashgraph", "hashgraph_ellpack", "hashgraph_sliced_ellpack"});
}

}  // namespace gpuhash::bench
