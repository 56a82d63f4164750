// gpuhash-load: a memcached text-protocol load generator that records the latency of every
// request and checks every reply (scripts/bench-server drives it; docs/results/server.md).
//
//   gpuhash-load --port=P [--host=127.0.0.1] [--connections=N] [--threads=T] [--duration=S]
//                [--warmup=S] [--mix=get90|set50|multiget100] [--keys=K] [--value-bytes=B]
//                [--rate=R] [--pipeline=D] [--seed=X] [--json]
//
// Keys are "key:" and 28 digits (32 bytes); all K are stored before timing, so every get
// should hit. --rate is in ops/s (a 100-key get counts 100 ops). With a rate the load is open
// loop: each connection's requests are scheduled at even intervals and latency runs from the
// scheduled time, so a stalled server is charged for the requests it delayed (no coordinated
// omission); a request that is still unsent when the run ends is recorded with the time it
// waited. --rate=0 is closed loop: each connection keeps --pipeline requests out, latency runs
// from the send. Latencies go into a log-linear histogram (128 steps per power of two: below
// 0.8% error; percentiles are reported as the upper end of their step).
//
// Checking: a value is regenerated from the key and the version it carries and compared byte
// for byte. Sets of a key come from one connection only (key % connections), so each key's
// versions are ordered: a get must return a version at least as new as the last one
// acknowledged (STORED) before the get was sent, and no newer than the last one sent. Any
// other reply (an error line, a key that was not asked for, a wrong value, no reply within 2 s
// of the end) is an error; a reply the parser cannot follow also closes its connection.
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
constexpr std::size_t value_header_bytes = 40;  // "%010u:%028llu:" version, key
constexpr std::int64_t drain_ns = 2'000'000'000;

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error(what); }

enum class mix_kind : std::uint8_t { get90, set50, multiget100 };

struct options {
  std::string host = "127.0.0.1";
  std::string port;
  std::size_t connections = 8;
  std::size_t threads = 1;
  double duration_s = 5;
  double warmup_s = 1;
  mix_kind mix = mix_kind::get90;
  std::string mix_name = "get90";
  std::uint64_t keys = 100'000;
  std::size_t value_bytes = 64;
  double rate = 0;
  std::size_t pipeline = 1;
  std::uint64_t seed = 1;
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
  static constexpr int step_bits = 7;  // 128 steps per power of two
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
  std::vector<std::uint64_t> counts_ = std::vector<std::uint64_t>(exact + 56 * 128);
  std::uint64_t count_ = 0;
  std::uint64_t sum_ = 0;
  std::uint64_t max_ = 0;
};

/// Per key, the last version sent in a set and the last one the server acknowledged. Each
/// key is set by one connection, whose replies come in order, so both only grow.
class key_versions {
 public:
  explicit key_versions(std::uint64_t keys)
      : issued_(new std::atomic<std::uint32_t>[keys]), acked_(new std::atomic<std::uint32_t>[keys]) {
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

/// The value of (key, version): its header names both, the rest is letters derived from them.
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

/// Whether `key` is one of ours ("key:" and 28 digits), and which.
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
  if (fd < 0) fail("cannot connect to " + opts.host + ":" + opts.port + ": " + std::strerror(errno));
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

/// Counts of everything that went wrong; the first few messages go to stderr.
struct error_counts {
  std::uint64_t wrong_values = 0;        // a value that is not the key's, or is stale
  std::uint64_t unexpected_replies = 0;  // an error line, an unknown key, a malformed reply
  std::uint64_t unanswered = 0;          // lost when a connection closed, or no reply in time
  std::uint64_t total() const { return wrong_values + unexpected_replies + unanswered; }
};

std::mutex report_mutex;
int reports_left = 10;

void report(const std::string& message) {
  std::lock_guard lock(report_mutex);
  if (reports_left-- > 0) std::fprintf(stderr, "gpuhash-load: %s\n", message.c_str());
}

/// Stores every key once (version 1) over one connection, 1,000 sets per round trip.
void preload(const options& opts, key_versions& versions, error_counts& errors) {
  const int fd = connect_to(opts);
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
    const std::string expected = "STORED\r\n";
    in.clear();
    while (in.size() < expected.size() * (last - first)) {
      const ssize_t n = recv(fd, buffer, sizeof buffer, 0);
      if (n <= 0) fail("preload: the server closed the connection");
      in.append(buffer, static_cast<std::size_t>(n));
      if (in.find("ERROR") != std::string::npos) break;
    }
    for (std::uint64_t key = first; key < last; ++key) {
      if (in.compare((key - first) * expected.size(), expected.size(), expected) != 0) {
        ++errors.unexpected_replies;
        report("preload: set of key " + std::to_string(key) + " not STORED: " + in.substr(0, 80));
        break;
      }
      versions.acknowledge(key, 1);
    }
  }
  close(fd);
}

/// The timeline of a run: warm-up, measured window, then replies drain.
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

/// What one worker thread measured.
struct worker_result {
  latency_histogram latency;
  latency_histogram schedule_lag;  // open loop: send time minus scheduled time
  std::uint64_t requests = 0;
  std::uint64_t ops = 0;
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  std::uint64_t unsent = 0;
  error_counts errors;
};

/// One thread driving its share of the connections over epoll, with a timerfd for the schedule.
class worker {
 public:
  worker(const options& opts, key_versions& versions, const run_clock& clock)
      : opts_(opts), versions_(versions), clock_(clock) {
    const double requests_per_s = opts.rate / (opts.mix == mix_kind::multiget100 ? 100.0 : 1.0);
    interval_ns_ = opts.rate > 0 ? static_cast<double>(opts.connections) * 1e9 / requests_per_s : 0;
  }

  void add(std::uint64_t id) {
    connection c;
    c.fd = connect_to(opts_);
    c.id = id;
    c.random_state = opts_.seed * 0x2545F4914F6CDD1Dull + id;
    c.slots.resize(opts_.pipeline);
    connections_.push_back(std::move(c));
  }

  worker_result run() {
    epoll_ = epoll_create1(0);
    timer_ = timerfd_create(CLOCK_MONOTONIC, 0);
    if (epoll_ < 0 || timer_ < 0) fail(std::string("epoll/timerfd: ") + std::strerror(errno));
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
    return std::move(result_);
  }

 private:
  static constexpr std::uint64_t timer_tag = ~0ull;

  void loop() {
    std::vector<epoll_event> events(256);
    std::int64_t armed = 0;
    for (;;) {
      const std::int64_t now = now_ns();
      if (now >= clock_.end_ns + drain_ns || (now >= clock_.end_ns && idle())) return;
      std::int64_t wake = now < clock_.end_ns ? clock_.end_ns : clock_.end_ns + drain_ns;
      if (now >= clock_.start_ns && now < clock_.end_ns)
        for (connection& c : connections_) wake = std::min(wake, fill(c, now));
      else if (now < clock_.start_ns)
        wake = clock_.start_ns;
      for (connection& c : connections_) flush(c);
      if (wake != armed) {
        itimerspec when{};
        when.it_value.tv_sec = wake / 1'000'000'000;
        when.it_value.tv_nsec = wake % 1'000'000'000;
        timerfd_settime(timer_, TFD_TIMER_ABSTIME, &when, nullptr);
        armed = wake;
      }
      const int n = epoll_wait(epoll_, events.data(), static_cast<int>(events.size()), -1);
      for (int i = 0; i < n; ++i) {
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

  /// Sends what is due on `c`; returns when the next request falls due (far future if none).
  std::int64_t fill(connection& c, std::int64_t now) {
    const std::int64_t never = clock_.end_ns;
    if (c.dead) return never;
    if (interval_ns_ == 0) {
      while (c.outstanding < opts_.pipeline) issue(c, now, now);
      return never;
    }
    for (;;) {
      const std::int64_t due = scheduled(c, c.next_slot);
      if (due >= clock_.end_ns) return never;
      if (due > now) return due;
      if (c.outstanding == opts_.pipeline) return never;  // a reply frees a slot
      issue(c, due, now);
      ++c.next_slot;
    }
  }

  std::int64_t scheduled(const connection& c, std::uint64_t slot) const {
    const double offset = interval_ns_ * (static_cast<double>(slot) +
                                          static_cast<double>(c.id) / static_cast<double>(opts_.connections));
    return clock_.start_ns + static_cast<std::int64_t>(offset);
  }

  void issue(connection& c, std::int64_t scheduled_ns, std::int64_t now) {
    request& r = c.slots[(c.head + c.outstanding) % c.slots.size()];
    ++c.outstanding;
    r.scheduled_ns = scheduled_ns;
    r.keys.clear();
    r.versions.clear();
    if (interval_ns_ > 0 && clock_.measured(scheduled_ns))
      result_.schedule_lag.record(now - scheduled_ns);
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
      c.out += value_line_;
      append_value(c.out, key, r.versions.back(), opts_.value_bytes);
      c.out += "\r\n";
      return;
    }
    const std::size_t count = opts_.mix == mix_kind::multiget100 ? multiget_keys : 1;
    c.out += "get";
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint64_t key = splitmix(c.random_state) % opts_.keys;
      r.keys.push_back(key);
      r.versions.push_back(versions_.acked(key));
      c.out += ' ';
      append_key(c.out, key);
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
    const bool want_write = !c.out.empty();
    if (want_write != c.want_write) {
      epoll_event event{.events = EPOLLIN | (want_write ? EPOLLOUT : 0u),
                        .data = {.u64 = static_cast<std::uint64_t>(&c - connections_.data())}};
      epoll_ctl(epoll_, EPOLL_CTL_MOD, c.fd, &event);
      c.want_write = want_write;
    }
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
        result_.latency.record(now - r.scheduled_ns);
        ++result_.requests;
        result_.ops += r.keys.size();
      }
      // closed loop: the freed slot is refilled at once
      if (interval_ns_ == 0 && now < clock_.end_ns) issue(c, now, now);
    }
    if (c.in_start == c.in.size()) {
      c.in.clear();
      c.in_start = 0;
    } else if (c.in_start > 65536) {
      c.in.erase(0, c.in_start);
      c.in_start = 0;
    }
    flush(c);
  }

  /// Bytes of the set reply at the front of `data`; 0 while incomplete.
  std::size_t set_reply(connection& c, const request& r, std::string_view data) {
    const std::size_t eol = data.find("\r\n");
    if (eol == std::string_view::npos) return 0;
    if (data.substr(0, eol) != "STORED") {
      unexpected(c, "set", data.substr(0, eol));
      return c.dead ? 0 : eol + 2;
    }
    versions_.acknowledge(r.keys[0], r.versions[0]);
    return eol + 2;
  }

  /// Bytes of the get reply at the front of `data`, checked; 0 while incomplete or on an error
  /// that closed the connection.
  std::size_t get_reply(connection& c, const request& r, std::string_view data) {
    std::size_t pos = 0;
    std::size_t next_key = 0;  // values come in the order of the keys asked for
    std::uint64_t hits = 0;
    std::uint64_t wrong = 0;
    std::string first_wrong;
    for (;;) {
      const std::size_t eol = data.find("\r\n", pos);
      if (eol == std::string_view::npos) return 0;
      const std::string_view line = data.substr(pos, eol - pos);
      if (line == "END") {
        pos = eol + 2;
        break;
      }
      // "VALUE <key> <flags> <bytes>"
      std::uint64_t key = 0;
      std::uint64_t flags = 1;
      std::uint64_t bytes = 0;
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
      const std::string_view value = data.substr(eol + 2, bytes);
      if (data.substr(eol + 2 + bytes, 2) != "\r\n") {
        unexpected(c, "get (value not followed by CRLF)", line);
        return 0;
      }
      const std::string why = check_value(key, r.versions[next_key], value);
      if (!why.empty() && wrong++ == 0) first_wrong = "key " + std::to_string(key) + ": " + why;
      ++hits;
      ++next_key;
      pos = eol + 2 + bytes + 2;
    }
    result_.errors.wrong_values += wrong;
    if (wrong > 0) report("wrong value: " + first_wrong);
    if (clock_.measured(r.scheduled_ns)) {
      result_.hits += hits;
      result_.misses += r.keys.size() - hits;
    }
    return pos;
  }

  /// Empty if `value` is a version of `key` no older than `oldest` and no newer than was sent.
  std::string check_value(std::uint64_t key, std::uint32_t oldest, std::string_view value) {
    std::uint64_t version = 0;
    std::uint64_t named_key = 0;
    if (value.size() < value_header_bytes || !parse_number(value.substr(0, 10), version) ||
        !parse_number(value.substr(11, 28), named_key))
      return "malformed value '" + std::string(value.substr(0, 40)) + "'";
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
    ++result_.errors.unexpected_replies;
    report(std::string("unexpected reply to ") + what + ": '" +
           std::string(line.substr(0, 120)) + "'");
    // An error line ("SERVER_ERROR ...") is a whole reply; anything else loses the thread.
    const bool whole_reply = line.starts_with("SERVER_ERROR") ||
                             line.starts_with("CLIENT_ERROR") || line == "ERROR";
    if (!whole_reply) lose(c, "cannot follow the replies after that");
  }

  void lose(connection& c, const std::string& why) {
    if (c.dead) return;
    report("connection " + std::to_string(c.id) + ": " + why + " (" +
           std::to_string(c.outstanding) + " requests unanswered)");
    c.dead = true;
    close(c.fd);
  }

  /// After the run: requests still out were not answered; requests still due were never sent.
  void finish(connection& c) {
    if (!c.dead) {
      if (c.outstanding > 0)
        report("connection " + std::to_string(c.id) + ": " + std::to_string(c.outstanding) +
               " requests unanswered 2 s after the end");
      close(c.fd);
    }
    result_.errors.unanswered += c.outstanding;
    if (interval_ns_ == 0) return;
    for (std::uint64_t slot = c.next_slot;; ++slot) {
      const std::int64_t due = scheduled(c, slot);
      if (due >= clock_.end_ns) break;
      if (!clock_.measured(due)) continue;
      result_.latency.record(clock_.end_ns - due);
      ++result_.unsent;
    }
  }

  const options& opts_;
  key_versions& versions_;
  const run_clock& clock_;
  double interval_ns_ = 0;
  std::string value_line_ = " 0 0 " + std::to_string(opts_.value_bytes) + "\r\n";
  std::string expected_;
  std::vector<connection> connections_;
  worker_result result_;
  int epoll_ = -1;
  int timer_ = -1;
};

options parse_options(int argc, char** argv) {
  options opts;
  const auto number = [](const std::string& name, const std::string& text) {
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !(value >= 0))
      fail("--" + name + " wants a number >= 0, not '" + text + "'");
    return value;
  };
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (!arg.starts_with("--")) fail("unexpected argument '" + arg + "' (see --help)");
    arg.erase(0, 2);
    std::string value;
    const std::size_t equals = arg.find('=');
    const bool is_switch = arg == "json" || arg == "help";
    if (equals != std::string::npos) {
      value = arg.substr(equals + 1);
      arg.erase(equals);
    } else if (!is_switch) {
      if (i + 1 == argc) fail("--" + arg + " wants a value");
      value = argv[++i];
    }
    const auto integer = [&] { return static_cast<std::uint64_t>(number(arg, value)); };
    if (arg == "host") opts.host = value;
    else if (arg == "port") opts.port = value;
    else if (arg == "connections") opts.connections = integer();
    else if (arg == "threads") opts.threads = integer();
    else if (arg == "duration") opts.duration_s = number(arg, value);
    else if (arg == "warmup") opts.warmup_s = number(arg, value);
    else if (arg == "keys") opts.keys = integer();
    else if (arg == "value-bytes") opts.value_bytes = integer();
    else if (arg == "rate") opts.rate = number(arg, value);
    else if (arg == "pipeline") opts.pipeline = integer();
    else if (arg == "seed") opts.seed = integer();
    else if (arg == "json") opts.json = true;
    else if (arg == "help") fail("usage: see the comment at the top of server/tools/load_generator.cpp");
    else if (arg == "mix") {
      opts.mix_name = value;
      if (value == "get90") opts.mix = mix_kind::get90;
      else if (value == "set50") opts.mix = mix_kind::set50;
      else if (value == "multiget100") opts.mix = mix_kind::multiget100;
      else fail("--mix is get90, set50 or multiget100, not '" + value + "'");
    } else {
      fail("unknown option --" + arg + " (see --help)");
    }
  }
  if (opts.port.empty()) fail("--port is required");
  if (opts.connections == 0 || opts.threads == 0 || opts.pipeline == 0 || opts.duration_s <= 0)
    fail("--connections, --threads, --pipeline and --duration must be > 0");
  if (opts.keys < opts.connections || opts.keys > (1ull << 32))
    fail("--keys must be at least --connections (each connection sets its own keys) and <= 2^32");
  if (opts.value_bytes < value_header_bytes)
    fail("--value-bytes must be >= 40: a value carries its key and version");
  opts.threads = std::min(opts.threads, opts.connections);
  return opts;
}

void print(const options& opts, const worker_result& total, double client_cpu_s) {
  const double ops_per_s = static_cast<double>(total.ops) / opts.duration_s;
  const double requests_per_s = static_cast<double>(total.requests) / opts.duration_s;
  const std::uint64_t looked_up = total.hits + total.misses;
  const double hit_ratio =
      looked_up == 0 ? 1.0 : static_cast<double>(total.hits) / static_cast<double>(looked_up);
  const char* format =
      opts.json
          ? "{\"tool\":\"gpuhash-load\",\"mix\":\"%s\",\"connections\":%zu,\"client_threads\":%zu,"
            "\"pipeline\":%zu,\"rate\":%.0f,\"duration_s\":%.1f,\"warmup_s\":%.1f,\"keys\":%llu,"
            "\"value_bytes\":%zu,\"requests\":%llu,\"ops\":%llu,\"ops_per_s\":%.0f,"
            "\"requests_per_s\":%.0f,\"p50_us\":%.1f,\"p90_us\":%.1f,\"p99_us\":%.1f,"
            "\"p999_us\":%.1f,\"max_us\":%.1f,\"mean_us\":%.1f,\"schedule_lag_p99_us\":%.1f,"
            "\"hit_ratio\":%.6f,\"errors\":%llu,\"wrong_values\":%llu,"
            "\"unexpected_replies\":%llu,\"unanswered\":%llu,\"unsent\":%llu,"
            "\"client_cpu_s\":%.2f}\n"
          : "mix %s, %zu connections on %zu threads, pipeline %zu, rate %.0f ops/s (0: closed "
            "loop), %.1f s after %.1f s warm-up, %llu keys, %zu-byte values\n"
            "  %llu requests, %llu ops: %.0f ops/s, %.0f requests/s\n"
            "  latency us: p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f  mean %.1f\n"
            "  schedule lag p99 %.1f us\n"
            "  hit ratio %.6f; errors %llu (wrong values %llu, unexpected replies %llu, "
            "unanswered %llu); unsent %llu; client cpu %.2f s\n";
  const auto ull = [](std::uint64_t v) { return static_cast<unsigned long long>(v); };
  std::printf(format, opts.mix_name.c_str(), opts.connections, opts.threads, opts.pipeline,
              opts.rate, opts.duration_s, opts.warmup_s, ull(opts.keys), opts.value_bytes,
              ull(total.requests), ull(total.ops), ops_per_s, requests_per_s,
              total.latency.quantile_us(0.5), total.latency.quantile_us(0.9),
              total.latency.quantile_us(0.99), total.latency.quantile_us(0.999),
              total.latency.max_us(), total.latency.mean_us(), total.schedule_lag.quantile_us(0.99),
              hit_ratio, ull(total.errors.total()),
              ull(total.errors.wrong_values), ull(total.errors.unexpected_replies),
              ull(total.errors.unanswered), ull(total.unsent), client_cpu_s);
}

int run(const options& opts) {
  prctl(PR_SET_TIMERSLACK, 1UL);  // wake-ups on the schedule, not up to 50 us late
  key_versions versions(opts.keys);
  worker_result total;
  preload(opts, versions, total.errors);

  run_clock clock{};
  std::vector<std::unique_ptr<worker>> workers;
  for (std::size_t t = 0; t < opts.threads; ++t)
    workers.push_back(std::make_unique<worker>(opts, versions, clock));
  for (std::uint64_t id = 0; id < opts.connections; ++id) workers[id % opts.threads]->add(id);
  clock.start_ns = now_ns() + 10'000'000;  // once every thread is up
  clock.measure_ns = clock.start_ns + static_cast<std::int64_t>(opts.warmup_s * 1e9);
  clock.end_ns = clock.measure_ns + static_cast<std::int64_t>(opts.duration_s * 1e9);

  std::vector<worker_result> results(opts.threads);
  std::vector<std::thread> threads;
  std::vector<std::string> failures(opts.threads);
  for (std::size_t t = 0; t < opts.threads; ++t)
    threads.emplace_back([&, t] {
      try {
        results[t] = workers[t]->run();
      } catch (const std::exception& e) {
        failures[t] = e.what();
      }
    });
  for (std::thread& thread : threads) thread.join();
  for (const std::string& failure : failures)
    if (!failure.empty()) fail(failure);
  for (const worker_result& r : results) {
    total.latency.merge(r.latency);
    total.schedule_lag.merge(r.schedule_lag);
    total.requests += r.requests;
    total.ops += r.ops;
    total.hits += r.hits;
    total.misses += r.misses;
    total.unsent += r.unsent;
    total.errors.wrong_values += r.errors.wrong_values;
    total.errors.unexpected_replies += r.errors.unexpected_replies;
    total.errors.unanswered += r.errors.unanswered;
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const double cpu_s = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                       static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
  print(opts, total, cpu_s);
  return total.errors.total() == 0 ? 0 : 2;
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
