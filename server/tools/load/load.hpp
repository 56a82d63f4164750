#pragma once
// gpuhash-load's pieces shared by its generator threads (load_worker.hpp)
// and its main (load_generator.cpp): options, keys and values, the latency
// histogram, the versions that check each reply, the tallies.

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

namespace gpuhash::load {

constexpr std::size_t key_bytes = 32;
constexpr std::size_t multiget_keys = 100;
constexpr std::size_t value_header_bytes = 40;  // 10 digits of version, ':', 28 of key, ':'
constexpr std::int64_t drain_ns = 2'000'000'000;

inline std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

[[noreturn]] inline void fail(const std::string& what) {
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

inline void append_digits(std::string& out, std::uint64_t value, int width) {
  char digits[32];
  for (int i = width - 1; i >= 0; --i, value /= 10) digits[i] = static_cast<char>('0' + value % 10);
  out.append(digits, static_cast<std::size_t>(width));
}

inline void append_key(std::string& out, std::uint64_t key) {
  out += "key:";
  append_digits(out, key, 28);
}

inline std::uint64_t splitmix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// The value of (key, version): a header naming both, then letters derived from them.
inline void append_value(std::string& out, std::uint64_t key, std::uint32_t version,
                         std::size_t bytes) {
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
inline bool parse_number(std::string_view text, std::uint64_t& value) {
  value = 0;
  for (char c : text) {
    if (c < '0' || c > '9' || value > (~0ull - 9) / 10) return false;
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return !text.empty();
}

/// Whether `text` is one of our keys ("key:" and 28 digits), and which.
inline bool parse_key(std::string_view text, std::uint64_t& key) {
  return text.size() == key_bytes && text.starts_with("key:") && parse_number(text.substr(4), key);
}

inline int connect_to(const options& opts) {
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
inline void report(const std::string& message) {
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

}  // namespace gpuhash::load
