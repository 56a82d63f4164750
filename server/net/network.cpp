// Listeners, workers and connections (network.hpp).

#include "net/network.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <unordered_map>

namespace gpuhash::server::net {

namespace {

/// Output waiting for a slow client beyond which a connection stops parsing.
constexpr std::size_t output_backlog_limit = 16u << 20;
/// Requests one group carries at most (more wait for the next group).
constexpr std::size_t group_limit = 4096;
/// Replies at most this long may be sent by the thread that completed their
/// group (worker::send_replies_now); longer ones wait for the worker.
constexpr std::size_t reply_at_completion_limit = 64u << 10;
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

struct connection {
  int fd = -1;
  std::string address;
  std::string input;           // bytes read and not yet consumed
  std::string side_input;      // bytes read while a group's requests point into input
  std::size_t parsed_end = 0;  // input consumed by the group that is out
  std::size_t swallow = 0;     // bytes of a refused value still to drop
  std::string output;
  std::size_t output_sent = 0;
  std::atomic<bool> waiting{false};  // a group is with the engine (`stats conns` reads it)
  bool resuming = false;             // the group came back unfinished: submit it again
  bool closing = false;              // close once the output is written
  bool read_closed = false;          // the client sent all it will (EOF): answer, then close
  bool peer_gone = false;            // the socket failed: close now
  bool reading_paused = false;       // input_limit reached before the socket was drained
  // Set by the worker as a group goes to the engine: nothing of the
  // connection's waits to be sent, so the thread that completes the group
  // may send its replies at once (worker::send_replies_now); and how many
  // bytes that thread sent, which the worker reads once the group is back
  // (the engine's queue and the worker's done_mutex_ order the two).
  bool reply_at_completion = false;
  std::size_t replies_sent = 0;
  engine::request_group group;
  void* home = nullptr;  // the worker that owns it
};

/// The connection a group belongs to.
connection& connection_of(engine::request_group* group) {
  return *static_cast<connection*>(group->owner);
}

}  // namespace

class network::worker {
 public:
  worker(network& owner, std::size_t number) : owner_(owner), number_(number) {
    epoll_ = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_ < 0) fail("epoll_create1");
    wake_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wake_ < 0) fail("eventfd");
    add(wake_, EPOLLIN | EPOLLET);
    for (const int listener : owner_.listeners_) add(listener, EPOLLIN | EPOLLEXCLUSIVE);
    spare_fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  }
  ~worker() {
    for (auto& [fd, conn] : connections_) ::close(fd);
    for (auto& [fd, address] : adopted_) ::close(fd);
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
  void complete(engine::request_group* group) {
    if (running_worker == this) {
      done_here_.push_back(group);
      return;
    }
    if (group->completer_idle) send_replies_now(group);
    bool first = false;
    {
      std::lock_guard lock(done_mutex_);
      first = done_.empty() && adopted_.empty();
      done_.push_back(group);
      handed_over_.store(true);
    }
    wake_if_asleep(first);
  }
  /// From another worker: a connection it accepted, to be served here.
  void adopt(int fd, std::string address) {
    bool first = false;
    {
      std::lock_guard lock(done_mutex_);
      first = adopted_.empty() && done_.empty();
      adopted_.emplace_back(fd, std::move(address));
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
  /// On an idle batch thread that completed a group (request_group::
  /// completer_idle): sends the replies at once when the connection has
  /// nothing else to send (so they stay in order) and they are short. The
  /// reply then goes out without waiting for the worker to take the group
  /// back. The worker sends what is left. (A busy batch thread hands its
  /// groups straight back instead: its sends would delay its next batch.)
  static void send_replies_now(engine::request_group* group) {
    connection& conn = connection_of(group);
    const std::string& replies = group->replies;
    if (!conn.reply_at_completion || replies.empty() || replies.size() > reply_at_completion_limit)
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
  bool is_listener(int fd) const {
    for (const int listener : owner_.listeners_)
      if (listener == fd) return true;
    return false;
  }

  void loop() {
    running_worker = this;
    epoll_event events[256];
    const auto spin = std::chrono::microseconds(owner_.config_.spin_us);
    auto last_event = std::chrono::steady_clock::now();
    while (!stopping_) {
      // With cores to spare, poll for spin_us after the last event before
      // sleeping: a reply then goes out without a wake-up.
      bool polling = spin.count() != 0 && std::chrono::steady_clock::now() - last_event < spin;
      if (!polling) {
        asleep_.store(true);
        polling = handed_over_.load();  // handed over before asleep_ was seen: do not sleep
      }
      const int ready = epoll_wait(epoll_, events, 256, polling ? 0 : -1);
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
        } else if (is_listener(fd)) {
          accept_all(fd);
        } else {
          const auto found = connections_.find(fd);
          if (found == connections_.end()) continue;
          connection& conn = *found->second;
          if (events[i].events & EPOLLOUT) write_output(conn);
          const std::uint32_t flags = events[i].events;
          if (flags & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
            read_input(conn, (flags & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0);
          settle(conn);
        }
      }
      drain_local();
    }
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

  void accept_all(int listener) {
    for (;;) {
      sockaddr_storage address{};
      socklen_t length = sizeof address;
      const int fd = accept4(listener, reinterpret_cast<sockaddr*>(&address), &length,
                             SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        // Out of file descriptors: the listener would stay ready and wake
        // this loop forever. The spare descriptor makes room to accept the
        // client, tell it, and close it.
        if ((errno == EMFILE || errno == ENFILE) && spare_fd_ >= 0) {
          ::close(spare_fd_);
          const int refused = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
          if (refused >= 0) {
            [[maybe_unused]] const auto sent = ::send(refused, too_many_connections.data(),
                                                      too_many_connections.size(), MSG_NOSIGNAL);
            ::close(refused);
            ++owner_.stats_.connections.rejected;
          }
          spare_fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
          continue;
        }
        return;  // EAGAIN: another worker took it, or none left
      }
      auto& counters = owner_.stats_.connections;
      if (counters.current.fetch_add(1) >= owner_.config_.max_connections) {
        counters.current.fetch_sub(1);
        ++counters.rejected;
        [[maybe_unused]] const auto sent =
            ::send(fd, too_many_connections.data(), too_many_connections.size(), MSG_NOSIGNAL);
        ::close(fd);
        if (owner_.config_.verbosity > 0)
          std::fprintf(stderr, "gpuhash-server: too many open connections\n");
        continue;
      }
      ++counters.total;
      const int on = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
      // Connections go round-robin over the workers, as in memcached: the
      // worker that wakes for a burst of connects would otherwise keep them all.
      worker& target = owner_.next_worker();
      if (&target == this) {
        serve(fd, address_of(address));
      } else {
        target.adopt(fd, address_of(address));
      }
    }
  }

  void serve(int fd, std::string address) {
    auto conn = std::make_unique<connection>();
    conn->fd = fd;
    conn->address = std::move(address);
    conn->group.owner = conn.get();
    conn->home = this;
    {
      std::lock_guard lock(connections_mutex_);
      connections_.emplace(fd, std::move(conn));
    }
    add(fd, EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET);
  }

  void take_adopted() {
    std::vector<std::pair<int, std::string>> adopted;
    {
      std::lock_guard lock(done_mutex_);
      adopted.swap(adopted_);
      handed_over_.store(!done_.empty(), std::memory_order_relaxed);
    }
    for (auto& [fd, address] : adopted) serve(fd, std::move(address));
  }

  /// Reads what the socket holds. A read shorter than the buffer took all
  /// there was, so reading stops there (data that comes later raises a new
  /// edge), as memcached does, saving a read that would say EAGAIN on every
  /// request; with `to_the_end` (the peer closed or failed) it reads on to
  /// see the end.
  void read_input(connection& conn, bool to_the_end = true) {
    char buffer[64 * 1024];
    for (;;) {
      std::string& target = conn.waiting || conn.resuming ? conn.side_input : conn.input;
      // A client that sends faster than it is answered is read no further
      // until its input is parsed (settle reads again), rather than filling
      // memory.
      if (target.size() > input_limit()) {
        conn.reading_paused = true;
        return;
      }
      const ssize_t got = ::recv(conn.fd, buffer, sizeof buffer, 0);
      if (got > 0) {
        target.append(buffer, static_cast<std::size_t>(got));
        owner_.stats_.connections.bytes_read += static_cast<std::uint64_t>(got);
        if (static_cast<std::size_t>(got) < sizeof buffer && !to_the_end) return;
        continue;
      }
      if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      if (got < 0 && errno == EINTR) continue;
      // EOF: the client may have half-closed after its last requests (`nc
      // -q0`), which are still answered; an error ends the connection
      if (got == 0) {
        conn.read_closed = true;
      } else {
        conn.peer_gone = true;
      }
      return;
    }
  }

  void write_output(connection& conn) {
    while (conn.output_sent < conn.output.size()) {
      const ssize_t sent = ::send(conn.fd, conn.output.data() + conn.output_sent,
                                  conn.output.size() - conn.output_sent, MSG_NOSIGNAL);
      if (sent > 0) {
        conn.output_sent += static_cast<std::size_t>(sent);
        owner_.stats_.connections.bytes_written += static_cast<std::uint64_t>(sent);
        continue;
      }
      if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        // keep only what is still to send, so a client that reads slowly
        // but steadily does not make the buffer grow without end
        if (conn.output_sent > (1u << 20)) {
          conn.output.erase(0, conn.output_sent);
          conn.output_sent = 0;
        }
        return;
      }
      if (sent < 0 && errno == EINTR) continue;
      conn.peer_gone = true;
      return;
    }
    conn.output.clear();
    conn.output_sent = 0;
    if (conn.output.capacity() > output_backlog_limit) conn.output.shrink_to_fit();
  }

  /// Input held per connection at most: the largest request (a value of
  /// item_size_max and its command line) fits with room to spare.
  std::size_t input_limit() const { return (8u << 20) + owner_.config_.limits.item_size_max; }

  /// Parses what can be parsed and hands it to the engine, or closes.
  void settle(connection& conn) {
    for (;;) {
      if (conn.waiting) return;
      const bool drained = conn.output_sent == conn.output.size();
      if (conn.peer_gone || (conn.closing && drained)) {
        close(conn);
        return;
      }
      const std::size_t backlog = conn.output.size() - conn.output_sent;
      if (conn.resuming) {
        // the rest of an unfinished group goes once the client has read most
        // of what it got (EPOLLOUT brings the connection back here)
        if (backlog > engine::request_group::reply_budget) return;
        conn.resuming = false;
        conn.group.replies.clear();
        submit(conn);
        return;
      }
      if (conn.closing || backlog > output_backlog_limit) return;
      parse_and_submit(conn);
      if (conn.waiting) return;
      if (conn.read_closed) {
        // all that came is answered (what is left is an incomplete request)
        conn.closing = true;
        continue;
      }
      if (!conn.reading_paused) return;
      // Reading stopped at the limit before the socket was drained, and
      // edge-triggered epoll will not say so again: read on here.
      if (conn.input.size() > input_limit()) {
        conn.peer_gone = true;  // a request larger than any valid one
        continue;
      }
      conn.reading_paused = false;
      read_input(conn);
    }
  }

  void parse_and_submit(connection& conn) {
    engine::request_group& group = conn.group;
    group.reset();
    std::size_t position = 0;
    const std::string_view input = conn.input;
    while (group.used < group_limit) {
      if (conn.swallow != 0) {
        const std::size_t dropped = std::min(conn.swallow, input.size() - position);
        position += dropped;
        conn.swallow -= dropped;
        if (conn.swallow != 0) break;
      }
      if (position == input.size()) break;
      engine::work_item& item = group.next_item();
      const protocol::parse_result result =
          protocol::parse_request(input.substr(position), owner_.config_.limits, item.request);
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
                         protocol::valid_key(item.request.key, owner_.config_.limits);
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
    submit(conn);
  }

  /// Queues the connection's group, to be submitted with the others at the
  /// end of this round of events.
  void submit(connection& conn) {
    conn.reply_at_completion = conn.output_sent == conn.output.size();
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
      connection& conn = connection_of(group);
      conn.waiting = false;
      if (conn.replies_sent != 0) {  // sent by the thread that completed the group
        owner_.stats_.connections.bytes_written += conn.replies_sent;
        group->replies.erase(0, conn.replies_sent);
        conn.replies_sent = 0;
      }
      if (conn.output.empty()) {
        conn.output.swap(group->replies);  // the replies become the output, uncopied
      } else {
        conn.output.append(group->replies);
      }
      if (group->replies.capacity() > engine::request_group::reply_budget * 2)
        group->replies = std::string();  // give back a large multi-get's buffer
      if (!group->finished()) {
        conn.resuming = true;  // its requests still point into the input
      } else {
        conn.input.erase(0, conn.parsed_end);
        conn.input.append(conn.side_input);
        conn.side_input.clear();
        if (group->close_after) conn.closing = true;
      }
      if (engine_->shutdown_requested()) owner_.shutdown_requested_ = true;
      // (input that came meanwhile was read aside on its EPOLLIN; settle
      // reads on if reading had paused at the limit)
      write_output(conn);
      settle(conn);
    }
  }

  void close(connection& conn) {
    const int fd = conn.fd;
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
  std::vector<engine::request_group*> done_;          // under done_mutex_
  std::vector<std::pair<int, std::string>> adopted_;  // under done_mutex_
  // done_ or adopted_ holds something (written under done_mutex_, read
  // without it), and this worker is in epoll_wait or about to be: see
  // wake_if_asleep.
  std::atomic<bool> handed_over_{false};
  std::atomic<bool> asleep_{false};
  // This thread's alone: the groups parsed in this round of events, the
  // groups answered by batches run on this thread, and drain_local's spare
  // vectors (kept for their capacity).
  std::vector<engine::request_group*> to_submit_;
  std::vector<engine::request_group*> done_here_;
  std::vector<engine::request_group*> submitting_;
  std::vector<engine::request_group*> finishing_;
  mutable std::mutex connections_mutex_;
  std::unordered_map<int, std::unique_ptr<connection>> connections_;
};

network::network(network_config config, engine::server_stats& stats)
    : config_(std::move(config)), stats_(stats) {}

network::~network() {
  stop();
  for (const int fd : listeners_) ::close(fd);
}

void network::listen() {
  if (!config_.unix_socket.empty()) {
    const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) fail("socket");
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (config_.unix_socket.size() >= sizeof address.sun_path)
      throw std::runtime_error("unix socket path too long: " + config_.unix_socket);
    std::memcpy(address.sun_path, config_.unix_socket.c_str(), config_.unix_socket.size() + 1);
    ::unlink(config_.unix_socket.c_str());
    if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0)
      fail("bind " + config_.unix_socket);
    chmod(config_.unix_socket.c_str(), static_cast<mode_t>(config_.unix_socket_mode));
    if (::listen(fd, config_.backlog) != 0) fail("listen " + config_.unix_socket);
    listeners_.push_back(fd);
    return;
  }
  std::string rest = config_.listen_addresses;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    std::string host = rest.substr(0, comma);
    rest = comma == std::string::npos ? std::string{} : rest.substr(comma + 1);
    std::string port = std::to_string(bound_port_ != 0 ? bound_port_ : config_.tcp_port);
    const std::size_t colon = host.rfind(':');
    if (colon != std::string::npos && host.find(':') == colon) {  // "host:port"
      port = host.substr(colon + 1);
      host = host.substr(0, colon);
    }
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    addrinfo* found = nullptr;
    const int error = getaddrinfo(host.empty() || host == "*" ? nullptr : host.c_str(),
                                  port.c_str(), &hints, &found);
    if (error != 0) throw std::runtime_error("cannot resolve " + host + ": " + gai_strerror(error));
    for (addrinfo* info = found; info != nullptr; info = info->ai_next) {
      const int fd = socket(info->ai_family, info->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                            info->ai_protocol);
      if (fd < 0) continue;
      const int on = 1;
      setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
      if (info->ai_family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on);
      if (bind(fd, info->ai_addr, info->ai_addrlen) != 0 || ::listen(fd, config_.backlog) != 0) {
        const int saved = errno;
        ::close(fd);
        freeaddrinfo(found);
        errno = saved;
        fail("failed to listen on TCP " + host + ":" + port);
      }
      sockaddr_storage bound{};
      socklen_t length = sizeof bound;
      getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length);
      bound_port_ = bound.ss_family == AF_INET
                        ? ntohs(reinterpret_cast<sockaddr_in&>(bound).sin_port)
                        : ntohs(reinterpret_cast<sockaddr_in6&>(bound).sin6_port);
      listeners_.push_back(fd);
    }
    freeaddrinfo(found);
  }
  if (listeners_.empty()) throw std::runtime_error("no address to listen on");
}

void network::start(engine::engine& engine) {
  for (std::size_t i = 0; i < config_.threads; ++i)
    workers_.push_back(std::make_unique<worker>(*this, i));
  for (auto& each : workers_) each->start(engine);
}

void network::complete(engine::request_group* group) {
  static_cast<worker*>(connection_of(group).home)->complete(group);
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
