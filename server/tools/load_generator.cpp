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

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

constexpr std::size_t key_bytes = 32;
constexpr std::size_t multiget_keys = 100;
constexpr std::size_t value_header_bytes = 40;  // 10 digits of version, ':', 28 of key, ':'
constexpr std::int64_t drain_ns = 2'000'000'000;

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error(what);
}

enum class mix_kind : std::uint8_t { get90, set50, multiget100 };

struct options {
  std::string host = "127.0.0.1";
  std::string port;
  std::size_t connections = 8;
  std::size_t threads = 1;
  double duration_s = 5;
  double warmup_s = 1;
  std::string mix_name = "get90";
  mix_kind mix = mix_kind::get90;
  std::uint64_t keys = 100'000;
  std::size_t value_bytes = 64;
  double rate = 0;
  std::size_t pipeline = 1;
  std::uint64_t seed = 1;
  bool poll = false;  // the generator's threads poll rather than sleep
  bool json = false;
};

/// Log-linear latency histogram in nanoseconds: exact below 256, then 128 steps per power of two.
class latency_histogram {
 public:
  void record(std::int64_t ns) {
    const auto value = static_cast<std::uint64_t>(std::max<std::int64_t>(ns, 0));
    ++counts_[index_of(value)];
    ++count_;
    sum_ += value;
    max_ = std::max(max_, value);
  }
  void merge(const latency_histogram& other) {
    for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
    count_ += other.count_;
    sum_ += other.sum_;
    max_ = std::max(max_, other.max_);
  }
  /// The q-quantile in microseconds: the upper end of its step (never below the true value).
  double quantile_us(double q) const {
    const auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count_)));
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < counts_.size() && count_ > 0; ++i) {
      seen += counts_[i];
      if (seen >= std::max<std::uint64_t>(rank, 1))
        return static_cast<double>(std::min(upper_end(i), max_)) * 1e-3;
    }
    return max_us();
  }
  double max_us() const { return static_cast<double>(max_) * 1e-3; }
  double mean_us() const {
    return count_ == 0 ? 0 : static_cast<double>(sum_) / static_cast<double>(count_) * 1e-3;
  }

 private:
  static constexpr int step_bits = 7;
  static constexpr std::size_t exact = 256;
  static std::size_t index_of(std::uint64_t value) {
    if (value < exact) return value;
    const int magnitude = static_cast<int>(std::bit_width(value)) - 1;  // >= 8
    const std::uint64_t step = (value >> (magnitude - step_bits)) - (1u << step_bits);
    return exact + static_cast<std::size_t>(magnitude - 8) * (1u << step_bits) + step;
  }
  static std::uint64_t upper_end(std::size_t index) {
    if (index < exact) return index;
    const std::size_t magnitude = 8 + (index - exact) / (1u << step_bits);
    const std::uint64_t step = (index - exact) % (1u << step_bits) + (1u << step_bits);
    return ((step + 1) << (magnitude - step_bits)) - 1;
  }
  std::vector<std::uint64_t> counts_ = std::vector<std::uint64_t>(exact + (64 - 8) * 128);
  std::uint64_t count_ = 0;
  std::uint64_t sum_ = 0;
  std::uint64_t max_ = 0;
};

/// Per key, the last version sent in a set and the last one the server acknowledged. Each
/// key is set by one connection, whose replies come in order, so both only grow.
class key_versions {
 public:
  explicit key_versions(std::uint64_t keys)
      : issued_(new std::atomic<std::uint32_t>[keys]),
        acked_(new std::atomic<std::uint32_t>[keys]) {
    for (std::uint64_t k = 0; k < keys; ++k) issued_[k] = acked_[k] = 0;
  }
  std::uint32_t issue(std::uint64_t key) { return issued_[key].fetch_add(1) + 1; }
  void acknowledge(std::uint64_t key, std::uint32_t version) {
    acked_[key].store(version, std::memory_order_release);
  }
  std::uint32_t issued(std::uint64_t key) const {
    return issued_[key].load(std::memory_order_acquire);
  }
  std::uint32_t acked(std::uint64_t key) const {
    return acked_[key].load(std::memory_order_acquire);
  }

 private:
  std::unique_ptr<std::atomic<std::uint32_t>[]> issued_;
  std::unique_ptr<std::atomic<std::uint32_t>[]> acked_;
};

void append_digits(std::string& out, std::uint64_t value, int width) {
  char digits[32];
  for (int i = width - 1; i >= 0; --i, value /= 10) digits[i] = static_cast<char>('0' + value % 10);
  out.append(digits, static_cast<std::size_t>(width));
}

void append_key(std::string& out, std::uint64_t key) {
  out += "key:";
  append_digits(out, key, 28);
}

std::uint64_t splitmix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// The value of (key, version): a header naming both, then letters derived from them.
void append_value(std::string& out, std::uint64_t key, std::uint32_t version, std::size_t bytes) {
  append_digits(out, version, 10);
  out += ':';
  append_digits(out, key, 28);
  out += ':';
  std::uint64_t state = key * 0x100000001B3ull ^ version;
  for (std::size_t i = value_header_bytes; i < bytes; i += 8) {
    std::uint64_t letters = splitmix(state);
    for (std::size_t j = i; j < std::min(i + 8, bytes); ++j, letters >>= 8)
      out += static_cast<char>('a' + (letters & 0xFF) % 26);
  }
}

/// A decimal number, leading zeros allowed (keys carry 28 digits); false if not one or too big.
bool parse_number(std::string_view text, std::uint64_t& value) {
  value = 0;
  for (char c : text) {
    if (c < '0' || c > '9' || value > (~0ull - 9) / 10) return false;
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return !text.empty();
}

/// Whether `text` is one of our keys ("key:" and 28 digits), and which.
bool parse_key(std::string_view text, std::uint64_t& key) {
  return text.size() == key_bytes && text.starts_with("key:") && parse_number(text.substr(4), key);
}

int connect_to(const options& opts) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (const int rc = getaddrinfo(opts.host.c_str(), opts.port.c_str(), &hints, &found); rc != 0)
    fail("cannot resolve " + opts.host + ":" + opts.port + ": " + gai_strerror(rc));
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0)
    fail("cannot connect to " + opts.host + ":" + opts.port + ": " + std::strerror(errno));
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

std::mutex report_mutex;
int reports_left = 10;

/// The first few problems go to stderr; all are counted.
void report(const std::string& message) {
  std::lock_guard lock(report_mutex);
  if (reports_left-- > 0) std::fprintf(stderr, "gpuhash-load: %s\n", message.c_str());
}

/// What one thread measured, or all of them.
struct tally {
  latency_histogram latency;       // from the scheduled time (closed loop: from the send)
  latency_histogram service;       // from the send
  latency_histogram schedule_lag;  // open loop: send minus scheduled time
  std::uint64_t requests = 0;
  std::uint64_t ops = 0;
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  std::uint64_t unsent = 0;              // open loop: due in the window, never sent
  std::uint64_t wrong_values = 0;        // not the key's value, or stale, or never written
  std::uint64_t unexpected_replies = 0;  // an error line, an unknown key, a malformed reply
  std::uint64_t unanswered = 0;          // lost with a closed connection, or no reply in time
  std::uint64_t errors() const { return wrong_values + unexpected_replies + unanswered; }
  void merge(const tally& other) {
    latency.merge(other.latency);
    service.merge(other.service);
    schedule_lag.merge(other.schedule_lag);
    requests += other.requests;
    ops += other.ops;
    hits += other.hits;
    misses += other.misses;
    unsent += other.unsent;
    wrong_values += other.wrong_values;
    unexpected_replies += other.unexpected_replies;
    unanswered += other.unanswered;
  }
};

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

/// The timeline of a run: warm-up, the measured window, then replies drain.
struct run_clock {
  std::int64_t start_ns;
  std::int64_t measure_ns;
  std::int64_t end_ns;
  bool measured(std::int64_t scheduled) const {
    return scheduled >= measure_ns && scheduled < end_ns;
  }
};

struct request {
  bool is_set = false;
  std::int64_t scheduled_ns = 0;
  std::int64_t sent_ns = 0;
  std::vector<std::uint64_t> keys;
  std::vector<std::uint32_t> versions;  // set: the version sent; get: acknowledged before send
};

struct connection {
  int fd = -1;
  std::uint64_t id = 0;
  std::uint64_t random_state = 0;
  std::string in;
  std::size_t in_start = 0;
  std::string out;
  std::size_t out_sent = 0;
  bool want_write = false;
  bool dead = false;
  std::vector<request> slots;  // ring of the requests out, oldest at head
  std::size_t head = 0;
  std::size_t outstanding = 0;
  std::uint64_t next_slot = 0;  // open loop: the next request's number on the schedule
};

/// One thread driving its share of the connections over epoll, with a timerfd for the schedule.
class worker {
 public:
  worker(const options& opts, key_versions& versions, const run_clock& clock)
      : opts_(opts), versions_(versions), clock_(clock) {
    const double per_request = opts.mix == mix_kind::multiget100 ? multiget_keys : 1;
    if (opts.rate > 0)
      interval_ns_ = static_cast<double>(opts.connections) * 1e9 * per_request / opts.rate;
  }

  void add(std::uint64_t id) {
    connection c;
    c.fd = connect_to(opts_);
    c.id = id;
    c.random_state = opts_.seed * 0x2545F4914F6CDD1Dull + id;
    c.slots.resize(opts_.pipeline);
    connections_.push_back(std::move(c));
  }

  tally run() {
    epoll_ = epoll_create1(0);
    timer_ = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
    if (epoll_ < 0 || timer_ < 0) fail(std::string("epoll, timerfd: ") + std::strerror(errno));
    epoll_event event{.events = EPOLLIN, .data = {.u64 = timer_tag}};
    epoll_ctl(epoll_, EPOLL_CTL_ADD, timer_, &event);
    for (std::size_t i = 0; i < connections_.size(); ++i) {
      event = {.events = EPOLLIN, .data = {.u64 = i}};
      epoll_ctl(epoll_, EPOLL_CTL_ADD, connections_[i].fd, &event);
    }
    loop();
    for (connection& c : connections_) finish(c);
    close(timer_);
    close(epoll_);
    return std::move(tally_);
  }

 private:
  static constexpr std::uint64_t timer_tag = ~0ull;

  void loop() {
    epoll_event events[256];
    std::int64_t armed = 0;
    for (;;) {
      const std::int64_t now = now_ns();
      const bool running = now >= clock_.start_ns && now < clock_.end_ns;
      if (now >= clock_.end_ns + drain_ns || (now >= clock_.end_ns && idle())) return;
      std::int64_t wake = now < clock_.start_ns ? clock_.start_ns
                          : running             ? clock_.end_ns
                                                : clock_.end_ns + drain_ns;
      for (connection& c : connections_) {
        if (running) wake = std::min(wake, fill(c, now));
        flush(c);
      }
      if (!opts_.poll && wake != armed) {  // (polling needs no timer)
        itimerspec when{};
        when.it_value = {.tv_sec = wake / 1'000'000'000, .tv_nsec = wake % 1'000'000'000};
        timerfd_settime(timer_, TFD_TIMER_ABSTIME, &when, nullptr);
        armed = wake;
      }
      const int ready = epoll_wait(epoll_, events, 256, opts_.poll ? 0 : -1);
      for (int i = 0; i < ready; ++i) {
        if (events[i].data.u64 == timer_tag) {
          std::uint64_t expirations;
          if (read(timer_, &expirations, sizeof expirations) > 0) armed = 0;
          continue;
        }
        connection& c = connections_[events[i].data.u64];
        if (events[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) receive(c);
        if (events[i].events & EPOLLOUT) flush(c);
      }
    }
  }

  bool idle() const {
    return std::all_of(connections_.begin(), connections_.end(),
                       [](const connection& c) { return c.dead || c.outstanding == 0; });
  }

  /// Queues what is due on `c`; returns when its next request falls due (the end if none).
  std::int64_t fill(connection& c, std::int64_t now) {
    if (c.dead) return clock_.end_ns;
    if (interval_ns_ == 0) {
      while (c.outstanding < opts_.pipeline) issue(c, now, now);
      return clock_.end_ns;
    }
    for (;; ++c.next_slot) {
      const std::int64_t due = scheduled(c, c.next_slot);
      if (due > now || due >= clock_.end_ns) return std::min(due, clock_.end_ns);
      if (c.outstanding == opts_.pipeline) return clock_.end_ns;  // a reply frees a slot
      issue(c, due, now);
    }
  }

  /// Connection c's slot-th request time; connections are staggered evenly over one interval.
  std::int64_t scheduled(const connection& c, std::uint64_t slot) const {
    const double stagger = static_cast<double>(c.id) / static_cast<double>(opts_.connections);
    return clock_.start_ns +
           static_cast<std::int64_t>(interval_ns_ * (static_cast<double>(slot) + stagger));
  }

  void issue(connection& c, std::int64_t scheduled_ns, std::int64_t now) {
    request& r = c.slots[(c.head + c.outstanding++) % c.slots.size()];
    r.scheduled_ns = scheduled_ns;
    r.sent_ns = now;
    r.keys.clear();
    r.versions.clear();
    if (interval_ns_ > 0 && clock_.measured(scheduled_ns))
      tally_.schedule_lag.record(now - scheduled_ns);
    const std::uint64_t draw = splitmix(c.random_state);
    const std::uint64_t get_percent = opts_.mix == mix_kind::set50 ? 50 : 90;
    r.is_set = opts_.mix != mix_kind::multiget100 && draw % 100 >= get_percent;
    if (r.is_set) {
      // this connection's keys: id, id + connections, ...
      const std::uint64_t owned = (opts_.keys - c.id + opts_.connections - 1) / opts_.connections;
      const std::uint64_t key = (draw >> 8) % owned * opts_.connections + c.id;
      r.keys.push_back(key);
      r.versions.push_back(versions_.issue(key));
      c.out += "set ";
      append_key(c.out, key);
      c.out += " 0 0 " + std::to_string(opts_.value_bytes) + "\r\n";
      append_value(c.out, key, r.versions.back(), opts_.value_bytes);
      c.out += "\r\n";
      return;
    }
    c.out += "get";
    for (std::size_t i = 0; i < (opts_.mix == mix_kind::multiget100 ? multiget_keys : 1); ++i) {
      r.keys.push_back(splitmix(c.random_state) % opts_.keys);
      r.versions.push_back(versions_.acked(r.keys.back()));
      c.out += ' ';
      append_key(c.out, r.keys.back());
    }
    c.out += "\r\n";
  }

  void flush(connection& c) {
    while (!c.dead && c.out_sent < c.out.size()) {
      const ssize_t n = send(c.fd, c.out.data() + c.out_sent, c.out.size() - c.out_sent,
                             MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      if (n <= 0) return lose(c, std::string("send failed: ") + std::strerror(errno));
      c.out_sent += static_cast<std::size_t>(n);
    }
    if (c.dead) return;
    if (c.out_sent == c.out.size()) {
      c.out.clear();
      c.out_sent = 0;
    }
    if (c.out.empty() == !c.want_write) return;
    c.want_write = !c.out.empty();
    epoll_event event{.events = EPOLLIN | (c.want_write ? EPOLLOUT : 0u),
                      .data = {.u64 = static_cast<std::uint64_t>(&c - connections_.data())}};
    epoll_ctl(epoll_, EPOLL_CTL_MOD, c.fd, &event);
  }

  void receive(connection& c) {
    char buffer[65536];
    while (!c.dead) {
      const ssize_t n = recv(c.fd, buffer, sizeof buffer, MSG_DONTWAIT);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      if (n == 0) return lose(c, "the server closed the connection");
      if (n < 0) return lose(c, std::string("recv failed: ") + std::strerror(errno));
      c.in.append(buffer, static_cast<std::size_t>(n));
      if (static_cast<std::size_t>(n) < sizeof buffer) break;
    }
    const std::int64_t now = now_ns();
    while (!c.dead && c.outstanding > 0) {
      request& r = c.slots[c.head];
      const std::string_view data = std::string_view(c.in).substr(c.in_start);
      const std::size_t used = r.is_set ? set_reply(c, r, data) : get_reply(c, r, data);
      if (used == 0) break;
      c.in_start += used;
      c.head = (c.head + 1) % c.slots.size();
      --c.outstanding;
      if (clock_.measured(r.scheduled_ns)) {
        tally_.latency.record(now - r.scheduled_ns);
        tally_.service.record(now - r.sent_ns);
        ++tally_.requests;
        tally_.ops += r.keys.size();
      }
      if (interval_ns_ == 0 && now < clock_.end_ns) issue(c, now, now);  // closed loop
    }
    if (c.in_start == c.in.size() || c.in_start > sizeof buffer) {
      c.in.erase(0, c.in_start);
      c.in_start = 0;
    }
    flush(c);
  }

  /// Bytes of the set reply at the front of `data`; 0 while incomplete.
  std::size_t set_reply(connection& c, const request& r, std::string_view data) {
    const std::size_t eol = data.find("\r\n");
    if (eol == std::string_view::npos) return 0;
    if (data.substr(0, eol) == "STORED")
      versions_.acknowledge(r.keys[0], r.versions[0]);
    else
      unexpected(c, "set", data.substr(0, eol));
    return c.dead ? 0 : eol + 2;
  }

  /// Bytes of the get reply at the front of `data`, every value checked; 0 while incomplete or
  /// when the reply could not be followed (the connection is closed then).
  std::size_t get_reply(connection& c, const request& r, std::string_view data) {
    std::size_t pos = 0;
    std::size_t next_key = 0;  // values come in the order of the keys asked for
    std::uint64_t hits = 0;
    std::string wrong;  // the first wrong value, counted once the reply is complete
    std::uint64_t wrong_count = 0;
    for (;;) {
      const std::size_t eol = data.find("\r\n", pos);
      if (eol == std::string_view::npos) return 0;
      const std::string_view line = data.substr(pos, eol - pos);
      if (line == "END") {
        pos = eol + 2;
        break;
      }
      // "VALUE <key> <flags> <bytes>", flags 0, bytes --value-bytes
      std::uint64_t key = 0, flags = 1, bytes = 0;
      const std::size_t key_end = line.find(' ', 6);
      const std::size_t flags_end =
          key_end == std::string_view::npos ? key_end : line.find(' ', key_end + 1);
      if (!line.starts_with("VALUE ") || flags_end == std::string_view::npos ||
          !parse_key(line.substr(6, key_end - 6), key) ||
          !parse_number(line.substr(key_end + 1, flags_end - key_end - 1), flags) ||
          !parse_number(line.substr(flags_end + 1), bytes) || flags != 0 ||
          bytes != opts_.value_bytes) {
        unexpected(c, "get", line);
        return c.dead ? 0 : eol + 2;  // an error line stands for the whole reply
      }
      while (next_key < r.keys.size() && r.keys[next_key] != key) ++next_key;
      if (next_key == r.keys.size()) {
        unexpected(c, "get (a key not asked for, or out of order)", line);
        return 0;
      }
      if (data.size() < eol + 2 + bytes + 2) return 0;
      if (data.substr(eol + 2 + bytes, 2) != "\r\n") {
        unexpected(c, "get (a value not followed by CRLF)", line);
        return 0;
      }
      const std::string why = check_value(key, r.versions[next_key], data.substr(eol + 2, bytes));
      if (!why.empty() && wrong_count++ == 0) wrong = "key " + std::to_string(key) + ": " + why;
      ++hits;
      ++next_key;
      pos = eol + 2 + bytes + 2;
    }
    tally_.wrong_values += wrong_count;
    if (wrong_count > 0) report("wrong value for " + wrong);
    if (clock_.measured(r.scheduled_ns)) {
      tally_.hits += hits;
      tally_.misses += r.keys.size() - hits;
    }
    return pos;
  }

  /// Empty if `value` is a version of `key` no older than `oldest` and no newer than was sent.
  std::string check_value(std::uint64_t key, std::uint32_t oldest, std::string_view value) {
    std::uint64_t version = 0, named_key = 0;
    if (!parse_number(value.substr(0, 10), version) ||
        !parse_number(value.substr(11, 28), named_key))
      return "malformed value '" + std::string(value.substr(0, value_header_bytes)) + "'";
    if (named_key != key) return "the value of key " + std::to_string(named_key);
    expected_.clear();
    append_value(expected_, key, static_cast<std::uint32_t>(version), opts_.value_bytes);
    if (value != expected_) return "corrupted value '" + std::string(value) + "'";
    if (version < oldest)
      return "stale version " + std::to_string(version) + " (" + std::to_string(oldest) +
             " was acknowledged before the get was sent)";
    if (version > versions_.issued(key))
      return "version " + std::to_string(version) + " was never sent";
    return {};
  }

  void unexpected(connection& c, const char* what, std::string_view line) {
    ++tally_.unexpected_replies;
    report(std::string("unexpected reply to ") + what + ": '" + std::string(line.substr(0, 120)) +
           "'");
    // An error line ("SERVER_ERROR ...") is a whole reply; anything else loses the thread.
    const bool whole_reply =
        line.starts_with("SERVER_ERROR") || line.starts_with("CLIENT_ERROR") || line == "ERROR";
    if (!whole_reply) lose(c, "cannot follow the replies after that");
  }

  void lose(connection& c, const std::string& why) {
    if (c.dead) return;
    report("connection " + std::to_string(c.id) + ": " + why + " (" +
           std::to_string(c.outstanding) + " requests unanswered)");
    c.dead = true;
    close(c.fd);
  }

  /// After the run: requests still out were never answered; requests still due never sent.
  void finish(connection& c) {
    if (!c.dead) {
      if (c.outstanding > 0)
        report("connection " + std::to_string(c.id) + ": " + std::to_string(c.outstanding) +
               " requests unanswered 2 s after the end");
      close(c.fd);
    }
    tally_.unanswered += c.outstanding;
    for (std::uint64_t slot = c.next_slot; interval_ns_ > 0; ++slot) {
      const std::int64_t due = scheduled(c, slot);
      if (due >= clock_.end_ns) break;
      if (!clock_.measured(due)) continue;
      tally_.latency.record(clock_.end_ns - due);  // a lower bound: it waited at least this
      ++tally_.unsent;
    }
  }

  const options& opts_;
  key_versions& versions_;
  const run_clock& clock_;
  double interval_ns_ = 0;  // open loop: between one connection's requests
  std::string expected_;
  std::vector<connection> connections_;
  tally tally_;
  int epoll_ = -1;
  int timer_ = -1;
};

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

int main(int argc, char** argv) {
  try {
    return run(parse_options(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpuhash-load: %s\n", e.what());
    return 1;
  }
}
