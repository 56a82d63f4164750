// signature_index.batch: the signature index (the server's index) in the GPU
// memcached thesis' batch setting (section 6.2: batches of 512 inserts and
// 32,768 searches over an index of about 260,000 items), then in larger
// batches. Per batch: insert of fresh entries, search of stored signatures,
// erase of the inserted entries, and both in one mixed batch (apply: the
// server's case); latency per batch and rate. Each call is synchronous (it
// returns with its results written), so the time includes the index's own
// host round trips.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "../json.hpp"
#include "../report.hpp"
#include "../timer.hpp"
#include "experiments.hpp"
#include "gpuhash/signature_index.hpp"
#if defined(GPUHASH_HAS_CUDA)
#include "gpuhash/cuda/backend.hpp"
#endif

namespace gpuhash::bench {

namespace {

struct index_row {
  std::uint64_t inserts;
  std::uint64_t searches;
};

struct index_timings {
  std::vector<double> insert_ms, find_ms, erase_ms, apply_ms;
  std::size_t capacity = 0;
  std::size_t memory_bytes = 0;
};

void require_none(std::size_t wrong, std::size_t n, const char* what) {
  if (wrong != 0)
    throw std::runtime_error("verification failed: " + std::to_string(wrong) + " of " +
                             std::to_string(n) + " results of " + what + " were wrong");
}

/// One row: `prefill` stored entries, then the timed batches. Fresh random
/// signatures every repetition; every result checked after timing.
template <class Backend>
index_timings time_row(const index_row& row, std::uint64_t prefill, std::uint64_t seed, int reps,
                       int warmups) {
  using index_type = signature_index<Backend>;
  using signature = typename index_type::signature_type;
  using location = typename index_type::location_type;
  const typename Backend::stream_type stream{};
  const std::uint64_t total = prefill + row.inserts;
  index_timings out;
  step_timer<Backend> timer;

  auto batch_sigs = Backend::template allocate<signature>(row.inserts);
  auto batch_locs = Backend::template allocate<location>(row.inserts);
  auto statuses = Backend::template allocate<status>(row.inserts);
  auto search_sigs = Backend::template allocate<signature>(row.searches);
  auto matches = Backend::template allocate<location>(row.searches * index_type::max_matches);
  auto counts = Backend::template allocate<std::uint32_t>(row.searches);

  for (int rep = -warmups; rep < reps; ++rep) {
    std::mt19937_64 random(seed + static_cast<std::uint64_t>(rep + 1000));
    std::vector<signature> sigs(total);
    std::vector<location> locs(total);
    for (std::uint64_t i = 0; i < total; ++i) {
      do sigs[i] = static_cast<signature>(random());
      while (sigs[i] == 0);
      locs[i] = static_cast<location>(i);
    }
    // Searches pick stored entries (prefill and batch alike): all hits.
    std::vector<signature> queries(row.searches);
    std::vector<location> expected(row.searches);
    for (std::uint64_t i = 0; i < row.searches; ++i) {
      const std::uint64_t pick = random() % total;
      queries[i] = sigs[pick];
      expected[i] = locs[pick];
    }

    index_type index(index_options{total, 0.0f, random()});
    index.insert(std::span<const signature>(sigs.data(), prefill),
                 std::span<const location>(locs.data(), prefill));
    Backend::copy_from_host(batch_sigs.data(), sigs.data() + prefill, row.inserts);
    Backend::copy_from_host(batch_locs.data(), locs.data() + prefill, row.inserts);
    Backend::copy_from_host(search_sigs.data(), queries.data(), row.searches);
    Backend::synchronize(stream);

    const double insert_ms = timer.time(
        [&] {
          index.insert(batch_sigs.data(), batch_locs.data(), row.inserts, statuses.data(), stream);
        },
        stream);
    std::vector<status> got(row.inserts);
    Backend::copy_to_host(got.data(), statuses.data(), row.inserts);
    require_none(row.inserts -
                     static_cast<std::size_t>(std::count(got.begin(), got.end(), status::inserted)),
                 row.inserts, "insert");

    const double find_ms = timer.time(
        [&] {
          index.find(search_sigs.data(), row.searches, matches.data(), counts.data(), stream);
        },
        stream);
    std::vector<location> found(row.searches * index_type::max_matches);
    std::vector<std::uint32_t> found_counts(row.searches);
    Backend::copy_to_host(found.data(), matches.data(), found.size());
    Backend::copy_to_host(found_counts.data(), counts.data(), row.searches);
    std::size_t missed = 0;
    for (std::uint64_t i = 0; i < row.searches; ++i) {
      const location* first = found.data() + i * index_type::max_matches;
      missed += std::find(first, first + found_counts[i], expected[i]) == first + found_counts[i];
    }
    require_none(missed, row.searches, "find");

    const double erase_ms = timer.time(
        [&] {
          index.erase(batch_sigs.data(), batch_locs.data(), row.inserts, statuses.data(), stream);
        },
        stream);
    Backend::copy_to_host(got.data(), statuses.data(), row.inserts);
    require_none(
        row.inserts - static_cast<std::size_t>(std::count(got.begin(), got.end(), status::erased)),
        row.inserts, "erase");

    // The server's case: one mixed batch, the erased entries inserted again
    // while the searches run. A search of an entry the batch inserts may see
    // it or not; searches of prefilled entries must find them.
    const std::uint64_t mixed = row.inserts + row.searches;
    std::vector<operation> ops(mixed, operation::search);
    std::fill(ops.begin(), ops.begin() + static_cast<std::ptrdiff_t>(row.inserts),
              operation::insert);
    std::vector<signature> mixed_sigs(sigs.begin() + static_cast<std::ptrdiff_t>(prefill),
                                      sigs.end());
    mixed_sigs.insert(mixed_sigs.end(), queries.begin(), queries.end());
    std::vector<location> mixed_locs(locs.begin() + static_cast<std::ptrdiff_t>(prefill),
                                     locs.end());
    mixed_locs.resize(mixed, 0);
    auto d_ops = Backend::template allocate<operation>(mixed);
    auto d_sigs = Backend::template allocate<signature>(mixed);
    auto d_locs = Backend::template allocate<location>(mixed);
    auto d_statuses = Backend::template allocate<status>(mixed);
    auto d_matches = Backend::template allocate<location>(mixed * index_type::max_matches);
    auto d_counts = Backend::template allocate<std::uint32_t>(mixed);
    Backend::copy_from_host(d_ops.data(), ops.data(), mixed);
    Backend::copy_from_host(d_sigs.data(), mixed_sigs.data(), mixed);
    Backend::copy_from_host(d_locs.data(), mixed_locs.data(), mixed);
    Backend::synchronize(stream);
    const double apply_ms = timer.time(
        [&] {
          index.apply(d_ops.data(), d_sigs.data(), d_locs.data(), nullptr, mixed, d_matches.data(),
                      d_counts.data(), d_statuses.data(), stream);
        },
        stream);
    std::vector<status> mixed_statuses(mixed);
    std::vector<std::uint32_t> mixed_counts(mixed);
    std::vector<location> mixed_found(mixed * index_type::max_matches);
    Backend::copy_to_host(mixed_statuses.data(), d_statuses.data(), mixed);
    Backend::copy_to_host(mixed_counts.data(), d_counts.data(), mixed);
    Backend::copy_to_host(mixed_found.data(), d_matches.data(), mixed_found.size());
    std::size_t wrong = 0;
    for (std::uint64_t i = 0; i < mixed; ++i) {
      if (i < row.inserts) {
        wrong += mixed_statuses[i] != status::inserted;
        continue;
      }
      const std::uint64_t q = i - row.inserts;
      if (expected[q] >= prefill) continue;  // an entry this batch inserts
      const location* first = mixed_found.data() + i * index_type::max_matches;
      wrong += mixed_statuses[i] != status::found ||
               std::find(first, first + mixed_counts[i], expected[q]) == first + mixed_counts[i];
    }
    require_none(wrong, mixed, "apply (inserts and searches)");

    out.capacity = index.capacity();
    out.memory_bytes = index.memory_bytes();
    if (rep < 0) continue;
    out.insert_ms.push_back(insert_ms);
    out.find_ms.push_back(find_ms);
    out.erase_ms.push_back(erase_ms);
    out.apply_ms.push_back(apply_ms);
  }
  return out;
}

template <class Backend>
void run_backend(context& ctx, const std::vector<index_row>& rows) {
  const auto& a = ctx.arguments();
  const std::uint64_t prefill_default = a.size("prefill", 262144);
  const int reps = static_cast<int>(a.size("reps", 5));
  const int warmups = static_cast<int>(a.size("warmup", 1));
  if (reps < 5) throw std::invalid_argument("--reps must be at least 5 (median of >= 5 runs)");
  const std::string device = device_name(std::string(Backend::name));
  std::printf("\nsignature_index.batch on %s: latency per batch (us) and rate (M ops/s)\n",
              device.c_str());
  std::printf("%-10s %-10s %-10s %-22s %-22s %-22s %-22s\n", "inserts", "searches", "stored",
              "insert", "find", "erase", "apply (both)");
  for (const auto& row : rows) {
    const std::uint64_t prefill = std::max(prefill_default, row.inserts);
    const auto t = time_row<Backend>(row, prefill, a.size("seed", 42), reps, warmups);
    const auto cell = [](std::uint64_t n, double ms) {
      char text[40];
      std::snprintf(text, sizeof text, "%.1f us, %.4g", 1000 * ms,
                    static_cast<double>(n) / ms / 1e3);
      return std::string(text);
    };
    std::printf(
        "%-10llu %-10llu %-10llu %-22s %-22s %-22s %-22s\n",
        static_cast<unsigned long long>(row.inserts), static_cast<unsigned long long>(row.searches),
        static_cast<unsigned long long>(prefill), cell(row.inserts, median(t.insert_ms)).c_str(),
        cell(row.searches, median(t.find_ms)).c_str(),
        cell(row.inserts, median(t.erase_ms)).c_str(),
        cell(row.inserts + row.searches, median(t.apply_ms)).c_str());
    const auto emit = [&](const char* op, std::uint64_t n, const std::vector<double>& ms) {
      json_line line;
      line.add("experiment", "signature_index.batch")
          .add("design", "signature_index")
          .add("backend", std::string(Backend::name))
          .add("device", device)
          .add("commit", ctx.commit())
          .add("op", op)
          .add("n", n)
          .add("batch_inserts", row.inserts)
          .add("batch_searches", row.searches)
          .add("stored", prefill)
          .add("repetitions", static_cast<int>(ms.size()))
          .add("median_ms", median(ms))
          .add("latency_us", 1000 * median(ms))
          .add("rate_gops", static_cast<double>(n) / (median(ms) * 1e6))
          .add("capacity", static_cast<std::uint64_t>(t.capacity))
          .add("memory_bytes", static_cast<std::uint64_t>(t.memory_bytes))
          .add("verified", true);
      ctx.emit(line.str());
    };
    emit("insert", row.inserts, t.insert_ms);
    emit("find", row.searches, t.find_ms);
    emit("erase", row.inserts, t.erase_ms);
    emit("apply", row.inserts + row.searches, t.apply_ms);
  }
}

std::vector<index_row> rows_from(const args& a, const std::vector<std::uint64_t>& inserts,
                                 const std::vector<std::uint64_t>& searches) {
  const auto i = a.sizes("inserts", inserts);
  const auto s = a.sizes("searches", searches);
  if (i.size() != s.size())
    throw std::invalid_argument("--inserts and --searches need the same number of entries");
  std::vector<index_row> rows;
  for (std::size_t r = 0; r < i.size(); ++r) rows.push_back({i[r], s[r]});
  return rows;
}

}  // namespace

experiment signature_index_experiment() {
  return {"signature_index.batch",
          "the signature index in the memcached thesis' batches (512 inserts, 32768 searches) "
          "and larger ones: insert, find, erase latency and rate (--inserts, --searches: "
          "paired lists; --prefill, --backend, --reps)",
          [](context& ctx) {
            const auto& a = ctx.arguments();
            for (const auto& backend : ctx.backends()) {
              if (backend == "cpu")
                run_backend<cpu_backend>(
                    ctx, rows_from(a, {512, 65536, 1048576}, {32768, 65536, 1048576}));
#if defined(GPUHASH_HAS_CUDA)
              if (backend == "cuda")
                run_backend<cuda_backend>(ctx, rows_from(a, {512, 65536, 1048576, 16777216},
                                                         {32768, 65536, 1048576, 16777216}));
#endif
            }
          }};
}

}  // namespace gpuhash::bench
