// The Cuckoo Node Hashing experiments of issue #5 (cuckoo-node-hashing-paper.txt,
// V). So far: cnh.table1, the average number of slots a search compares
// (probes), for keys found and not found, against the bucket count, with the
// paper's settings (2^25 keys, 2^7-slot nodes, |H| = 4, max_loop 2^6). The
// engine counts probes when built with its CountProbes switch; this file
// instantiates it for the CPU backend. Probe counts depend on the hash
// functions and the placement, not on the device, so the CPU gives the table.

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "../json.hpp"
#include "../report.hpp"
#include "../sweep.hpp"
#include "../workload.hpp"
#include "experiments.hpp"
#include "gpuhash/detail/cuckoo_node/engine_impl.hpp"
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
constexpr paper_row paper_table1[] = {{32768, 16.92, 36.59},  {65536, 8.89, 20.15},
                                      {131072, 4.82, 12.03},  {262144, 2.65, 8.00},
                                      {524288, 1.52, 5.32},   {1048576, 1.19, 4.05}};

using counting_map =
    basic_map<detail::cuckoo_node::engine<std::uint32_t, std::uint32_t, cpu_backend, 128, 4, true>>;

void run_table1(context& ctx) {
  const auto& a = ctx.arguments();
  const std::uint64_t n = a.size("n", std::uint64_t{1} << 25);
  const auto bucket_counts = a.sizes("buckets", {1u << 15, 1u << 16, 1u << 17, 1u << 18,
                                                 1u << 19, 1u << 20});
  const sweep_point base = repetitions_from(ctx);
  const std::string device = device_name("cpu");
  std::printf("\ncnh.table1 on %s: %llu keys, 128-slot nodes, |H| = 4, max_loop 64\n",
              device.c_str(), static_cast<unsigned long long>(n));
  std::printf("%-10s %-12s %-12s %-14s %-14s %-8s\n", "buckets", "found", "not found",
              "paper found", "paper missed", "nodes");
  std::vector<std::uint32_t> keys(n), values(n), absent(n), absent_values(n);
  key_spec spec = base.keys;
  generate_keys<std::uint32_t, std::uint32_t>(cpu_backend{}, spec, 0, n, keys.data(),
                                              values.data(), {});
  // Generator indices [n, 2n): distinct from the stored keys.
  generate_keys<std::uint32_t, std::uint32_t>(cpu_backend{}, spec, n, n, absent.data(),
                                              absent_values.data(), {});
  for (const std::uint64_t buckets : bucket_counts) {
    counting_map table(table_options{buckets * 128, 1.0f, 0x5eed5eedULL});
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
    const double kf = static_cast<double>(tally.found_probes) /
                      static_cast<double>(tally.found_searches);
    const double knf = static_cast<double>(tally.missed_probes) /
                       static_cast<double>(tally.missed_searches);
    double paper_found = 0, paper_missed = 0;
    for (const auto& row : paper_table1)
      if (row.buckets == buckets) paper_found = row.found, paper_missed = row.not_found;
    const std::size_t chain_nodes = buckets + table.engine().pool_nodes() -
                                    table.engine().free_nodes({});
    std::printf("%-10llu %-12.2f %-12.2f %-14.2f %-14.2f %-8.2f\n",
                static_cast<unsigned long long>(buckets), kf, knf, paper_found, paper_missed,
                static_cast<double>(chain_nodes) / static_cast<double>(buckets));
    json_line line;
    line.add("experiment", "cnh.table1")
        .add("design", "cuckoo_node")
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
        .add("nodes_per_bucket",
             static_cast<double>(chain_nodes) / static_cast<double>(buckets))
        .add("paper_probes_found", paper_found)
        .add("paper_probes_not_found", paper_missed)
        .add("verified", true);
    ctx.emit(line.str());
  }
}

}  // namespace

experiment cnh_table1_experiment() {
  return {"cnh.table1",
          "average probes per search (slots compared), keys found and not found, vs bucket "
          "count 2^15..2^20: 2^25 keys, 128-slot nodes, |H| = 4, max_loop 64, the paper's Table "
          "I (--n, --buckets); counted on the CPU backend: the counts do not depend on the "
          "device",
          [](context& ctx) { run_table1(ctx); }};
}

}  // namespace gpuhash::bench
