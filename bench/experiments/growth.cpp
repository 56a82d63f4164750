// cuckoo.growth: what growth by rebuilding costs. n keys are inserted in
// batches (synchronous inserts, which grow the table as needed) into a table
// created small, and into one created for all n keys; the difference is the
// price of the rebuilds. Every design that can be selected runs (bucketed
// cuckoo and linear probing by default), so the two designs' rebuilds can be
// compared; finds of all n keys after the last batch check the result.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "../json.hpp"
#include "../report.hpp"
#include "../sweep.hpp"
#include "../tables.hpp"
#include "../timer.hpp"
#include "experiments.hpp"

namespace gpuhash::bench {

namespace {

struct growth_timings {
  std::vector<double> grown_ms, presized_ms;
  std::size_t grown_capacity = 0;
  std::size_t presized_capacity = 0;
};

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

/// Inserts keys [0, n) in batches of `batch` into `table`; returns the time.
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
  auto found = backend::template allocate<value_type>(n);
  auto statuses = backend::template allocate<status>(n);
  step_timer<backend> timer;
  growth_timings out;
  for (int repetition = -base.warmups; repetition < base.repetitions; ++repetition) {
    key_spec spec = base.keys;
    spec.seed = murmur3_fmix64(base.keys.seed + static_cast<std::uint64_t>(repetition + 1000));
    generate_keys<key_type, value_type>(backend{}, spec, 0, n, keys.data(), values.data(), stream);
    backend::synchronize(stream);
    const auto check = [&](Table& table, const char* what) {
      require_all(
          count_unexpected<key_type, value_type>(backend{}, keys.data(), nullptr, statuses.data(),
                                                 n, status::inserted, stream),
          n, what);
      table.find(keys.data(), n, found.data(), statuses.data(), stream);
      require_all(count_unexpected<key_type, value_type>(backend{}, keys.data(), found.data(),
                                                         statuses.data(), n, status::found, stream),
                  n, "find after growth");
      if (table.size() != n) throw std::runtime_error(std::string(what) + ": wrong size");
    };
    Table grown(table_options{initial, 0.0f, spec.seed});
    const double grown_ms =
        insert_in_batches(grown, timer, keys.data(), values.data(), n, batch, statuses.data());
    check(grown, "insert with growth");
    // The same default load limit, with room for all n keys from the start.
    Table presized(table_options{
        static_cast<std::size_t>(static_cast<double>(n) / grown.max_load_factor()) + 1, 0.0f,
        spec.seed});
    const std::size_t presized_capacity = presized.capacity();
    const double presized_ms =
        insert_in_batches(presized, timer, keys.data(), values.data(), n, batch, statuses.data());
    check(presized, "insert into a presized table");
    if (presized.capacity() != presized_capacity)
      throw std::runtime_error("the presized table grew: the benchmark sized it wrong");
    out.grown_capacity = grown.capacity();
    out.presized_capacity = presized_capacity;
    if (repetition < 0) continue;
    out.grown_ms.push_back(grown_ms);
    out.presized_ms.push_back(presized_ms);
  }
  return out;
}

template <class Backend>
void run_growth(context& ctx) {
  const auto& a = ctx.arguments();
  const std::uint64_t n = a.size("n", Backend::host_accessible ? (1u << 22) : (1u << 26));
  const std::uint64_t batch = a.size("batch", n / 16);
  const std::uint64_t initial = a.size("initial", 1024);
  sweep_point base = repetitions_from(ctx);
  base.keys.kind = distinct_distribution(ctx, "cuckoo.growth");
  const std::string device = device_name(std::string(Backend::name));
  std::printf("\ncuckoo.growth on %s: %llu keys in batches of %llu, from %llu slots\n",
              device.c_str(), static_cast<unsigned long long>(n),
              static_cast<unsigned long long>(batch), static_cast<unsigned long long>(initial));
  std::printf("%-20s %-6s %-14s %-14s %-10s %-16s\n", "design", "bits", "grown (ms)",
              "presized (ms)", "overhead", "final slots");
  const std::vector<std::string> designs{"bucketed_cuckoo", "linear_probing"};
  for_each_design<Backend>([&]<class Table>() {
    if (!ctx.selected_design(Table::design_name, designs)) return;
    const int bits = static_cast<int>(8 * sizeof(typename Table::key_type));
    if (!ctx.selected_width(bits, {"32"})) return;
    const auto t = time_growth<Table>(n, batch, initial, base);
    const double grown = median_of(t.grown_ms);
    const double presized = median_of(t.presized_ms);
    std::printf("%-20s %-6d %-14.3f %-14.3f %-10s %-16zu\n",
                std::string(Table::design_name).c_str(), bits, grown, presized,
                (std::to_string(static_cast<int>(100 * (grown / presized - 1))) + "%").c_str(),
                t.grown_capacity);
    const auto emit = [&](const char* op, const std::vector<double>& ms, std::size_t capacity) {
      json_line line;
      line.add("experiment", "cuckoo.growth")
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
          .add("repetitions", static_cast<int>(ms.size()))
          .add("median_ms", median_of(ms))
          .add("rate_gops", static_cast<double>(n) / (median_of(ms) * 1e6))
          .add("verified", true);
      ctx.emit(line.str());
    };
    emit("insert_grown", t.grown_ms, t.grown_capacity);
    emit("insert_presized", t.presized_ms, t.presized_capacity);
  });
}

}  // namespace

experiment cuckoo_growth_experiment() {
  return {"cuckoo.growth",
          "growth by rebuilding: n keys inserted in batches into a table created small against "
          "one created for n (--n: 2^26 GPU, 2^22 CPU; --batch: n/16; --initial: 1024 slots; "
          "--design=bucketed_cuckoo,linear_probing; --key-bits; --backend; --reps)",
          [](context& ctx) {
            for_each_backend(ctx, [&]<class Backend>() { run_growth<Backend>(ctx); });
          }};
}

}  // namespace gpuhash::bench
