#pragma once
// One client connection as its worker thread holds it (network.cpp): the
// bytes read and not yet parsed, the group out with the engine, the output
// not yet sent, and how its bytes move (plain socket calls, or a TLS
// session).

#include <sys/socket.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "engine/engine.hpp"
#include "net/memory_budget.hpp"
#include "net/tls.hpp"

namespace gpuhash::server::net {

struct connection;

/// A connection's request group: the engine hands back the group alone,
/// and the worker finds its connection from it.
struct connection_group : engine::request_group {
  connection* conn = nullptr;
};

struct connection {
  int fd = -1;
  std::string address;         // the client's, as `stats conns` shows it (listeners.hpp)
  std::string listen_address;  // the server's end of it
  /// When its last requests were read (Unix seconds): `stats conns` reads it
  /// on a batch's thread.
  std::atomic<std::int64_t> last_command_at{0};
  std::unique_ptr<tls_session> tls;  // null: plaintext
  bool authenticated = true;         // false until -Y's authentication succeeds
  std::string input;                 // bytes read and not yet consumed
  std::string side_input;            // bytes read while a group's requests point into input
  std::size_t parsed_end = 0;        // input consumed by the group that is out
  std::size_t swallow = 0;           // bytes of a refused value still to drop
  bool dropping_line = false;        // a refused multi-get's line: dropped as it comes
  std::string output;
  std::size_t output_sent = 0;
  std::atomic<bool> waiting{false};  // a group is with the engine (`stats conns` reads it)
  bool resuming = false;             // the group came back unfinished: submit it again
  bool closing = false;              // close once the output is written
  bool read_closed = false;          // the client sent all it will (EOF): answer, then close
  bool peer_gone = false;            // the socket failed: close now
  bool reading_paused = false;       // input_limit or the memory budget stopped reading
  bool starved = false;              // on its worker's list of connections waiting for memory
  // -R: the group out took the connection's whole share of a round and more
  // requests wait in the input; once it is back, the connection goes on its
  // worker's list for the next round (next_round) and yields until then.
  bool yielded = false;
  bool next_round = false;
  // Memory (memory_budget.hpp): what this connection's buffers are charged
  // at (all of them, and its input's); its group's part of that, measured
  // when the group was last home (plus the reply room it was given while it
  // is out); and the reply room it asks for a group (doubled when a group ran
  // out of room, halved when one used little of it).
  memory_charge charged;
  std::size_t group_bytes = 0;
  std::size_t reply_room = 0;
  // Set by the worker as a group goes to the engine: nothing of the
  // connection's waits to be sent, so the thread that completes the group
  // may send its replies at once (worker::send_replies_now); and how many
  // bytes that thread sent, which the worker reads once the group is back
  // (the engine's queue and the worker's done_mutex_ order the two).
  bool reply_at_completion = false;
  std::size_t replies_sent = 0;
  connection_group group;
  void* home = nullptr;  // the worker that owns it

  std::size_t backlog() const noexcept { return output.size() - output_sent; }

  /// Reads at most `size` bytes.
  transfer receive(char* into, std::size_t size) {
    if (tls) return tls->read(into, size);
    for (;;) {
      const ssize_t got = ::recv(fd, into, size, 0);
      if (got > 0) return {transfer::state::moved, static_cast<std::size_t>(got)};
      if (got == 0) return {transfer::state::closed, 0};
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return {transfer::state::again, 0};
      return {transfer::state::failed, 0};
    }
  }

  /// Writes at most `size` bytes.
  transfer transmit(const char* from, std::size_t size) {
    if (tls) return tls->write(from, size);
    for (;;) {
      const ssize_t sent = ::send(fd, from, size, MSG_NOSIGNAL);
      if (sent > 0) return {transfer::state::moved, static_cast<std::size_t>(sent)};
      if (sent < 0 && errno == EINTR) continue;
      if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return {transfer::state::again, 0};
      return {transfer::state::failed, 0};
    }
  }
};

/// The connection a group the engine handed back belongs to (the engine
/// hands back only the groups submitted to it: connection_groups).
inline connection& connection_of(engine::request_group& group) {
  return *static_cast<connection_group&>(group).conn;
}

}  // namespace gpuhash::server::net
