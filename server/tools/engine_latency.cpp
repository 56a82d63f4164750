// gpuhash-engine-latency: how long the engine takes to answer one lone
// request, from submit() to the completion handler, with no sockets in the
// way: the server's own part of a client's latency at low load, where the
// network and the client's wake-ups (tens of microseconds that vary from run
// to run) would hide a difference of a few microseconds between two builds
// or between the GPU and the CPU index.
//
//   gpuhash-engine-latency [--index=gpu|cpu] [--shards=N] [--items=N]
//                          [--requests=R] [--gap-us=G] [--resident-lifetime-us=L]
//
// The engine is set up as gpuhash-server sets it up (`-t N` gives N shards,
// batches run as `--batch-runner=auto` picks), holding --items items (32-byte
// keys, 64-byte values, as scripts/bench-server's mixes). Then, for each of
// get (one stored key), set (one key) and multiget100 (100 stored keys, one
// request), it submits --requests lone requests, --gap-us apart (default 500:
// the shards' batch threads and the GPU's resident kernels go idle between
// them, as at bench-server's low load), each with fresh random keys, and
// prints percentiles, the maximum and the mean of submit-to-completion in one
// JSON line per mix. Every reply is checked after it is timed.
// Exits with 77 when --index=gpu finds no GPU. --resident-lifetime-us sets
// how long the GPU index's resident kernels live (index/gpu_resident.cuh;
// default: the server's).

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "engine/engine.hpp"
#include "index/index_factory.hpp"
#include "protocol/request.hpp"

namespace {

using namespace gpuhash::server;
using clock_type = std::chrono::steady_clock;

/// The exit status when --index=gpu finds no GPU (CTest counts it a skip).
constexpr int no_gpu_exit = 77;

struct arguments {
  index::placement index = index::placement::gpu;
  std::size_t shards = 4;
  std::size_t items = 100'000;
  std::size_t requests = 2'000;
  std::size_t gap_us = 500;
  std::size_t resident_lifetime_us = 0;  // 0: the server's default
};

bool parse_arguments(int argc, char** argv, arguments& args) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const auto number = [&](std::string_view name, std::size_t& out) {
      if (!arg.starts_with(name)) return false;
      out = std::strtoull(std::string(arg.substr(name.size())).c_str(), nullptr, 10);
      return true;
    };
    if (arg == "--index=gpu") {
      args.index = index::placement::gpu;
    } else if (arg == "--index=cpu") {
      args.index = index::placement::cpu;
    } else if (!number("--shards=", args.shards) && !number("--items=", args.items) &&
               !number("--requests=", args.requests) && !number("--gap-us=", args.gap_us) &&
               !number("--resident-lifetime-us=", args.resident_lifetime_us)) {
      std::fprintf(stderr, "gpuhash-engine-latency: unknown argument %s\n", argv[i]);
      return false;
    }
  }
  if (args.shards == 0 || args.shards > engine::max_shards || args.items < 100 ||
      args.requests == 0) {
    std::fprintf(stderr, "gpuhash-engine-latency: need 1-%zu shards, 100 items, 1 request\n",
                 engine::max_shards);
    return false;
  }
  return true;
}

std::string key_of(std::size_t i) {
  char key[40];
  std::snprintf(key, sizeof key, "key:%028zu", i);  // 32 bytes
  return key;
}

/// The value stored under key i (64 bytes, never all zeros).
std::string value_of(std::size_t i) {
  std::string value(64, 'v');
  const std::string digits = std::to_string(i);
  value.replace(0, digits.size(), digits);
  return value;
}

/// One request group parsed from text that it keeps (the requests point
/// into it), and whether the engine has handed it back.
struct lone_group {
  /// The group, which knows its lone_group (the engine hands back the group alone).
  struct owned_group : engine::request_group {
    lone_group* owner = nullptr;
  };
  std::string text;
  owned_group group;
  std::atomic<bool> done{false};

  void parse(std::string request_text) {
    text = std::move(request_text);
    group.reset();
    done.store(false);
    const protocol::parser_limits limits;
    std::string_view input = text;
    while (!input.empty()) {
      engine::work_item& item = group.next_item();
      const protocol::parse_result result = protocol::parse_request(input, limits, item.request);
      if (result.outcome != protocol::parse_outcome::request) {
        std::fprintf(stderr, "gpuhash-engine-latency: could not parse %s\n", text.c_str());
        std::exit(1);
      }
      input.remove_prefix(result.consumed);
    }
  }
};

struct summary {
  double p50 = 0, p90 = 0, p95 = 0, p99 = 0, p999 = 0, max = 0, mean = 0;
};

summary summarize(std::vector<double>& us) {
  std::sort(us.begin(), us.end());
  const auto at = [&](double q) {
    return us[static_cast<std::size_t>(q * static_cast<double>(us.size() - 1))];
  };
  double total = 0;
  for (const double u : us) total += u;
  return {at(0.5),
          at(0.9),
          at(0.95),
          at(0.99),
          at(0.999),
          us.back(),
          total / static_cast<double>(us.size())};
}

class driver {
 public:
  explicit driver(const arguments& args)
      : args_(args),
        engine_(settings_of(args), stats_,
                index::server_index(args.index, args.resident_lifetime_us),
                [](engine::request_group& group, engine::completer) {
                  static_cast<lone_group::owned_group&>(group).owner->done.store(
                      true, std::memory_order_release);
                }) {
    group_.group.owner = &group_;
  }
  ~driver() { engine_.stop(); }

  std::string description() const { return engine_.index_description(); }

  /// Submits the text as one group and waits for it; the microseconds.
  double run(std::string text) {
    group_.parse(std::move(text));
    engine::request_group* const groups[] = {&group_.group};
    const auto start = clock_type::now();
    engine_.submit(groups);
    while (!group_.done.load(std::memory_order_acquire)) {
    }
    return std::chrono::duration<double, std::micro>(clock_type::now() - start).count();
  }
  const std::string& replies() const { return group_.group.replies; }

 private:
  static engine::engine_settings settings_of(const arguments& args) {
    engine::engine_settings settings;
    settings.shards = args.shards;
    settings.store.memory_limit = std::size_t{1} << 30;
    return settings;
  }

  arguments args_;
  engine::server_stats stats_;
  engine::engine engine_;
  lone_group group_;
};

std::string set_text(const std::string& key, const std::string& value) {
  return "set " + key + " 0 0 " + std::to_string(value.size()) + "\r\n" + value + "\r\n";
}

[[noreturn]] void wrong(const char* mix, const std::string& got) {
  std::fprintf(stderr, "gpuhash-engine-latency: wrong reply (%s): %.200s\n", mix, got.c_str());
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  arguments args;
  if (!parse_arguments(argc, argv, args)) return 2;
  if (args.index == index::placement::gpu && !index::gpu_available()) {
    std::fprintf(stderr, "gpuhash-engine-latency: no GPU\n");
    return no_gpu_exit;
  }
  index::load_kernels_at_start();
  driver engine(args);
  // Fill: 100 sets a request group.
  for (std::size_t first = 0; first < args.items; first += 100) {
    std::string text;
    for (std::size_t i = first; i < std::min(args.items, first + 100); ++i)
      text += set_text(key_of(i), value_of(i));
    engine.run(std::move(text));
  }
  std::mt19937_64 random(20261123);
  std::uniform_int_distribution<std::size_t> stored(0, args.items - 1);
  std::size_t fresh = args.items;  // set keys not stored before
  const char* const mixes[] = {"get", "set", "multiget100"};
  for (const char* mix : mixes) {
    const std::string_view name = mix;
    std::vector<double> us;
    for (std::size_t r = 0; r < args.requests + 10; ++r) {  // 10 warm-up requests
      std::this_thread::sleep_for(std::chrono::microseconds(args.gap_us));
      std::string text;
      std::vector<std::size_t> keys;
      if (name == "set") {
        keys.push_back(fresh++);
        text = set_text(key_of(keys[0]), value_of(keys[0]));
      } else {
        text = "get";
        for (std::size_t k = 0; k < (name == "get" ? 1u : 100u); ++k) {
          keys.push_back(stored(random));
          text += " " + key_of(keys.back());
        }
        text += "\r\n";
      }
      const double elapsed = engine.run(std::move(text));
      if (r >= 10) us.push_back(elapsed);
      // Checked after timing: STORED, or each key's value in order.
      std::string expected;
      if (name == "set") {
        expected = "STORED\r\n";
      } else {
        for (const std::size_t key : keys)
          expected += "VALUE " + key_of(key) + " 0 64\r\n" + value_of(key) + "\r\n";
        expected += "END\r\n";
      }
      if (engine.replies() != expected) wrong(mix, engine.replies());
    }
    const summary s = summarize(us);
    std::printf(
        "{\"tool\":\"gpuhash-engine-latency\",\"index\":\"%s\",\"shards\":%zu,\"items\":%zu,"
        "\"mix\":\"%s\",\"requests\":%zu,\"gap_us\":%zu,\"p50_us\":%.2f,\"p90_us\":%.2f,"
        "\"p95_us\":%.2f,\"p99_us\":%.2f,\"p999_us\":%.2f,\"max_us\":%.2f,\"mean_us\":%.2f}\n",
        engine.description().c_str(), args.shards, args.items, mix, args.requests, args.gap_us,
        s.p50, s.p90, s.p95, s.p99, s.p999, s.max, s.mean);
  }
  return 0;
}
