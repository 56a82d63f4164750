// gpuhash-load: a memcached text-protocol load generator that records the latency of every
// request and checks every reply (scripts/bench-server drives it; docs/results/server.md).
//
//   gpuhash-load --port=P [--host=127.0.0.1] [--connections=8] [--threads=1] [--duration=5]
//                [--warmup=1] [--mix=get90|set50|multiget100] [--keys=100000]
//                [--value-bytes=64] [--rate=0] [--pipeline=1] [--seed=1] [--poll] [--json]
//
// Keys are "key:" and 28 digits (32 bytes); all --keys are stored before timing, so every get
// should hit. --rate is in ops/s (a 100-key get counts 100 ops). With a rate the load is open
// loop: each connection's requests are scheduled at even intervals and latency runs from the
// scheduled time, so a stalled server is charged for the requests it delayed (no coordinated
// omission); a request still unsent when the run ends is recorded with the time it waited.
// Latency from the send (what the server and the network took) is reported beside it, and so
// is the schedule lag (send minus scheduled time: the generator's own wake-ups, plus waiting
// for a reply when --pipeline requests are already out). --rate=0 is closed loop: each
// connection keeps --pipeline requests out, latency runs from the send. --poll makes each
// generator thread poll its sockets and the clock instead of sleeping in epoll_wait: its own
// wake-ups (tens of microseconds, and hundreds now and then from an idle core) then stay out
// of the open-loop latencies, where they would otherwise blur the server's part (it costs the
// generator a core per thread, so it is for machines with cores to spare). Latencies go into a
// log-linear histogram (128 steps per power of two: below 0.8% error; a percentile is reported
// as the upper end of its step).
//
// Checking: a value is regenerated from the key and the version it carries and compared byte
// for byte. Sets of a key come from one connection only (key % connections), so each key's
// versions are ordered: a get must return a version at least as new as the last one
// acknowledged (STORED) before the get was sent, and no newer than the last one sent. Any
// other reply (an error line, a key not asked for, a wrong value, no reply within 2 s of the
// end) is an error; a reply the parser cannot follow also closes its connection.
// Exit status: 0 clean, 2 the run completed with errors (still reported), 1 it could not run.

#include "tools/load/load_worker.hpp"

namespace gpuhash::load {
namespace {

/// Stores every key once (version 1) over one connection, 1,000 sets per round trip; a set
/// that is not STORED ends the run, since later gets could not be checked.
void preload(const options& opts, key_versions& versions) {
  const int fd = connect_to(opts);
  const std::string stored = "STORED\r\n";
  std::string out;
  std::string in;
  char buffer[65536];
  for (std::uint64_t first = 0; first < opts.keys; first += 1000) {
    const std::uint64_t last = std::min<std::uint64_t>(first + 1000, opts.keys);
    out.clear();
    for (std::uint64_t key = first; key < last; ++key) {
      out += "set ";
      append_key(out, key);
      out += " 0 0 " + std::to_string(opts.value_bytes) + "\r\n";
      append_value(out, key, versions.issue(key), opts.value_bytes);
      out += "\r\n";
    }
    for (std::size_t sent = 0; sent < out.size();) {
      const ssize_t n = send(fd, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) fail(std::string("preload: send failed: ") + std::strerror(errno));
      sent += static_cast<std::size_t>(n);
    }
    in.clear();
    while (in.size() < stored.size() * (last - first) && in.find("ERROR") == std::string::npos) {
      const ssize_t n = recv(fd, buffer, sizeof buffer, 0);
      if (n <= 0) fail("preload: the server closed the connection");
      in.append(buffer, static_cast<std::size_t>(n));
    }
    for (std::uint64_t key = first; key < last; ++key) {
      const std::size_t at = std::min<std::size_t>((key - first) * stored.size(), in.size());
      if (in.compare(at, stored.size(), stored) != 0)
        fail("preload: the set of key " + std::to_string(key) + " was answered '" +
             in.substr(at, in.find("\r\n", at) - at) + "'");
      versions.acknowledge(key, 1);
    }
  }
  close(fd);
}

constexpr const char* usage_text =
    "usage: gpuhash-load --port=P [--host=127.0.0.1] [--connections=8] [--threads=1]\n"
    "         [--duration=5] [--warmup=1] [--mix=get90|set50|multiget100] [--keys=100000]\n"
    "         [--value-bytes=64] [--rate=0 (ops/s; 0: closed loop)] [--pipeline=1] [--seed=1]\n"
    "         [--poll (poll, not sleep: for open-loop latency)] [--json]\n";

/// "--name=value" or "--name value"; numbers are checked, names too.
options parse_options(int argc, char** argv) {
  std::map<std::string, std::string> given;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (!arg.starts_with("--")) fail("unexpected argument '" + arg + "'\n" + usage_text);
    const std::size_t equals = arg.find('=');
    const std::string name = arg.substr(2, equals == std::string::npos ? equals : equals - 2);
    if (name == "json" || name == "poll" || name == "help")
      given[name] = "1";
    else if (equals != std::string::npos)
      given[name] = arg.substr(equals + 1);
    else if (i + 1 < argc)
      given[name] = argv[++i];
    else
      fail("--" + name + " wants a value");
  }
  const auto number = [&](const char* name, double fallback) {
    const auto found = given.find(name);
    if (found == given.end()) return fallback;
    char* end = nullptr;
    const double value = std::strtod(found->second.c_str(), &end);
    if (found->second.empty() || *end != '\0' || !(value >= 0))
      fail(std::string("--") + name + " wants a number >= 0, not '" + found->second + "'");
    given.erase(found);
    return value;
  };
  const auto text = [&](const char* name, const std::string& fallback) {
    const auto found = given.find(name);
    if (found == given.end()) return fallback;
    const std::string value = found->second;
    given.erase(found);
    return value;
  };
  options opts;
  if (given.count("help")) {
    std::fputs(usage_text, stdout);
    std::exit(0);
  }
  opts.json = given.erase("json") > 0;
  opts.poll = given.erase("poll") > 0;
  opts.host = text("host", opts.host);
  opts.port = text("port", "");
  opts.mix_name = text("mix", opts.mix_name);
  const auto whole = [&](const char* name, auto fallback) {
    return static_cast<decltype(fallback)>(number(name, static_cast<double>(fallback)));
  };
  opts.connections = whole("connections", opts.connections);
  opts.threads = whole("threads", opts.threads);
  opts.keys = whole("keys", opts.keys);
  opts.value_bytes = whole("value-bytes", opts.value_bytes);
  opts.pipeline = whole("pipeline", opts.pipeline);
  opts.seed = whole("seed", opts.seed);
  opts.duration_s = number("duration", opts.duration_s);
  opts.warmup_s = number("warmup", opts.warmup_s);
  opts.rate = number("rate", opts.rate);
  if (!given.empty()) fail("unknown option --" + given.begin()->first + "\n" + usage_text);
  if (opts.mix_name == "set50")
    opts.mix = mix_kind::set50;
  else if (opts.mix_name == "multiget100")
    opts.mix = mix_kind::multiget100;
  else if (opts.mix_name != "get90")
    fail("--mix is get90, set50 or multiget100, not '" + opts.mix_name + "'");
  if (opts.port.empty()) fail(std::string("--port is required\n") + usage_text);
  if (opts.connections == 0 || opts.threads == 0 || opts.pipeline == 0 || opts.duration_s <= 0)
    fail("--connections, --threads, --pipeline and --duration must be > 0");
  if (opts.keys < opts.connections || opts.keys > (1ull << 32))
    fail("--keys must be at least --connections (each connection sets keys of its own), <= 2^32");
  if (opts.value_bytes < value_header_bytes)
    fail("--value-bytes must be >= 40: a value carries its key and version");
  opts.threads = std::min(opts.threads, opts.connections);
  return opts;
}

/// The results as one JSON line (--json), or one "name value" line each.
void print(const options& opts, const tally& total, double client_cpu_s) {
  const auto real = [](double value, int decimals) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return std::string(text);
  };
  const auto count = [](std::uint64_t value) { return std::to_string(value); };
  const auto us = [&](double value) { return real(value, 1); };
  const double looked_up = static_cast<double>(total.hits + total.misses);
  const std::pair<const char*, std::string> fields[] = {
      {"tool", "\"gpuhash-load\""},
      {"mix", "\"" + opts.mix_name + "\""},
      {"connections", count(opts.connections)},
      {"client_threads", count(opts.threads)},
      {"pipeline", count(opts.pipeline)},
      {"poll", opts.poll ? "true" : "false"},
      {"rate", real(opts.rate, 0)},
      {"duration_s", real(opts.duration_s, 1)},
      {"warmup_s", real(opts.warmup_s, 1)},
      {"keys", count(opts.keys)},
      {"value_bytes", count(opts.value_bytes)},
      {"requests", count(total.requests)},
      {"ops", count(total.ops)},
      {"ops_per_s", real(static_cast<double>(total.ops) / opts.duration_s, 0)},
      {"requests_per_s", real(static_cast<double>(total.requests) / opts.duration_s, 0)},
      {"p50_us", us(total.latency.quantile_us(0.5))},
      {"p90_us", us(total.latency.quantile_us(0.9))},
      {"p99_us", us(total.latency.quantile_us(0.99))},
      {"p999_us", us(total.latency.quantile_us(0.999))},
      {"max_us", us(total.latency.max_us())},
      {"mean_us", us(total.latency.mean_us())},
      {"service_p50_us", us(total.service.quantile_us(0.5))},
      {"service_p99_us", us(total.service.quantile_us(0.99))},
      {"service_p999_us", us(total.service.quantile_us(0.999))},
      {"schedule_lag_p99_us", us(total.schedule_lag.quantile_us(0.99))},
      {"hit_ratio", real(looked_up == 0 ? 1.0 : static_cast<double>(total.hits) / looked_up, 6)},
      {"errors", count(total.errors())},
      {"wrong_values", count(total.wrong_values)},
      {"unexpected_replies", count(total.unexpected_replies)},
      {"unanswered", count(total.unanswered)},
      {"unsent", count(total.unsent)},
      {"client_cpu_s", real(client_cpu_s, 2)},
  };
  std::string out = opts.json ? "{" : "";
  for (const auto& [name, value] : fields) {
    if (opts.json)
      out += std::string(out.size() > 1 ? "," : "") + "\"" + name + "\":" + value;
    else
      out += std::string(name) + std::string(22 - std::strlen(name), ' ') + value + "\n";
  }
  std::fputs((opts.json ? out + "}\n" : out).c_str(), stdout);
}

int run(const options& opts) {
  prctl(PR_SET_TIMERSLACK, 1UL);  // wake on the schedule, not up to 50 us later
  key_versions versions(opts.keys);
  tally total;
  preload(opts, versions);

  run_clock clock{};
  std::vector<std::unique_ptr<worker>> workers;
  for (std::size_t t = 0; t < opts.threads; ++t)
    workers.push_back(std::make_unique<worker>(opts, versions, clock));
  for (std::uint64_t id = 0; id < opts.connections; ++id) workers[id % opts.threads]->add(id);
  clock.start_ns = now_ns() + 10'000'000;  // once every thread is up
  clock.measure_ns = clock.start_ns + static_cast<std::int64_t>(opts.warmup_s * 1e9);
  clock.end_ns = clock.measure_ns + static_cast<std::int64_t>(opts.duration_s * 1e9);

  std::vector<tally> tallies(opts.threads);
  std::vector<std::string> failures(opts.threads);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < opts.threads; ++t)
    threads.emplace_back([&, t] {
      try {
        tallies[t] = workers[t]->run();
      } catch (const std::exception& e) {
        failures[t] = e.what();
      }
    });
  for (std::thread& thread : threads) thread.join();
  for (const std::string& failure : failures)
    if (!failure.empty()) fail(failure);
  for (const tally& t : tallies) total.merge(t);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
  };
  print(opts, total, seconds(usage.ru_utime) + seconds(usage.ru_stime));
  return total.errors() == 0 ? 0 : 2;
}

}  // namespace
}  // namespace gpuhash::load

int main(int argc, char** argv) {
  try {
    return gpuhash::load::run(gpuhash::load::parse_options(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpuhash-load: %s\n", e.what());
    return 1;
  }
}
