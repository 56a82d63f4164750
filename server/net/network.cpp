// Listeners, workers and connections (network.hpp).

#include "net/network.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include "net/connection.hpp"
#include "net/connection_memory.hpp"

namespace gpuhash::server::net {

namespace {

/// Output waiting for a slow client beyond which a connection stops parsing.
constexpr std::size_t output_backlog_limit = 16u << 20;
/// Requests one group carries at most (more wait for the next group), and
/// while the memory budget is pressed.
constexpr std::size_t group_limit = 4096;
constexpr std::size_t pressed_group_limit = 64;
/// Replies at most this long may be sent by the thread that completed their
/// group (worker::send_replies_now); longer ones wait for the worker.
constexpr std::size_t reply_at_completion_limit = 64u << 10;
/// How often a worker looks again at connections waiting for memory when
/// none has been given back meanwhile.
constexpr int starved_poll_ms = 5;
constexpr auto starved_retry_anyway = std::chrono::milliseconds(100);
constexpr std::string_view too_many_connections = "ERROR Too many open connections\r\n";
constexpr std::string_view too_large = "SERVER_ERROR object too large for cache\r\n";

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error(what + ": " + std::strerror(errno));
}

std::string address_of(const sockaddr_storage& address) {
  char host[INET6_ADDRSTRLEN] = "?";
  std::uint16_t port = 0;
  if (address.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(address);
    inet_ntop(AF_INET, &v4.sin_addr, host, sizeof host);
    port = ntohs(v4.sin_port);
  } else if (address.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(address);
    inet_ntop(AF_INET6, &v6.sin6_addr, host, sizeof host);
    port = ntohs(v6.sin6_port);
  } else {
    return "unix";
  }
  return std::string("tcp:") + host + ":" + std::to_string(port);
}

/// A connection accepted by one worker, handed to another.
struct accepted_connection {
  int fd;
  std::string address;
  bool tls;
};

}  // namespace

class network::worker {
 public:
  worker(network& owner, std::size_t number) : owner_(owner), number_(number) {
    epoll_ = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_ < 0) fail("epoll_create1");
    wake_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wake_ < 0) fail("eventfd");
    add(wake_, EPOLLIN | EPOLLET);
    for (const listener& each : owner_.listeners_) add(each.fd, EPOLLIN | EPOLLEXCLUSIVE);
    spare_fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  }
  ~worker() {
    for (auto& [fd, conn] : connections_) ::close(fd);
    for (const accepted_connection& each : adopted_) ::close(each.fd);
    ::close(wake_);
    ::close(epoll_);
    if (spare_fd_ >= 0) ::close(spare_fd_);
  }

  void start(engine::engine& engine) {
    engine_ = &engine;
    thread_ = std::thread([this] { loop(); });
  }
  void stop() {
    stopping_ = true;
    signal();
    if (thread_.joinable()) thread_.join();
  }
  /// From the thread that ran its batch: a group is back. When that thread
  /// is this worker's own (the engine runs batches on the submitting thread
  /// when its index is on the CPU), the group is finished after the batch,
  /// in drain_local, with no wake-up.
  void complete(engine::request_group& group, engine::completer by) {
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
  /// From another worker: a connection it accepted, to be served here.
  void adopt(accepted_connection accepted) {
    bool first = false;
    {
      std::lock_guard lock(done_mutex_);
      first = adopted_.empty() && done_.empty();
      adopted_.push_back(std::move(accepted));
      handed_over_.store(true);
    }
    wake_if_asleep(first);
  }
  void describe(std::string& out) const {
    std::lock_guard lock(connections_mutex_);
    for (const auto& [fd, conn] : connections_) {
      const std::string prefix = "STAT " + std::to_string(fd) + ":";
      out += prefix + "addr " + conn->address + "\r\n";
      out +=
          prefix + "state " + (conn->waiting.load() ? "conn_waiting" : "conn_parse_cmd") + "\r\n";
    }
  }

 private:
  /// After handing this worker a group or a connection: a worker that is
  /// awake looks at handed_over_ on every turn of its loop, so only one
  /// asleep in epoll_wait (or about to be) needs the eventfd, whose write
  /// and read cost a system call each per batch and worker. One wake-up
  /// takes everything handed over by then (`first`). handed_over_ is set
  /// before asleep_ is read here, and asleep_ set before handed_over_ is
  /// read by the worker (both sequentially consistent): either the worker
  /// sees the handover before it sleeps, or this sees it asleep.
  void wake_if_asleep(bool first) {
    if (first && asleep_.load()) signal();
  }
  /// On an idle batch thread that completed a group (engine::completer::
  /// idle): sends the replies at once when the connection has
  /// nothing else to send (so they stay in order) and they are short. The
  /// reply then goes out without waiting for the worker to take the group
  /// back. The worker sends what is left. (A busy batch thread hands its
  /// groups straight back instead: its sends would delay its next batch.)
  /// Never on a TLS connection, whose session the worker may be reading
  /// with at this moment.
  static void send_replies_now(engine::request_group& group) {
    connection& conn = connection_of(group);
    const std::string& replies = group.replies;
    if (!conn.reply_at_completion || conn.tls || replies.empty() ||
        replies.size() > reply_at_completion_limit)
      return;
    const ssize_t sent =
        ::send(conn.fd, replies.data(), replies.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent > 0) conn.replies_sent = static_cast<std::size_t>(sent);
  }
  void signal() {
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto written = ::write(wake_, &one, sizeof one);
  }
  void add(int fd, std::uint32_t events) {
    epoll_event event{};
    event.events = events;
    event.data.fd = fd;
    if (epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &event) != 0) fail("epoll_ctl");
  }
  const listener* listener_of(int fd) const {
    for (const listener& each : owner_.listeners_)
      if (each.fd == fd) return &each;
    return nullptr;
  }

  void loop() {
    running_worker = this;
    epoll_event events[256];
    const auto spin = std::chrono::microseconds(owner_.settings_.spin_us);
    auto last_event = std::chrono::steady_clock::now();
    while (!stopping_) {
      // With cores to spare, poll for spin_us after the last event before
      // sleeping: a reply then goes out without a wake-up.
      bool polling = spin.count() != 0 && std::chrono::steady_clock::now() - last_event < spin;
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
      retry_starved();
      drain_local();
    }
  }

  void serve_event(connection& conn, std::uint32_t flags) {
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

  /// Hands the engine the groups this round of events parsed, all at once
  /// (so that the connections served together share a batch), and finishes
  /// the ones it answered on this thread, which may parse and submit more.
  void drain_local() {
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

  void accept_all(const listener& from) {
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
      const int on = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
      // Connections go round-robin over the workers, as in memcached: the
      // worker that wakes for a burst of connects would otherwise keep them all.
      worker& target = owner_.next_worker();
      accepted_connection accepted{fd, address_of(address), from.tls};
      if (&target == this) {
        serve(std::move(accepted));
      } else {
        target.adopt(std::move(accepted));
      }
    }
  }

  void serve(accepted_connection accepted) {
    auto conn = std::make_unique<connection>();
    conn->fd = accepted.fd;
    conn->address = std::move(accepted.address);
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

  void take_adopted() {
    std::vector<accepted_connection> adopted;
    {
      std::lock_guard lock(done_mutex_);
      adopted.swap(adopted_);
      handed_over_.store(!done_.empty(), std::memory_order_relaxed);
    }
    for (accepted_connection& each : adopted) serve(std::move(each));
  }

  // ---- memory (connection_memory.hpp) ---------------------------------------

  void recharge(connection& conn) { net::recharge(conn, owner_.budget_); }

  bool grant_room(connection& conn) {
    if (net::grant_room(conn, owner_.budget_)) return true;
    starve(conn);
    return false;
  }

  /// The connection waits for memory; retry_starved looks at it again. A
  /// stall is counted once, however often it is looked at again.
  void starve(connection& conn) {
    if (conn.starved) return;
    conn.starved = true;
    starved_.push_back(conn.fd);
    if (!retrying_) owner_.budget_.count_stall();
  }
  /// Looks again at the connections waiting for memory once some was given
  /// back (or a while has passed: memory given back between the look and
  /// the wait is seen then).
  void retry_starved() {
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

  // ---- reading and writing -------------------------------------------------

  /// Reads what the socket holds; returns the bytes read. A read shorter
  /// than the buffer took all there was, so reading stops there (data that
  /// comes later raises a new edge), as memcached does, saving a read that
  /// would say EAGAIN on every request; with `to_the_end` (the peer closed
  /// or failed) it reads on to see the end. A TLS session always reads to
  /// the end: what it has taken from the socket raises no edge.
  std::size_t read_input(connection& conn, bool to_the_end = true) {
    char buffer[64 * 1024];
    to_the_end = to_the_end || conn.tls != nullptr;
    std::size_t total = 0;
    for (;;) {
      std::string& target = conn.waiting || conn.resuming ? conn.side_input : conn.input;
      // A client that sends faster than it is answered is read no further
      // until its input is parsed (settle reads again), rather than filling
      // memory; nor is one the memory budget cannot give more.
      if (target.size() > input_limit()) {
        conn.reading_paused = true;
        return total;
      }
      const std::size_t room = owner_.budget_.room(conn.charged, sizeof buffer);
      if (room == 0) {
        conn.reading_paused = true;
        starve(conn);
        return total;
      }
      const transfer got = conn.receive(buffer, room);
      switch (got.what) {
        case transfer::state::moved:
          target.append(buffer, got.bytes);
          total += got.bytes;
          owner_.stats_.connections.bytes_read += got.bytes;
          recharge(conn);
          if (got.bytes < room && !to_the_end) return total;
          continue;
        case transfer::state::again: return total;
        case transfer::state::closed:
          // EOF: the client may have half-closed after its last requests
          // (`nc -q0`), which are still answered
          conn.read_closed = true;
          return total;
        case transfer::state::failed:
          count_fault(got);
          conn.peer_gone = true;
          return total;
      }
    }
  }

  void write_output(connection& conn) {
    while (conn.output_sent < conn.output.size()) {
      const transfer sent = conn.transmit(conn.output.data() + conn.output_sent,
                                          conn.output.size() - conn.output_sent);
      if (sent.what == transfer::state::moved) {
        conn.output_sent += sent.bytes;
        owner_.stats_.connections.bytes_written += sent.bytes;
        continue;
      }
      if (sent.what == transfer::state::again) {
        // keep only what is still to send, so a client that reads slowly
        // but steadily does not make the buffer grow without end
        if (conn.output_sent > (1u << 20)) {
          conn.output.erase(0, conn.output_sent);
          conn.output_sent = 0;
        }
        return;
      }
      count_fault(sent);
      conn.peer_gone = true;
      return;
    }
    conn.output.clear();
    conn.output_sent = 0;
  }

  void count_fault(const transfer& failed) {
    auto& counters = owner_.stats_.connections;
    if (failed.cause == transfer::fault::handshake) ++counters.ssl_handshake_errors;
    if (failed.cause == transfer::fault::protocol) ++counters.ssl_proto_errors;
  }

  /// Input held per connection at most: the largest request (a value of
  /// item_size_max and its command line) fits with room to spare.
  std::size_t input_limit() const { return (8u << 20) + owner_.settings_.limits.item_size_max; }

  // ---- requests ------------------------------------------------------------

  /// Parses what can be parsed and hands it to the engine, or closes.
  void settle(connection& conn) {
    for (;;) {
      if (conn.waiting) return;
      if (conn.peer_gone || (conn.closing && conn.backlog() == 0)) {
        close(conn);
        return;
      }
      if (conn.resuming) {
        // the rest of an unfinished group goes once the client has read most
        // of what it got (EPOLLOUT brings the connection back here), and
        // once the budget has room for its replies
        if (conn.backlog() > engine::request_group::reply_budget || !grant_room(conn)) return;
        conn.resuming = false;
        conn.group.replies.clear();
        submit(conn);
        return;
      }
      if (conn.closing || conn.backlog() > output_backlog_limit) return;
      if (!conn.authenticated) authenticate(conn);
      if (conn.authenticated) parse_and_submit(conn);
      if (conn.waiting || conn.resuming || conn.peer_gone || conn.closing) continue;
      if (conn.read_closed) {
        // all that came is answered (what is left is an incomplete request)
        conn.closing = true;
        continue;
      }
      release_if_idle(conn, owner_.budget_);
      if (!conn.reading_paused || conn.starved) return;
      // Reading stopped at the limit before the socket was drained, and
      // edge-triggered epoll will not say so again: read on here.
      if (conn.input.size() > input_limit()) {
        conn.peer_gone = true;  // a request larger than any valid one
        continue;
      }
      conn.reading_paused = false;
      if (read_input(conn) == 0 && !conn.read_closed && !conn.peer_gone) return;
    }
  }

  /// Before -Y's authentication: memcached's reading of the input
  /// (ascii_auth.hpp), answered here without the engine.
  void authenticate(connection& conn) {
    auto& counters = owner_.stats_.connections;
    while (!conn.authenticated) {
      const auth_step step = net::authenticate(conn.input, *owner_.resources_.users);
      if (step.what == auth_step::action::need_more) break;
      if (step.what == auth_step::action::close) {
        conn.closing = true;
        conn.input.clear();
        break;
      }
      conn.output.append(step.reply);
      conn.input.erase(0, step.consumed);
      if (step.counted) ++counters.auth_cmds;
      if (step.failed) ++counters.auth_errors;
      conn.authenticated = step.authenticated;
    }
    write_output(conn);
    recharge(conn);
  }

  void parse_and_submit(connection& conn) {
    engine::request_group& group = conn.group;
    group.reset();
    shrink_input(conn, owner_.budget_);
    std::size_t position = 0;
    const std::string_view input = conn.input;
    const std::size_t limit = owner_.budget_.pressed() ? pressed_group_limit : group_limit;
    while (group.used < limit) {
      if (conn.swallow != 0) {
        const std::size_t dropped = std::min(conn.swallow, input.size() - position);
        position += dropped;
        conn.swallow -= dropped;
        if (conn.swallow != 0) break;
      }
      if (position == input.size()) break;
      engine::work_item& item = group.next_item();
      const protocol::parse_result result =
          protocol::parse_request(input.substr(position), owner_.settings_.limits, item.request);
      if (result.outcome == protocol::parse_outcome::need_more) {
        --group.used;
        break;
      }
      if (result.outcome == protocol::parse_outcome::error) {
        item.error_reply = result.error_reply;
        item.silent = result.silent;
        // memcached drops the old value of a set refused as too large
        item.drops_key = (item.request.kind == protocol::command::set ||
                          item.request.kind == protocol::command::meta_set) &&
                         result.error_reply == too_large &&
                         protocol::valid_key(item.request.key, owner_.settings_.limits);
        const std::size_t available = input.size() - position;
        if (result.consumed > available) {
          conn.swallow = result.consumed - available;
          position = input.size();
        } else {
          position += result.consumed;
        }
        if (result.close_connection) {
          group.close_after = true;
          break;
        }
        continue;
      }
      position += result.consumed;
      if (item.request.kind == protocol::command::quit ||
          item.request.kind == protocol::command::shutdown)
        break;  // nothing after it runs
    }
    if (group.used == 0) {
      conn.input.erase(0, position);
      if (group.close_after) conn.closing = true;
      return;
    }
    conn.parsed_end = position;
    if (!grant_room(conn)) {
      conn.resuming = true;  // parsed; it goes when the budget has room (settle)
      return;
    }
    submit(conn);
  }

  /// Queues the connection's group, to be submitted with the others at the
  /// end of this round of events.
  void submit(connection& conn) {
    conn.reply_at_completion = conn.backlog() == 0;
    conn.waiting = true;
    to_submit_.push_back(&conn.group);
  }

  /// Finishes the groups other threads answered.
  void finish_groups() {
    std::vector<engine::request_group*> done;
    {
      std::lock_guard lock(done_mutex_);
      done.swap(done_);
      handed_over_.store(!adopted_.empty(), std::memory_order_relaxed);
    }
    finish(done);
  }

  void finish(const std::vector<engine::request_group*>& done) {
    for (engine::request_group* group : done) {
      connection& conn = connection_of(*group);
      conn.waiting = false;
      if (conn.replies_sent != 0) {  // sent by the thread that completed the group
        owner_.stats_.connections.bytes_written += conn.replies_sent;
        group->replies.erase(0, conn.replies_sent);
        conn.replies_sent = 0;
      }
      if (conn.output.empty()) {
        conn.output.swap(group->replies);  // the replies become the output, uncopied
        conn.output_sent = 0;
      } else {
        conn.output.append(group->replies);
      }
      if (!group->finished()) {
        conn.resuming = true;  // its requests still point into the input
      } else {
        conn.input.erase(0, conn.parsed_end);
        conn.input.append(conn.side_input);
        conn.side_input.clear();
        if (group->close_after) conn.closing = true;
      }
      settle_room(conn, owner_.budget_);
      if (engine_->shutdown_requested()) owner_.shutdown_requested_ = true;
      // (input that came meanwhile was read aside on its EPOLLIN; settle
      // reads on if reading had paused at the limit)
      write_output(conn);
      settle(conn);
    }
  }

  void close(connection& conn) {
    const int fd = conn.fd;
    if (conn.tls) conn.tls->shutdown();
    owner_.budget_.recharge(conn.charged, 0);
    epoll_ctl(epoll_, EPOLL_CTL_DEL, fd, nullptr);
    ::close(fd);
    owner_.stats_.connections.current.fetch_sub(1);
    std::lock_guard lock(connections_mutex_);
    connections_.erase(fd);
  }

  /// The worker whose loop runs on this thread (none on other threads).
  static inline thread_local worker* running_worker = nullptr;

  network& owner_;
  std::size_t number_;
  int epoll_ = -1;
  int wake_ = -1;
  int spare_fd_ = -1;  // given up to accept a client when descriptors run out
  engine::engine* engine_ = nullptr;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::mutex done_mutex_;
  std::vector<engine::request_group*> done_;  // under done_mutex_
  std::vector<accepted_connection> adopted_;  // under done_mutex_
  // done_ or adopted_ holds something (written under done_mutex_, read
  // without it), and this worker is in epoll_wait or about to be: see
  // wake_if_asleep.
  std::atomic<bool> handed_over_{false};
  std::atomic<bool> asleep_{false};
  // This thread's alone: the groups parsed in this round of events, the
  // groups answered by batches run on this thread, and drain_local's spare
  // vectors (kept for their capacity); the connections waiting for memory
  // (by descriptor: one closed meanwhile is skipped).
  std::vector<engine::request_group*> to_submit_;
  std::vector<engine::request_group*> done_here_;
  std::vector<engine::request_group*> submitting_;
  std::vector<engine::request_group*> finishing_;
  std::vector<int> starved_;
  bool retrying_ = false;
  std::uint64_t given_back_seen_ = 0;
  std::chrono::steady_clock::time_point last_retry_;
  mutable std::mutex connections_mutex_;
  std::unordered_map<int, std::unique_ptr<connection>> connections_;
};

network::network(const network_settings& settings, network_resources resources,
                 engine::server_stats& stats)
    : settings_(settings),
      resources_(resources),
      stats_(stats),
      budget_(settings_.memory_limit, connection_allowance, stats.connections.buffer_bytes,
              stats.connections.buffer_stalls) {}

network::~network() {
  stop();
  for (const listener& each : listeners_) ::close(each.fd);
}

void network::listen() {
  listen_settings listen = settings_.listen;
  listen.tls = resources_.tls != nullptr;
  opened_listeners opened = open_listeners(listen);
  listeners_ = std::move(opened.sockets);
  bound_port_ = opened.bound_port;
}

void network::start(engine::engine& engine) {
  for (std::size_t i = 0; i < settings_.threads; ++i)
    workers_.push_back(std::make_unique<worker>(*this, i));
  for (auto& each : workers_) each->start(engine);
}

void network::complete(engine::request_group& group, engine::completer by) {
  static_cast<worker*>(connection_of(group).home)->complete(group, by);
}

std::string network::describe_connections() const {
  std::string out;
  for (const auto& each : workers_) each->describe(out);
  return out;
}

void network::stop() {
  for (auto& each : workers_) each->stop();
  workers_.clear();
}

}  // namespace gpuhash::server::net
