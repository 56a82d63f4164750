#pragma once
// A gpuhash-load generator thread (load_generator.cpp says what it does).

#include "tools/load/load.hpp"

namespace gpuhash::load {

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

}  // namespace gpuhash::load
