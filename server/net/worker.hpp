#pragma once
// A worker thread of the network (network.hpp): its epoll loop over its
// connections (worker.cpp), and each connection's reading, parsing,
// submitting and writing (connection_io.cpp).

#include <sys/epoll.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "net/connection.hpp"
#include "net/network.hpp"

namespace gpuhash::server::net {

/// A connection accepted by one worker, handed to another.
struct accepted_connection {
  int fd;
  std::string address;         // the client's
  std::string listen_address;  // the server's end
  bool tls;
};

class network::worker {
 public:
  worker(network& owner, std::size_t number);
  ~worker();
  void start(engine::engine& engine);
  void stop();
  /// From the thread that ran its batch: a group is back. When that thread
  /// is this worker's own (the engine runs batches on the submitting thread
  /// when its index is on the CPU), the group is finished after the batch,
  /// in drain_local, with no wake-up.
  void complete(engine::request_group& group, engine::completer by);
  /// From another worker: a connection it accepted, to be served here.
  void adopt(accepted_connection accepted);
  /// From any worker: a connection waits for memory, so at this worker's
  /// next turn its idle connections give back what they hold
  /// (release_if_idle; one idle since before the budget was pressed would
  /// otherwise keep it until its client comes back).
  void ask_for_memory();
  /// Its connections' `stats conns` lines, at `now` (Unix seconds).
  void describe(std::int64_t now, std::string& out) const;

 private:
  /// After handing this worker a group or a connection: a worker that is
  /// awake looks at handed_over_ on every turn of its loop, so only one
  /// asleep in epoll_wait (or about to be) needs the eventfd, whose write
  /// and read cost a system call each per batch and worker. One wake-up
  /// takes everything handed over by then (`first`). handed_over_ is set
  /// before asleep_ is read here, and asleep_ set before handed_over_ is
  /// read by the worker (both sequentially consistent): either the worker
  /// sees the handover before it sleeps, or this sees it asleep.
  void wake_if_asleep(bool first);
  /// On an idle batch thread that completed a group (engine::completer::
  /// idle): sends the replies at once when the connection has
  /// nothing else to send (so they stay in order) and they are short. The
  /// reply then goes out without waiting for the worker to take the group
  /// back. The worker sends what is left. (A busy batch thread hands its
  /// groups straight back instead: its sends would delay its next batch.)
  /// Never on a TLS connection, whose session the worker may be reading
  /// with at this moment.
  static void send_replies_now(engine::request_group& group);
  void signal();
  void add(int fd, std::uint32_t events);
  const listener* listener_of(int fd) const;
  void loop();
  void serve_event(connection& conn, std::uint32_t flags);

  /// Hands the engine the groups this round of events parsed, all at once
  /// (so that the connections served together share a batch), and finishes
  /// the ones it answered on this thread, which may parse and submit more.
  void drain_local();
  void accept_all(const listener& from);
  void serve(accepted_connection accepted);
  void take_adopted();

  // ---- memory (connection_memory.hpp) ---------------------------------------

  void recharge(connection& conn);
  bool grant_room(connection& conn);

  /// The connection waits for memory; retry_starved looks at it again. A
  /// stall is counted once, however often it is looked at again.
  void starve(connection& conn);
  /// Looks again at the connections waiting for memory once some was given
  /// back (or a while has passed: memory given back between the look and
  /// the wait is seen then).
  void retry_starved();
  /// Idle connections give back what they hold, if the budget is pressed.
  void release_idle();

  // ---- rounds ----------------------------------------------------------------

  /// Parses the next share of the connections that yielded (-R) before this
  /// round, to go to the engine with the shares of the round's events.
  void serve_yielded();

  // ---- reading and writing -------------------------------------------------

  /// Reads what the socket holds; returns the bytes read. A read shorter
  /// than the buffer took all there was, so reading stops there (data that
  /// comes later raises a new edge), as memcached does, saving a read that
  /// would say EAGAIN on every request; with `to_the_end` (the peer closed
  /// or failed) it reads on to see the end. A TLS session always reads to
  /// the end: what it has taken from the socket raises no edge.
  std::size_t read_input(connection& conn, bool to_the_end = true);
  /// A multi-get whose line is longer than the budget lets input hold could
  /// never be read whole: once the connection's input holds all it may, it
  /// is answered as memcached answers a multi-get it has no memory for
  /// (out_of_memory_for_get, response_obj_oom), and the rest of its line is
  /// dropped as it comes. False: the input is not such a line.
  bool refuse_unreadable_multiget(connection& conn);
  void write_output(connection& conn);
  void count_fault(const transfer& failed);

  /// Input held per connection at most: the largest request (a value of
  /// item_size_max and its command line) fits with room to spare.
  std::size_t input_limit() const;

  // ---- requests ------------------------------------------------------------

  /// Parses what can be parsed and hands it to the engine, or closes.
  void settle(connection& conn);

  /// Before -Y's authentication: memcached's reading of the input
  /// (ascii_auth.hpp), answered here without the engine.
  void authenticate(connection& conn);
  void parse_and_submit(connection& conn);

  /// Queues the connection's group, to be submitted with the others at the
  /// end of this round of events.
  void submit(connection& conn);

  /// Finishes the groups other threads answered.
  void finish_groups();
  void finish(const std::vector<engine::request_group*>& done);
  void close(connection& conn);

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
  std::atomic<bool> memory_wanted_{false};  // ask_for_memory was called
  // This thread's alone: the groups parsed in this round of events, the
  // groups answered by batches run on this thread, and drain_local's spare
  // vectors (kept for their capacity); the connections waiting for memory,
  // and those waiting for the next round, with serve_yielded's spare vector
  // (by descriptor: one closed meanwhile is skipped).
  std::vector<engine::request_group*> to_submit_;
  std::vector<engine::request_group*> done_here_;
  std::vector<engine::request_group*> submitting_;
  std::vector<engine::request_group*> finishing_;
  std::vector<int> starved_;
  std::vector<int> yielded_;
  std::vector<int> serving_yielded_;
  bool retrying_ = false;
  std::uint64_t given_back_seen_ = 0;
  std::chrono::steady_clock::time_point last_retry_;
  mutable std::mutex connections_mutex_;
  std::unordered_map<int, std::unique_ptr<connection>> connections_;
};

}  // namespace gpuhash::server::net
