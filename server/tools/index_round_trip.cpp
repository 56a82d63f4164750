// gpuhash-index-round-trip: how long one batch of the server's index takes
// from the batch thread's point of view (index_service::apply: on the GPU
// the kernels, reading the batch and writing the results in page-locked
// memory, or copies in and out for large batches), on the GPU and on the CPU
// (its target and results: docs/results/server.md).
//
//   gpuhash-index-round-trip [--entries=N] [--searches=S] [--inserts=I] [--runs=R]
//                            [--gap-us=G] [--threads=T]
//
// --gap-us leaves the index idle that long between batches (as a server at
// low load does); --threads runs T indexes at once, each on its own thread
// and stream (as the server's shards do), one JSON line each.
//
// Prints one JSON line per index and batch shape. Timing: steady_clock around
// apply (a round trip is what the server waits for: on the GPU, the
// searches; the inserts run behind them, and a batch waits for the last
// one's only if they are not done by then), 3 warm-up batches, the median of
// --runs (default 51) batches, each with fresh signatures; every search's
// results and every insert's status are checked after timing.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <latch>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "index/index_service.hpp"

namespace {

using namespace gpuhash::server;

struct arguments {
  std::size_t entries = 1u << 20;
  std::size_t searches = 32768;
  std::size_t inserts = 0;
  std::size_t runs = 51;
  std::size_t gap_us = 0;
  std::size_t threads = 1;
};

std::size_t value_of(std::string_view arg, std::string_view name, std::size_t current) {
  if (!arg.starts_with(name)) return current;
  return std::strtoull(std::string(arg.substr(name.size())).c_str(), nullptr, 10);
}

/// Times batches of `searches` lookups of stored signatures (and `inserts`
/// new entries) against an index holding `entries` entries.
/// `filled`, if given, is counted down once the index is filled and waited
/// for before timing, so that several threads time together.
int measure(index::index_service& service, const arguments& args, const char* label,
            std::latch* filled = nullptr) {
  std::mt19937_64 random(12345);
  // signatures of stored entries: never 0 (reserved); location = position
  std::vector<index::signature_type> stored(args.entries);
  for (auto& signature : stored) signature = static_cast<index::signature_type>(random() | 1);
  index::index_batch fill;
  for (std::size_t i = 0; i < stored.size(); ++i)
    fill.add(gpuhash::operation::insert, stored[i], static_cast<index::location_type>(i));
  std::size_t unsettled = fill.size();  // inserts whose statuses have not come back
  std::size_t errors = 0;
  const auto check_statuses = [&](const index::index_results& results) {
    for (std::size_t j = 0; j < results.settled; ++j)
      errors += results.status_of(j) == gpuhash::status::inserted ? 0 : 1;
    unsettled -= results.settled;
  };
  check_statuses(service.apply(fill));
  if (filled != nullptr) filled->arrive_and_wait();

  std::vector<double> micros;
  std::uint32_t next_location = static_cast<std::uint32_t>(args.entries);
  // One batch, refilled each run, as the engine keeps one per shard: its
  // page-locked arrays are allocated once.
  index::index_batch batch(service.batch_memory());
  for (std::size_t run = 0; run < args.runs + 3; ++run) {
    batch.clear();
    std::vector<std::size_t> picked(args.searches);
    for (std::size_t i = 0; i < args.searches; ++i) {
      picked[i] = random() % stored.size();
      batch.add(gpuhash::operation::search, stored[picked[i]], 0);
    }
    for (std::size_t i = 0; i < args.inserts; ++i)
      batch.add(gpuhash::operation::insert, static_cast<index::signature_type>(random() | 1),
                next_location++);
    if (args.gap_us != 0) std::this_thread::sleep_for(std::chrono::microseconds(args.gap_us));
    const auto start = std::chrono::steady_clock::now();
    const index::index_results results = service.apply(batch);
    const auto stop = std::chrono::steady_clock::now();
    // checked after timing: every search finds its entry's location
    for (std::size_t i = 0; i < args.searches; ++i) {
      bool found = false;
      for (std::uint32_t k = 0; k < results.count(i); ++k)
        found |= results.match(i, k) == picked[i];
      errors += found ? 0 : 1;
    }
    check_statuses(results);
    unsettled += args.inserts;
    if (run >= 3) micros.push_back(std::chrono::duration<double, std::micro>(stop - start).count());
  }
  check_statuses(service.apply(index::index_batch(service.batch_memory())));  // the last ones
  errors += unsettled;
  std::sort(micros.begin(), micros.end());
  std::printf(
      "{\"experiment\":\"server.index_round_trip\",\"index\":\"%s\",\"device\":\"%s\","
      "\"entries\":%zu,\"searches\":%zu,\"inserts\":%zu,\"gap_us\":%zu,\"threads\":%zu,"
      "\"runs\":%zu,\"median_us\":%.2f,"
      "\"p10_us\":%.2f,\"p90_us\":%.2f,\"errors\":%zu}\n",
      label, service.description().c_str(), args.entries, args.searches, args.inserts, args.gap_us,
      args.threads, micros.size(), micros[micros.size() / 2], micros[micros.size() / 10],
      micros[micros.size() * 9 / 10], errors);
  std::fflush(stdout);
  return errors == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  gpuhash::server::index::load_kernels_at_start();
  arguments args;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    args.entries = value_of(arg, "--entries=", args.entries);
    args.searches = value_of(arg, "--searches=", args.searches);
    args.inserts = value_of(arg, "--inserts=", args.inserts);
    args.runs = value_of(arg, "--runs=", args.runs);
    args.gap_us = value_of(arg, "--gap-us=", args.gap_us);
    args.threads = value_of(arg, "--threads=", args.threads);
  }
  if (args.runs < 5 || args.entries == 0) {
    std::fprintf(stderr, "gpuhash-index-round-trip: --runs must be >= 5 and --entries > 0\n");
    return 64;
  }
  int status = 0;
  const std::uint64_t seed = 42;
  if (index::gpu_available()) {
    std::vector<std::unique_ptr<index::index_service>> gpus;
    for (std::size_t t = 0; t < std::max<std::size_t>(1, args.threads); ++t)
      gpus.push_back(index::make_gpu_index(args.entries * 2, seed));
    std::vector<int> statuses(gpus.size(), 0);
    std::vector<std::thread> threads;
    std::latch filled(static_cast<std::ptrdiff_t>(gpus.size()));
    for (std::size_t t = 0; t < gpus.size(); ++t)
      threads.emplace_back([&, t] { statuses[t] = measure(*gpus[t], args, "gpu", &filled); });
    for (std::thread& thread : threads) thread.join();
    for (const int each : statuses) status |= each;
  }
  if (args.threads > 1) return status;  // the CPU index serves one shard per thread anyway
  auto cpu = index::make_cpu_index(args.entries * 2, seed);
  status |= measure(*cpu, args, "cpu");
  return status;
}
