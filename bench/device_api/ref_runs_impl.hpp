#pragma once
// The templates behind ref_runs.hpp; included by ref_runs_cpu.cpp and
// ref_runs_cuda.cu only.

#include <bit>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "../basic_ops.hpp"
#include "../report.hpp"
#include "../sweep.hpp"
#include "../timer.hpp"
#include "../workload.hpp"
#include "gpuhash/apply_ops.hpp"
#include "gpuhash/bucketed_cuckoo_map.hpp"
#include "gpuhash/host_device.hpp"
#include "gpuhash/linear_probing_map.hpp"
#include "ref_runs.hpp"
#include "support/designs.hpp"
#include "support/launch.hpp"
#if defined(GPUHASH_BENCH_VARIANTS)
#include "gpuhash/cuckoo_node_map.hpp"
#include "gpuhash/dachash_map.hpp"
#include "gpuhash/hashgraph_dynamic_map.hpp"
#endif
#if defined(__CUDACC__)
#include <cooperative_groups.h>
#endif

namespace gpuhash::bench {

/// The tables the device_api experiments measure: the open-addressing
/// designs at 32/32, the targets' width, in every build; every design's
/// default and the 64/64 open-addressing tables with
/// -DGPUHASH_BENCH_VARIANTS=ON (each table is its own set of kernels here,
/// which CI does not need to compile).
template <class Backend>
using device_api_tables =
    support::type_list<linear_probing_map<std::uint32_t, std::uint32_t, Backend>,
                       bucketed_cuckoo_map<std::uint32_t, std::uint32_t, Backend>
#if defined(GPUHASH_BENCH_VARIANTS)
                       ,
                       dachash_map<std::uint32_t, std::uint32_t, Backend>,
                       cuckoo_node_map<std::uint32_t, std::uint32_t, Backend>,
                       hashgraph_csr_map<std::uint32_t, std::uint32_t, Backend>,
                       linear_probing_map<std::uint64_t, std::uint64_t, Backend>,
                       bucketed_cuckoo_map<std::uint64_t, std::uint64_t, Backend>
#endif
                       >;

// ---- Kernels (host+device functors, one key or row per thread) -------------

/// The ref's insert of key i; a key that finds no room is also appended to
/// `full` (positions), for the host to retry, as a user's kernel would.
template <class Ref>
struct ref_insert_keys {
  Ref ref;
  const typename Ref::key_type* keys;
  const typename Ref::mapped_type* values;
  status* statuses;
  std::uint64_t* full;
  std::uint64_t* full_count;

  GPUHASH_HD void operator()(std::uint64_t i) const {
    const status s = ref.insert(keys[i], values[i]);
    statuses[i] = s;
    if (s == status::full) full[support::fetch_add(full_count, std::uint64_t{1})] = i;
  }
};

/// The ref's find of key i, with the outputs a bulk find writes.
template <class Ref>
struct ref_find_keys {
  Ref ref;
  const typename Ref::key_type* keys;
  typename Ref::mapped_type* values;
  status* statuses;

  GPUHASH_HD void operator()(std::uint64_t i) const {
    typename Ref::mapped_type value;
    const status s = ref.find(keys[i], &value);
    statuses[i] = s;
    if (s == status::found) values[i] = value;
  }
};

#if defined(__CUDACC__)
/// The ref's cooperative find: key t / tile by the tile that thread t is in
/// (the launch covers whole tiles).
template <class Ref>
struct ref_tile_find_keys {
  Ref ref;
  const typename Ref::key_type* keys;
  typename Ref::mapped_type* values;
  status* statuses;

  __device__ void operator()(std::uint64_t t) const {
    namespace cg = cooperative_groups;
    constexpr unsigned size = Ref::cooperative_find_tile;
    const auto tile = cg::tiled_partition<size>(cg::this_thread_block());
    const std::uint64_t i = t / size;
    typename Ref::mapped_type value;
    const status s = ref.find(tile, keys[i], &value);
    if (tile.thread_rank() != 0) return;
    statuses[i] = s;
    if (s == status::found) values[i] = value;
  }
};
#endif

/// A bijection of [0, 2^bits): row i's group is mix(i) mod the group count
/// (a power of two), so rows come in a scrambled order and every group gets
/// rows / groups of them.
struct row_scramble {
  std::uint64_t seed;
  int bits;
  GPUHASH_HD std::uint64_t operator()(std::uint64_t x) const {
    const std::uint64_t mask = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
    x = ((x ^ seed) * 0x9e3779b97f4a7c15ULL) & mask;
    x ^= x >> ((bits + 1) / 2);
    x = (x * 0xc2b2ae3d27d4eb4fULL + seed) & mask;
    x ^= x >> (bits / 2 + 1);
    return (x * 0x165667b19e3779f9ULL) & mask;
  }
};

/// Row i of a group-by: its group's key and a value in 1..16; adds the
/// value to its group's expected sum.
template <class Key, class Value>
struct make_rows {
  const Key* group_keys;
  row_scramble scramble;
  std::uint64_t groups;
  Key* keys;
  Value* values;
  std::uint32_t* expected;  // by group

  GPUHASH_HD void operator()(std::uint64_t i) const {
    const std::uint64_t group = scramble(i) & (groups - 1);
    const auto value = static_cast<std::uint32_t>((murmur3_fmix64(i ^ scramble.seed) & 15) + 1);
    keys[i] = group_keys[group];
    values[i] = static_cast<Value>(value);
    support::fetch_add(expected + group, value);
  }
};

/// A sum the table does not recognize (gpuhash::plus is one atomic add): it
/// runs insert_or_apply's compare-and-swap loop.
struct add_in_a_loop {
  template <class Value>
  GPUHASH_HD void operator()(Value& stored, Value value) const {
    stored = static_cast<Value>(stored + value);
  }
};

/// Row i added to its group; rows that find no room are appended to `full`.
template <class Ref, class Op>
struct add_rows {
  Ref ref;
  Op op;
  const typename Ref::key_type* keys;
  const typename Ref::mapped_type* values;
  status* statuses;  // the retry's rows: whether each was applied
  std::uint64_t* full;
  std::uint64_t* full_count;

  GPUHASH_HD void operator()(std::uint64_t i) const {
    const status s = ref.insert_or_apply(keys[i], values[i], op);
    if (statuses != nullptr) statuses[i] = s;
    if (s == status::full) full[support::fetch_add(full_count, std::uint64_t{1})] = i;
  }
};

/// Counts groups whose found sum differs from the expected one.
template <class Value>
struct count_wrong_sums {
  const Value* found;
  const status* statuses;
  const std::uint32_t* expected;
  std::uint64_t* wrong;
  GPUHASH_HD void operator()(std::uint64_t g) const {
    if (statuses[g] != status::found || static_cast<std::uint32_t>(found[g]) != expected[g])
      support::fetch_add(wrong, std::uint64_t{1});
  }
};

// ---- device_api.ref_vs_bulk ------------------------------------------------

template <class Backend, class F>
void launch(std::uint64_t n, const F& f, typename Backend::stream_type stream) {
  support::launcher<Backend>::for_each(n, f, stream);
}

template <class Backend, class T>
T read_one(const T* value, typename Backend::stream_type stream) {
  T host{};
  Backend::copy_to_host(&host, value, 1, stream);
  return host;
}

/// Inserts the keys at positions full[0, count) by a batch (which places
/// them, growing the table if it must): the retry of docs/device_api.md.
template <class Table, class Buffers>
void retry_full_keys(Table& table, Buffers& b, std::uint64_t count,
                     typename Table::stream_type stream) {
  using backend = typename Table::backend_type;
  if (count == 0) return;
  const auto* positions = reinterpret_cast<const std::size_t*>(b.full.data());
  backend::gather(static_cast<const typename Table::key_type*>(b.keys.data()), positions, count,
                  b.retry_keys.data(), stream);
  backend::gather(static_cast<const typename Table::mapped_type*>(b.values.data()), positions,
                  count, b.retry_values.data(), stream);
  table.insert(b.retry_keys.data(), b.retry_values.data(), count, b.retry_statuses.data(), stream);
}

template <class Table>
point_report time_ref_vs_bulk(const sweep_point& point) {
  using backend = typename Table::backend_type;
  using key_type = typename Table::key_type;
  using value_type = typename Table::mapped_type;
  using ref_type = typename Table::ref_type;
  static_assert(sizeof(std::size_t) == sizeof(std::uint64_t));
  const std::uint64_t n = point.n;
  const typename backend::stream_type stream{};
  constexpr bool tiles = !backend::host_accessible && ref_type::cooperative_find_tile > 0;

  Table table = table_for<Table>(point);
  const std::size_t initial_capacity = table.capacity();
  struct buffers {
    typename backend::template buffer<key_type> keys, absent, retry_keys;
    typename backend::template buffer<value_type> values, absent_values, found, retry_values;
    typename backend::template buffer<status> statuses, retry_statuses;
    typename backend::template buffer<std::uint64_t> full, full_count;
  } b{backend::template allocate<key_type>(n),     backend::template allocate<key_type>(n),
      backend::template allocate<key_type>(n),     backend::template allocate<value_type>(n),
      backend::template allocate<value_type>(n),   backend::template allocate<value_type>(n),
      backend::template allocate<value_type>(n),   backend::template allocate<status>(n),
      backend::template allocate<status>(n),       backend::template allocate<std::uint64_t>(n),
      backend::template allocate<std::uint64_t>(1)};

  std::vector<std::pair<std::string, judged_by>> ops{
      {"insert", judge(table, "insert")},
      {"ref_insert", judge_ref<Table>("insert")},
      {"ref_insert_retry", judge(table, "insert")},
      {"find_hit", judge(table, "find_hit")},
      {"ref_find_hit", judge_ref<Table>("find_hit")},
      {"find_miss", judge(table, "find_miss")},
      {"ref_find_miss", judge_ref<Table>("find_miss")}};
  if constexpr (tiles) {
    ops.emplace_back("ref_find_hit_tile", judge_ref<Table>("find_hit_tile"));
    ops.emplace_back("ref_find_miss_tile", judge_ref<Table>("find_miss_tile"));
  }
  point_report report = report_for<Table>(point, ops);
  double full_fraction = 0;

  const auto check = [&](const key_type* keys, const value_type* values, status expected,
                         const char* what) {
    require_all(count_unexpected<key_type, value_type>(backend{}, keys, values, b.statuses.data(),
                                                       n, expected, stream),
                n, what);
  };
  step_timer<backend> timer;
  for (int repetition = -point.warmups; repetition < point.repetitions; ++repetition) {
    const key_spec spec = repetition_keys(point, repetition);
    generate_keys<key_type, value_type>(backend{}, spec, 0, n, b.keys.data(), b.values.data(),
                                        stream);
    generate_keys<key_type, value_type>(backend{}, spec, n, n, b.absent.data(),
                                        b.absent_values.data(), stream);

    // Bulk calls.
    table.clear(stream);
    backend::synchronize(stream);
    std::vector<double> ms;
    ms.push_back(timer.time(
        [&] { table.insert_async(b.keys.data(), b.values.data(), n, b.statuses.data(), stream); },
        stream));
    check(b.keys.data(), nullptr, status::inserted, "insert");
    const double hit = timer.time(
        [&] { table.find_async(b.keys.data(), n, b.found.data(), b.statuses.data(), stream); },
        stream);
    check(b.keys.data(), b.found.data(), status::found, "find (present keys)");
    const double miss = timer.time(
        [&] { table.find_async(b.absent.data(), n, b.found.data(), b.statuses.data(), stream); },
        stream);
    check(b.absent.data(), nullptr, status::not_found, "find (absent keys)");

    // The same through the ref, from the benchmark's kernels.
    table.clear(stream);
    backend::fill_bytes(b.full_count.data(), sizeof(std::uint64_t), 0, stream);
    backend::synchronize(stream);
    const ref_type ref = table.ref();
    const double ref_insert = timer.time(
        [&] {
          launch<backend>(
              n,
              ref_insert_keys<ref_type>{ref, b.keys.data(), b.values.data(), b.statuses.data(),
                                        b.full.data(), b.full_count.data()},
              stream);
        },
        stream);
    const std::uint64_t full = read_one<backend>(b.full_count.data(), stream);
    require_all(
        count_unexpected<key_type, value_type>(backend{}, b.keys.data(), nullptr, b.statuses.data(),
                                               n, status::inserted, stream) -
            full,
        n, "ref insert (inserted or full)");
    const double retry = timer.time([&] { retry_full_keys(table, b, full, stream); }, stream);
    const std::size_t stored = table.size(stream);
    require_all(stored > n ? stored - n : n - stored, n,
                "the ref inserts and their retry (keys stored, by size())");
    require_no_growth(table, initial_capacity);
    report.memory_bytes = table.memory_bytes();
    full_fraction = static_cast<double>(full) / static_cast<double>(n);

    const ref_type settled = table.ref();  // the retry was a batch: a ref taken after it
    const double ref_hit = timer.time(
        [&] {
          launch<backend>(
              n, ref_find_keys<ref_type>{settled, b.keys.data(), b.found.data(), b.statuses.data()},
              stream);
        },
        stream);
    check(b.keys.data(), b.found.data(), status::found, "ref find (present keys)");
    const double ref_miss = timer.time(
        [&] {
          launch<backend>(
              n,
              ref_find_keys<ref_type>{settled, b.absent.data(), b.found.data(), b.statuses.data()},
              stream);
        },
        stream);
    check(b.absent.data(), nullptr, status::not_found, "ref find (absent keys)");
    ms.insert(ms.end(), {ref_insert, ref_insert + retry, hit, ref_hit, miss, ref_miss});

#if defined(__CUDACC__)
    if constexpr (tiles) {
      constexpr unsigned size = ref_type::cooperative_find_tile;
      ms.push_back(timer.time(
          [&] {
            launch<backend>(n * size,
                            ref_tile_find_keys<ref_type>{settled, b.keys.data(), b.found.data(),
                                                         b.statuses.data()},
                            stream);
          },
          stream));
      check(b.keys.data(), b.found.data(), status::found, "ref tile find (present keys)");
      ms.push_back(timer.time(
          [&] {
            launch<backend>(n * size,
                            ref_tile_find_keys<ref_type>{settled, b.absent.data(), b.found.data(),
                                                         b.statuses.data()},
                            stream);
          },
          stream));
      check(b.absent.data(), nullptr, status::not_found, "ref tile find (absent keys)");
    }
#endif
    if (repetition < 0) continue;
    for (std::size_t k = 0; k < ms.size(); ++k) report.ops[k].ms.push_back(ms[k]);
  }
  report.capacity = table.capacity();
  report.parameters = {{"ref_insert_full", full_fraction}};
  return report;
}

template <class Backend>
void run_ref_vs_bulk(context& ctx) {
  const std::string experiment = "device_api.ref_vs_bulk";
  const sweep_settings settings{
      experiment, {std::uint64_t{1} << 22}, {std::uint64_t{1} << 26}, {0.5, 0.9}, {"all"}, {"32"}};
  sweep_point base = repetitions_from(ctx);
  base.keys.kind = distinct_distribution(ctx, experiment);
  rate_table table(ctx, experiment, std::string(Backend::name));
  support::for_each_type(device_api_tables<Backend>{}, [&]<class Table>() {
    for_each_point<Table>(ctx, settings, base, [&](const sweep_point& point) {
      record(ctx, experiment, table, time_ref_vs_bulk<Table>(point));
    });
  });
}

// ---- device_api.group_by ---------------------------------------------------

template <class Table>
point_report time_group_by(const sweep_point& point, std::uint64_t groups) {
  using backend = typename Table::backend_type;
  using key_type = typename Table::key_type;
  using value_type = typename Table::mapped_type;
  using ref_type = typename Table::ref_type;
  const std::uint64_t n = point.n;
  const typename backend::stream_type stream{};
  if (!std::has_single_bit(n) || !std::has_single_bit(groups) || groups > n)
    throw std::invalid_argument(
        "device_api.group_by: --n (rows) and --groups must be powers of two, groups <= rows");

  Table table(table_options{
      static_cast<std::size_t>(std::ceil(static_cast<double>(groups) / point.load_factor)), 1.0f,
      0x5eed5eedULL});
  auto group_keys = backend::template allocate<key_type>(groups);
  auto group_values = backend::template allocate<value_type>(groups);
  auto keys = backend::template allocate<key_type>(n);
  auto values = backend::template allocate<value_type>(n);
  auto expected = backend::template allocate<std::uint32_t>(groups);
  auto found = backend::template allocate<value_type>(groups);
  auto found_statuses = backend::template allocate<status>(groups);
  auto full = backend::template allocate<std::uint64_t>(n);
  auto full_count = backend::template allocate<std::uint64_t>(2);
  auto retry_keys = backend::template allocate<key_type>(n);
  auto retry_values = backend::template allocate<value_type>(n);
  auto retry_statuses = backend::template allocate<status>(n);
  auto again = backend::template allocate<std::size_t>(n);

  // Rows apply to their group's slot (insert_or_apply: a read, then a CAS or
  // an atomic add), and every group takes n / groups rows.
  const std::string repeated_groups =
      "rows repeat their group (" + std::to_string(n / groups) +
      " rows per group): each group's sector is read and written again and again, from L2";
  point_report report =
      report_for<Table>(point, {{"groupby_sum", judge_ref<Table>("upsert", repeated_groups)},
                                {"groupby_sum_cas", judge_ref<Table>("upsert", repeated_groups)}});
  std::uint64_t full_rows = 0;
  step_timer<backend> timer;
  // Rows that came back `full`: inserted by a batch, then the rows that
  // found their group inserted by another (exists) applied by a kernel.
  const auto retry = [&](auto op, std::uint64_t count) {
    if (count == 0) return;
    const auto* positions = reinterpret_cast<const std::size_t*>(full.data());
    backend::gather(static_cast<const key_type*>(keys.data()), positions, count, retry_keys.data(),
                    stream);
    backend::gather(static_cast<const value_type*>(values.data()), positions, count,
                    retry_values.data(), stream);
    table.insert(retry_keys.data(), retry_values.data(), count, retry_statuses.data(), stream);
    const std::size_t exists = backend::select_positions(retry_statuses.data(), count,
                                                         status::exists, again.data(), stream);
    backend::gather(static_cast<const key_type*>(retry_keys.data()), again.data(), exists,
                    keys.data(), stream);
    backend::gather(static_cast<const value_type*>(retry_values.data()), again.data(), exists,
                    values.data(), stream);
    launch<backend>(
        exists,
        add_rows<ref_type, decltype(op)>{table.ref(), op, keys.data(), values.data(),
                                         retry_statuses.data(), full.data(), full_count.data() + 1},
        stream);
    if (read_one<backend>(full_count.data() + 1, stream) != 0)
      throw std::runtime_error("verification failed: a row found no room after the retry");
  };
  const auto run = [&](auto op, int repetition) {
    const key_spec spec = repetition_keys(point, repetition);
    generate_keys<key_type, value_type>(backend{}, spec, 0, groups, group_keys.data(),
                                        group_values.data(), stream);
    backend::fill_bytes(expected.data(), groups * sizeof(std::uint32_t), 0, stream);
    launch<backend>(n,
                    make_rows<key_type, value_type>{group_keys.data(),
                                                    {spec.seed, std::countr_zero(n)},
                                                    groups,
                                                    keys.data(),
                                                    values.data(),
                                                    expected.data()},
                    stream);
    table.clear(stream);
    backend::fill_bytes(full_count.data(), 2 * sizeof(std::uint64_t), 0, stream);
    backend::synchronize(stream);
    const ref_type ref = table.ref();
    // The kernel alone, as cuCollections' insert_or_apply_async is timed;
    // rows it leaves `full` (reported) are retried after the timed region.
    const double ms = timer.time(
        [&] {
          launch<backend>(n,
                          add_rows<ref_type, decltype(op)>{ref, op, keys.data(), values.data(),
                                                           nullptr, full.data(), full_count.data()},
                          stream);
        },
        stream);
    full_rows = read_one<backend>(full_count.data(), stream);
    retry(op, full_rows);
    const std::size_t stored = table.size(stream);
    require_all(stored > groups ? stored - groups : groups - stored, groups,
                "the group-by (groups stored, by size())");
    table.find(group_keys.data(), groups, found.data(), found_statuses.data(), stream);
    backend::fill_bytes(full_count.data(), sizeof(std::uint64_t), 0, stream);
    launch<backend>(groups,
                    count_wrong_sums<value_type>{found.data(), found_statuses.data(),
                                                 expected.data(), full_count.data()},
                    stream);
    require_all(read_one<backend>(full_count.data(), stream), groups, "group sums");
    return ms;
  };
  for (int repetition = -point.warmups; repetition < point.repetitions; ++repetition) {
    const double with_add = run(plus{}, repetition);
    const double with_loop = run(add_in_a_loop{}, repetition);
    if (repetition < 0) continue;
    report.ops[0].ms.push_back(with_add);
    report.ops[1].ms.push_back(with_loop);
  }
  report.capacity = table.capacity();
  report.memory_bytes = table.memory_bytes();
  report.parameters = {{"groups", static_cast<double>(groups)},
                       {"full_rows", static_cast<double>(full_rows)}};
  return report;
}

template <class Backend>
void run_group_by(context& ctx) {
  const std::string experiment = "device_api.group_by";
  const auto& a = ctx.arguments();
  sweep_point point = repetitions_from(ctx);
  point.n = a.size("n", Backend::host_accessible ? std::uint64_t{1} << 22 : std::uint64_t{1} << 26);
  point.load_factor = a.number("load", 0.5);
  const auto groups =
      a.sizes("groups", Backend::host_accessible ? std::vector<std::uint64_t>{1 << 16, 1 << 20}
                                                 : std::vector<std::uint64_t>{1 << 20, 1 << 24});
  rate_table table(ctx, experiment, std::string(Backend::name));
  support::for_each_type(device_api_tables<Backend>{}, [&]<class Table>() {
    if (!ctx.selected_design(Table::design_name, {"linear_probing", "bucketed_cuckoo"})) return;
    if (!ctx.selected_width(static_cast<int>(8 * sizeof(typename Table::key_type)), {"32"})) return;
    for (const std::uint64_t g : groups)
      record(ctx, experiment, table, time_group_by<Table>(point, g));
  });
}

}  // namespace gpuhash::bench
