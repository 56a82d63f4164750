#pragma once
// The benchmark skeleton shared by experiments that time a table's four basic
// batch operations (insert, find of present keys, find of absent keys, erase)
// at a given size and load factor:
//  * setup outside the timed region: fresh keys per repetition (new seed),
//    the table cleared, never re-inserting into a full table;
//  * one warm-up repetition, then the median of >= 5 timed repetitions;
//  * every timed result checked afterwards (statuses, and values of hits);
//    a failed check aborts the run.
// The pieces (repetition_keys, options_for, table_for, require_no_growth,
// report_for, require_results, and the timed insert and finds of one
// repetition, time_insert_and_finds) are shared with the skeletons of
// query_ops.hpp and sharded/scaling_runs_impl.hpp.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "access_profile.hpp"
#include "gpuhash/cuckoo_node_config.hpp"
#include "gpuhash/status.hpp"
#include "gpuhash/table_options.hpp"
#include "timer.hpp"
#include "workload.hpp"

namespace gpuhash::bench {

struct sweep_point {
  std::uint64_t n = 0;
  double load_factor = 0.5;
  key_spec keys;
  int repetitions = 5;
  int warmups = 1;
  /// Cuckoo Node Hashing tables' first-pass walk (--first-pass-walk,
  /// cuckoo_node_settings); -1: the table's own. Other designs have none.
  int first_pass_walk = -1;
  /// Their walk bound in a node (--max-loop); -1: the table's own.
  int max_loop = -1;
};

struct op_timing {
  op_timing(std::string op_name, judged_by judgement, std::vector<double> times = {})
      : op(std::move(op_name)), judged(std::move(judgement)), ms(std::move(times)) {}

  std::string op;
  judged_by judged;  ///< the yardsticks this operation is judged against
  std::vector<double> ms;
  /// Bytes per key that the rate is also given in, against the copy limit
  /// (0: none), and which bytes they are ("value", "key+value", ...).
  std::uint64_t bytes_per_key = 0;
  std::string bytes_counted;

  double median_ms() const { return median(ms); }
  double min_ms() const { return *std::min_element(ms.begin(), ms.end()); }
  double max_ms() const { return *std::max_element(ms.begin(), ms.end()); }
};

/// An experiment's own parameter of a point (hit_ratio, zipf_exponent,
/// bucket_bytes, ...): a JSON field and a column of the readable table.
struct point_parameter {
  std::string name;
  double value;
};

struct point_report {
  std::string design;
  std::string backend;
  int key_bits = 0;
  int value_bits = 0;
  sweep_point point;
  std::size_t capacity = 0;
  std::size_t memory_bytes = 0;
  /// The bytes the operations can touch (touched_bytes): what the limits
  /// are measured over; 0 means memory_bytes.
  std::size_t touched_bytes = 0;
  std::vector<op_timing> ops;  ///< each over point.n keys
  std::vector<point_parameter> parameters;
};

/// The bytes a table's operations can touch, the footprint its limits are
/// measured over (docs/results/limits.md, "Footprint"): its memory, but for
/// a table of bucket heads and a node pool (DACHash: an engine with
/// node_bytes, buckets() and a pool's node counts) the heads and the nodes
/// in use. A pool's free nodes and its free list are allocated but no find
/// or erase reads them; counted, they put DACHash's erases of 78-148 MB
/// tables at 102-113% of a limit over a buffer half of which they never
/// touch.
template <class Table>
std::size_t touched_bytes(const Table& table, typename Table::backend_type::stream_type stream) {
  if constexpr (requires {
                  table.engine().buckets();
                  table.engine().pool_nodes();
                  table.engine().free_nodes(stream);
                  std::remove_cvref_t<decltype(table.engine())>::node_bytes;
                }) {
    const auto& engine = table.engine();
    const std::size_t node_bytes = std::remove_cvref_t<decltype(engine)>::node_bytes;
    return (engine.buckets() + engine.pool_nodes() - engine.free_nodes(stream)) * node_bytes;
  } else {
    return table.memory_bytes();
  }
}

inline void require_all(std::size_t unexpected, std::size_t n, const char* what) {
  if (unexpected != 0)
    throw std::runtime_error(std::string("verification failed: ") + std::to_string(unexpected) +
                             " of " + std::to_string(n) + " results of " + what + " were wrong");
}

/// Adds one repetition's timings to the report's operations, in their
/// order; a warm-up's (repetition < 0) are dropped.
inline void keep_timings(point_report& report, int repetition, std::initializer_list<double> ms) {
  if (repetition < 0) return;
  std::size_t op = 0;
  for (const double t : ms) report.ops.at(op++).ms.push_back(t);
}

/// The keys of one repetition (warm-ups count from -warmups): a fresh seed
/// for each, derived from the point's.
inline key_spec repetition_keys(const sweep_point& point, int repetition) {
  key_spec spec = point.keys;
  spec.seed = murmur3_fmix64(point.keys.seed + static_cast<std::uint64_t>(repetition + 1000));
  return spec;
}

/// The options of a table sized for the point's load factor, with
/// max_load_factor 1: it must not grow while timed (require_no_growth
/// checks).
inline table_options options_for(const sweep_point& point) {
  const auto capacity =
      static_cast<std::size_t>(std::ceil(static_cast<double>(point.n) / point.load_factor));
  return table_options{capacity, 1.0f, 0x5eed5eedULL};
}

template <class Table>
Table table_for(const sweep_point& point) {
  Table table(options_for(point));
  if constexpr (requires { table.engine().configure(cuckoo_node_settings{}); }) {
    cuckoo_node_settings settings = table.engine().settings();
    if (point.first_pass_walk >= 0)
      settings.first_pass_walk = static_cast<std::uint32_t>(point.first_pass_walk);
    if (point.max_loop >= 0) settings.max_loop = static_cast<std::uint32_t>(point.max_loop);
    table.engine().configure(settings);
  }
  return table;
}

template <class Table>
void require_no_growth(const Table& table, std::size_t initial_capacity) {
  if (table.capacity() != initial_capacity)
    throw std::runtime_error("the table grew while being timed: the benchmark sized it wrong");
}

/// A report with the table's identity filled in and one empty timing per
/// (operation, judgement) pair.
template <class Table>
point_report report_for(const sweep_point& point,
                        std::vector<std::pair<std::string, judged_by>> ops) {
  point_report report;
  report.design = std::string(Table::design_name);
  report.backend = std::string(Table::backend_type::name);
  report.key_bits = static_cast<int>(8 * sizeof(typename Table::key_type));
  report.value_bits = static_cast<int>(8 * sizeof(typename Table::mapped_type));
  report.point = point;
  if constexpr (requires(Table & table) { table.engine().settings().first_pass_walk; }) {
    // Recorded where the command line chose them.
    if (point.first_pass_walk >= 0)
      report.parameters.push_back({"first_pass_walk", static_cast<double>(point.first_pass_walk)});
    if (point.max_loop >= 0)
      report.parameters.push_back({"max_loop", static_cast<double>(point.max_loop)});
  }
  for (auto& [op, judgement] : ops) report.ops.push_back({std::move(op), std::move(judgement), {}});
  return report;
}

/// Stops the run unless each of the n results of a batch is `expected` and,
/// where `found` is given (finds that hit), each found value is its key's
/// (workload.hpp's count_unexpected, on the stream's device).
template <class Backend, class Key, class Value>
void require_results(const Key* keys, const Value* found, const status* statuses, std::uint64_t n,
                     status expected, typename Backend::stream_type stream,
                     const std::string& what) {
  require_all(count_unexpected<Key, Value>(Backend{}, keys, found, statuses, n, expected, stream),
              n, what.c_str());
}

/// The arrays of one table's batch on the backend's first device: n present
/// keys (generator indices [0, n)) and their values, n absent keys
/// ([n, 2n)), and what the table writes back, found values and statuses.
template <class Table>
struct basic_batch {
  using backend = typename Table::backend_type;
  using key_type = typename Table::key_type;
  using value_type = typename Table::mapped_type;
  template <class T>
  using buffer = typename backend::template buffer<T>;

  explicit basic_batch(std::uint64_t size)
      : n(size),
        keys(backend::template allocate<key_type>(n)),
        values(backend::template allocate<value_type>(n)),
        absent(backend::template allocate<key_type>(n)),
        found(backend::template allocate<value_type>(n)),
        statuses(backend::template allocate<status>(n)) {}

  /// The present and absent keys of `spec`. The absent keys' values land in
  /// `found`, which the finds overwrite.
  void generate(const key_spec& spec, typename backend::stream_type stream) {
    generate_keys<key_type, value_type>(backend{}, spec, 0, n, keys.data(), values.data(), stream);
    generate_keys<key_type, value_type>(backend{}, spec, n, n, absent.data(), found.data(), stream);
  }

  std::uint64_t n;
  buffer<key_type> keys;
  buffer<value_type> values;
  buffer<key_type> absent;
  buffer<value_type> found;
  buffer<status> statuses;
};

/// How a skeleton calls a table and times the call: the _async forms,
/// between the backend's events on the stream (step_timer: the device's
/// time, what basic_ops reports).
template <class Backend>
class async_calls {
 public:
  template <class Table, class... Args>
  static void insert(Table& table, Args... args) {
    table.insert_async(args...);
  }
  template <class Table, class... Args>
  static void find(Table& table, Args... args) {
    table.find_async(args...);
  }
  template <class Call>
  double time(Call&& call, typename Backend::stream_type stream) {
    return timer_.time(call, stream);
  }

 private:
  step_timer<Backend> timer_;
};

/// The synchronous forms, by the host's clock: the time their caller waits
/// (sharded.scaling's one table, timed as a sharded map's calls are).
struct synchronous_calls {
  template <class Table, class... Args>
  static void insert(Table& table, Args... args) {
    table.insert(args...);
  }
  template <class Table, class... Args>
  static void find(Table& table, Args... args) {
    table.find(args...);
  }
  template <class Call, class Stream>
  static double time(Call&& call, Stream) {
    return wall_clock_ms(call);
  }
};

/// The times of one repetition's insert, find of the present keys and find
/// of the absent keys.
struct insert_find_times {
  double insert_ms = 0;
  double hit_ms = 0;
  double miss_ms = 0;
};

/// One repetition on one table: the batch's keys drawn afresh from `spec`
/// and the table cleared outside the timed region; then insert, find of the
/// present keys and find of the absent keys, each made and timed by `calls`
/// and its results checked after its timing (`of` ends each failure's
/// message). A table that grew past `initial_capacity` stops the run.
template <class Table, class Calls>
insert_find_times time_insert_and_finds(Table& table, basic_batch<Table>& batch,
                                        const key_spec& spec, std::size_t initial_capacity,
                                        Calls& calls, const std::string& of = "") {
  using backend = typename Table::backend_type;
  using key_type = typename Table::key_type;
  using value_type = typename Table::mapped_type;
  const typename backend::stream_type stream{};
  const std::uint64_t n = batch.n;
  const value_type* no_values = nullptr;
  batch.generate(spec, stream);
  table.clear(stream);
  backend::synchronize(stream);

  insert_find_times times;
  times.insert_ms = calls.time(
      [&] {
        calls.insert(table, batch.keys.data(), batch.values.data(), n, batch.statuses.data(),
                     stream);
      },
      stream);
  require_results<backend, key_type, value_type>(batch.keys.data(), no_values,
                                                 batch.statuses.data(), n, status::inserted, stream,
                                                 "insert" + of);
  require_no_growth(table, initial_capacity);
  times.hit_ms = calls.time(
      [&] {
        calls.find(table, batch.keys.data(), n, batch.found.data(), batch.statuses.data(), stream);
      },
      stream);
  require_results<backend>(batch.keys.data(), batch.found.data(), batch.statuses.data(), n,
                           status::found, stream, "find of present keys" + of);
  times.miss_ms = calls.time(
      [&] {
        calls.find(table, batch.absent.data(), n, batch.found.data(), batch.statuses.data(),
                   stream);
      },
      stream);
  require_results<backend>(batch.absent.data(), no_values, batch.statuses.data(), n,
                           status::not_found, stream, "find of absent keys" + of);
  return times;
}

template <class Table>
point_report run_basic_ops(const sweep_point& point) {
  using backend = typename Table::backend_type;
  using key_type = typename Table::key_type;
  using value_type = typename Table::mapped_type;
  const typename backend::stream_type stream{};

  Table table = table_for<Table>(point);
  const std::size_t initial_capacity = table.capacity();
  basic_batch<Table> batch(point.n);

  point_report report = report_for<Table>(point, {{"insert", judge(table, "insert")},
                                                  {"find_hit", judge(table, "find_hit")},
                                                  {"find_miss", judge(table, "find_miss")},
                                                  {"erase", judge(table, "erase")}});
  async_calls<backend> calls;
  for (int repetition = -point.warmups; repetition < point.repetitions; ++repetition) {
    const insert_find_times times = time_insert_and_finds(
        table, batch, repetition_keys(point, repetition), initial_capacity, calls);
    report.memory_bytes = table.memory_bytes();
    report.touched_bytes = touched_bytes(table, stream);
    const double erase_ms = calls.time(
        [&] { table.erase_async(batch.keys.data(), batch.n, batch.statuses.data(), stream); },
        stream);
    require_results<backend, key_type, value_type>(batch.keys.data(), nullptr,
                                                   batch.statuses.data(), batch.n, status::erased,
                                                   stream, "erase");
    keep_timings(report, repetition, {times.insert_ms, times.hit_ms, times.miss_ms, erase_ms});
  }
  report.capacity = table.capacity();
  return report;
}

}  // namespace gpuhash::bench
