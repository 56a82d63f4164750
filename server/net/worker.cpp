// A worker's epoll loop: accepting connections, taking back the groups the
// engine finished, and the connections waiting for memory (worker.hpp).

#include "net/worker.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <string>

#include "net/connection_memory.hpp"

namespace gpuhash::server::net {

namespace {

/// Replies at most this long may be sent by the thread that completed their
/// group (worker::send_replies_now); longer ones wait for the worker.
constexpr std::size_t reply_at_completion_limit = 64u << 10;
/// How often a worker looks again at connections waiting for memory when
/// none has been given back meanwhile.
constexpr int starved_poll_ms = 5;
constexpr auto starved_retry_anyway = std::chrono::milliseconds(100);
constexpr std::string_view too_many_connections = "ERROR Too many open connections\r\n";

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error(what + ": " + std::strerror(errno));
}

}  // namespace

network::worker::worker(network& owner, std::size_t number) : owner_(owner), number_(number) {
  epoll_ = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_ < 0) fail("epoll_create1");
  wake_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_ < 0) fail("eventfd");
  add(wake_, EPOLLIN | EPOLLET);
  for (const listener& each : owner_.listeners_) add(each.fd, EPOLLIN | EPOLLEXCLUSIVE);
  spare_fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
}

network::worker::~worker() {
  for (auto& [fd, conn] : connections_) ::close(fd);
  for (const accepted_connection& each : adopted_) ::close(each.fd);
  ::close(wake_);
  ::close(epoll_);
  if (spare_fd_ >= 0) ::close(spare_fd_);
}

void network::worker::start(engine::engine& engine) {
  engine_ = &engine;
  thread_ = std::thread([this] {
    // Named as memcached names its threads (top -H, perf).
    const std::string name = "gh-worker-" + std::to_string(number_);
    prctl(PR_SET_NAME, name.c_str(), 0UL, 0UL, 0UL);
    loop();
  });
}

void network::worker::stop() {
  stopping_ = true;
  signal();
  if (thread_.joinable()) thread_.join();
}

void network::worker::complete(engine::request_group& group, engine::completer by) {
  if (running_worker == this) {
    done_here_.push_back(&group);
    return;
  }
  if (by == engine::completer::idle) send_replies_now(group);
  bool first = false;
  {
    std::lock_guard lock(done_mutex_);
    first = done_.empty() && adopted_.empty();
    done_.push_back(&group);
    handed_over_.store(true);
  }
  wake_if_asleep(first);
}

void network::worker::adopt(accepted_connection accepted) {
  bool first = false;
  {
    std::lock_guard lock(done_mutex_);
    first = adopted_.empty() && done_.empty();
    adopted_.push_back(std::move(accepted));
    handed_over_.store(true);
  }
  wake_if_asleep(first);
}

void network::worker::ask_for_memory() {
  memory_wanted_.store(true);
  signal();
}

void network::worker::describe(std::int64_t now, std::string& out) const {
  std::lock_guard lock(connections_mutex_);
  for (const auto& [fd, conn] : connections_) {
    const std::string prefix = "STAT " + std::to_string(fd) + ":";
    out += prefix + "addr " + conn->address + "\r\n";
    out += prefix + "listen_addr " + conn->listen_address + "\r\n";
    // memcached's names: running requests, or waiting for more
    out += prefix + "state " + (conn->waiting.load() ? "conn_parse_cmd" : "conn_read") + "\r\n";
    out += prefix + "secs_since_last_cmd " + std::to_string(now - conn->last_command_at.load()) +
           "\r\n";
  }
}

void network::worker::wake_if_asleep(bool first) {
  if (first && asleep_.load()) signal();
}

void network::worker::send_replies_now(engine::request_group& group) {
  connection& conn = connection_of(group);
  const std::string& replies = group.replies;
  if (!conn.reply_at_completion || conn.tls || replies.empty() ||
      replies.size() > reply_at_completion_limit)
    return;
  const ssize_t sent = ::send(conn.fd, replies.data(), replies.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  if (sent > 0) conn.replies_sent = static_cast<std::size_t>(sent);
}

void network::worker::signal() {
  const std::uint64_t one = 1;
  [[maybe_unused]] const auto written = ::write(wake_, &one, sizeof one);
}

void network::worker::add(int fd, std::uint32_t events) {
  epoll_event event{};
  event.events = events;
  event.data.fd = fd;
  if (epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &event) != 0) fail("epoll_ctl");
}

const listener* network::worker::listener_of(int fd) const {
  for (const listener& each : owner_.listeners_)
    if (each.fd == fd) return &each;
  return nullptr;
}

void network::worker::loop() {
  running_worker = this;
  epoll_event events[256];
  const auto spin = std::chrono::microseconds(owner_.settings_.spin_us);
  auto last_event = std::chrono::steady_clock::now();
  while (!stopping_) {
    // With cores to spare, poll for spin_us after the last event before
    // sleeping: a reply then goes out without a wake-up. Connections that
    // yielded go on in the next round, which does not wait either.
    bool polling = !yielded_.empty() ||
                   (spin.count() != 0 && std::chrono::steady_clock::now() - last_event < spin);
    if (!polling) {
      asleep_.store(true);
      polling = handed_over_.load();  // handed over before asleep_ was seen: do not sleep
    }
    // connections waiting for memory are looked at again every few milliseconds
    const int timeout = polling ? 0 : starved_.empty() ? -1 : starved_poll_ms;
    const int ready = epoll_wait(epoll_, events, 256, timeout);
    asleep_.store(false, std::memory_order_relaxed);
    if (ready < 0 && errno != EINTR) fail("epoll_wait");
    if (ready > 0) last_event = std::chrono::steady_clock::now();
    if (handed_over_.load(std::memory_order_acquire)) {
      take_adopted();
      finish_groups();
    }
    if (memory_wanted_.load(std::memory_order_relaxed) && memory_wanted_.exchange(false))
      release_idle();
    for (int i = 0; i < ready; ++i) {
      const int fd = events[i].data.fd;
      if (fd == wake_) {
        std::uint64_t count = 0;
        [[maybe_unused]] const auto read_bytes = ::read(wake_, &count, sizeof count);
        take_adopted();
        finish_groups();
      } else if (const listener* accepting = listener_of(fd)) {
        accept_all(*accepting);
      } else {
        const auto found = connections_.find(fd);
        if (found == connections_.end()) continue;
        serve_event(*found->second, events[i].events);
      }
    }
    serve_yielded();
    retry_starved();
    drain_local();
  }
}

void network::worker::serve_event(connection& conn, std::uint32_t flags) {
  const bool hangup = (flags & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0;
  // Reset, or closed both ways: nothing more can be sent. (A client that
  // only half-closes, EPOLLRDHUP, is still answered.) A connection that
  // is stalled, reading nothing, learns of it here.
  if ((flags & (EPOLLHUP | EPOLLERR)) != 0) conn.peer_gone = true;
  // A TLS session may need to read to write or write to read (a
  // handshake, a key update): it tries both on any event.
  const bool tls = conn.tls != nullptr;
  if ((flags & EPOLLOUT) || (tls && conn.backlog() != 0)) write_output(conn);
  if ((flags & EPOLLIN) || hangup || (tls && (flags & EPOLLOUT))) read_input(conn, hangup);
  settle(conn);
}

void network::worker::drain_local() {
  while (!to_submit_.empty() || !done_here_.empty()) {
    if (!to_submit_.empty()) {
      submitting_.swap(to_submit_);
      engine_->submit(submitting_);
      submitting_.clear();
    }
    if (!done_here_.empty()) {
      finishing_.swap(done_here_);
      finish(finishing_);
      finishing_.clear();
    }
  }
}

void network::worker::accept_all(const listener& from) {
  for (;;) {
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    const int fd = accept4(from.fd, reinterpret_cast<sockaddr*>(&address), &length,
                           SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      // Out of file descriptors: the listener would stay ready and wake
      // this loop forever. The spare descriptor makes room to accept the
      // client, tell it, and close it.
      if ((errno == EMFILE || errno == ENFILE) && spare_fd_ >= 0) {
        ::close(spare_fd_);
        const int refused = accept4(from.fd, nullptr, nullptr, SOCK_CLOEXEC);
        if (refused >= 0) {
          // (a TLS client cannot read the plaintext line; it sees the close)
          if (!from.tls) {
            [[maybe_unused]] const auto sent = ::send(refused, too_many_connections.data(),
                                                      too_many_connections.size(), MSG_NOSIGNAL);
          }
          ::close(refused);
          ++owner_.stats_.connections.rejected;
        }
        spare_fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
        continue;
      }
      return;  // EAGAIN: another worker took it, or none left
    }
    auto& counters = owner_.stats_.connections;
    if (counters.current.fetch_add(1) >= owner_.settings_.max_connections) {
      counters.current.fetch_sub(1);
      ++counters.rejected;
      if (!from.tls) {
        [[maybe_unused]] const auto sent =
            ::send(fd, too_many_connections.data(), too_many_connections.size(), MSG_NOSIGNAL);
      }
      ::close(fd);
      if (owner_.settings_.verbosity > 0)
        std::fprintf(stderr, "gpuhash-server: too many open connections\n");
      continue;
    }
    ++counters.total;
    const std::uint64_t open = counters.current.load();
    for (std::uint64_t most = counters.most.load(); open > most;)
      if (counters.most.compare_exchange_weak(most, open)) break;
    const int on = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    // Connections go round-robin over the workers, as in memcached: the
    // worker that wakes for a burst of connects would otherwise keep them all.
    worker& target = owner_.next_worker();
    sockaddr_storage local{};
    socklen_t local_length = sizeof local;
    getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_length);
    accepted_connection accepted{fd, address_text(address), address_text(local), from.tls};
    if (&target == this) {
      serve(std::move(accepted));
    } else {
      target.adopt(std::move(accepted));
    }
  }
}

void network::worker::serve(accepted_connection accepted) {
  auto conn = std::make_unique<connection>();
  conn->fd = accepted.fd;
  conn->address = std::move(accepted.address);
  conn->listen_address = std::move(accepted.listen_address);
  conn->last_command_at = std::time(nullptr);
  conn->authenticated = owner_.resources_.users == nullptr;
  conn->reply_room = initial_reply_room;
  conn->group.conn = conn.get();
  conn->home = this;
  if (accepted.tls) {
    try {
      conn->tls = std::make_unique<tls_session>(*owner_.resources_.tls, accepted.fd);
    } catch (const std::exception& error) {
      if (owner_.settings_.verbosity > 0)
        std::fprintf(stderr, "gpuhash-server: %s\n", error.what());
      ::close(accepted.fd);
      owner_.stats_.connections.current.fetch_sub(1);
      return;
    }
  }
  recharge(*conn);
  const int fd = conn->fd;
  {
    std::lock_guard lock(connections_mutex_);
    connections_.emplace(fd, std::move(conn));
  }
  add(fd, EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET);
}

void network::worker::take_adopted() {
  std::vector<accepted_connection> adopted;
  {
    std::lock_guard lock(done_mutex_);
    adopted.swap(adopted_);
    handed_over_.store(!done_.empty(), std::memory_order_relaxed);
  }
  for (accepted_connection& each : adopted) serve(std::move(each));
}

void network::worker::starve(connection& conn) {
  if (conn.starved) return;
  conn.starved = true;
  starved_.push_back(conn.fd);
  if (!retrying_) {
    owner_.budget_.count_stall();
    owner_.ask_for_memory();
  }
}

void network::worker::retry_starved() {
  if (starved_.empty()) return;
  const auto now = std::chrono::steady_clock::now();
  const std::uint64_t given_back = owner_.budget_.given_back();
  if (given_back == given_back_seen_ && now - last_retry_ < starved_retry_anyway) return;
  given_back_seen_ = given_back;
  last_retry_ = now;
  std::vector<int> waiting;
  waiting.swap(starved_);
  retrying_ = true;
  for (const int fd : waiting) {
    const auto found = connections_.find(fd);
    if (found == connections_.end() || !found->second->starved) continue;
    connection& conn = *found->second;
    conn.starved = false;
    settle(conn);
  }
  retrying_ = false;
}

void network::worker::serve_yielded() {
  serving_yielded_.swap(yielded_);
  for (const int fd : serving_yielded_) {
    const auto found = connections_.find(fd);
    if (found == connections_.end() || !found->second->next_round) continue;
    connection& conn = *found->second;
    conn.next_round = false;
    settle(conn);
  }
  serving_yielded_.clear();
}

void network::worker::release_idle() {
  // (the map changes on this thread alone: no lock to read it here)
  for (auto& [fd, conn] : connections_) release_if_idle(*conn, owner_.budget_);
}

void network::worker::close(connection& conn) {
  const int fd = conn.fd;
  if (conn.tls) conn.tls->shutdown();
  release_all(conn, owner_.budget_);
  epoll_ctl(epoll_, EPOLL_CTL_DEL, fd, nullptr);
  ::close(fd);
  owner_.stats_.connections.current.fetch_sub(1);
  std::lock_guard lock(connections_mutex_);
  connections_.erase(fd);
}

}  // namespace gpuhash::server::net
