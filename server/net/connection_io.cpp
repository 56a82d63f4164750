// A connection's bytes and requests, on its worker's thread: reading
// (within the memory budget), -Y's authentication, parsing into a group for
// the engine, and writing the replies back (worker.hpp).

#include <algorithm>
#include <ctime>
#include <string>
#include <string_view>

#include "net/connection_memory.hpp"
#include "net/group_parser.hpp"
#include "net/worker.hpp"

namespace gpuhash::server::net {

namespace {

/// Output waiting for a slow client beyond which a connection stops parsing.
constexpr std::size_t output_backlog_limit = 16u << 20;
/// Requests one group carries at most (more go in the next group as soon as
/// it is back), and while the memory budget is pressed.
constexpr std::size_t group_limit = 4096;
constexpr std::size_t pressed_group_limit = 64;

/// What follows the end of the line being dropped in `bytes`: nothing when
/// the line does not end in them.
std::string_view after_dropped_line(connection& conn, std::string_view bytes) {
  const std::size_t end = bytes.find('\n');
  if (end == std::string_view::npos) return {};
  conn.dropping_line = false;
  return bytes.substr(end + 1);
}

}  // namespace

void network::worker::recharge(connection& conn) {
  net::recharge(conn, owner_.budget_);
}

bool network::worker::grant_room(connection& conn) {
  if (net::grant_room(conn, owner_.budget_)) return true;
  starve(conn);
  return false;
}

std::size_t network::worker::read_input(connection& conn, bool to_the_end) {
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
    const std::size_t room = take_input_room(conn, target, sizeof buffer, owner_.budget_);
    if (room == 0) {
      if (refuse_unreadable_multiget(conn)) continue;
      conn.reading_paused = true;
      starve(conn);
      return total;
    }
    const std::size_t readable = std::min(room, sizeof buffer);
    const transfer got = conn.receive(buffer, readable);
    if (got.what != transfer::state::moved) recharge(conn);  // gives back the room taken
    switch (got.what) {
      case transfer::state::moved: {
        std::string_view bytes(buffer, got.bytes);
        if (conn.dropping_line) bytes = after_dropped_line(conn, bytes);
        append_input(conn, target, bytes, room, owner_.budget_);
        total += got.bytes;
        owner_.stats_.connections.bytes_read += got.bytes;
        if (got.bytes < readable && !to_the_end) return total;
        continue;
      }
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

bool network::worker::refuse_unreadable_multiget(connection& conn) {
  if (!conn.authenticated || conn.waiting || conn.resuming || conn.swallow != 0 ||
      conn.dropping_line || !input_at_ceiling(conn, owner_.budget_))
    return false;
  // An unfinished line: only a multi-get's may grow past 2,048 bytes (the
  // parser refuses any other), so this is one that can never be read whole.
  protocol::request unfinished;
  if (conn.input.find('\n') != std::string::npos ||
      protocol::parse_request(conn.input, owner_.settings_.limits, unfinished).outcome !=
          protocol::parse_outcome::need_more)
    return false;
  // nothing of the connection is with the engine: the answer is next in order
  conn.output.append(out_of_memory_for_get);
  ++owner_.stats_.connections.multigets_out_of_memory;
  conn.input.clear();
  conn.dropping_line = true;
  write_output(conn);
  return true;
}

void network::worker::write_output(connection& conn) {
  while (conn.output_sent < conn.output.size()) {
    const transfer sent =
        conn.transmit(conn.output.data() + conn.output_sent, conn.output.size() - conn.output_sent);
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

void network::worker::count_fault(const transfer& failed) {
  auto& counters = owner_.stats_.connections;
  if (failed.cause == transfer::fault::handshake) ++counters.ssl_handshake_errors;
  if (failed.cause == transfer::fault::protocol) ++counters.ssl_proto_errors;
}

std::size_t network::worker::input_limit() const {
  return (8u << 20) + owner_.settings_.limits.item_size_max;
}

void network::worker::settle(connection& conn) {
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
    if (conn.next_round) return;  // on the list of serve_yielded
    if (conn.yielded) {
      // its last group took its whole share of a round (-R): the requests
      // left wait for the worker's next round, where the other ready
      // connections' go too
      conn.yielded = false;
      conn.next_round = true;
      yielded_.push_back(conn.fd);
      return;
    }
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

void network::worker::authenticate(connection& conn) {
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

void network::worker::parse_and_submit(connection& conn) {
  engine::request_group& group = conn.group;
  group.reset();
  shrink_input(conn, owner_.budget_);
  // (each group back home comes here, most often to an empty input: a
  // parse of nothing takes nothing)
  if (conn.input.empty()) return;
  // A round takes -R requests of each connection at most (fewer while the
  // budget is pressed, when the rest follow as soon as the group is back).
  const std::size_t per_round = owner_.settings_.requests_per_event;
  group_bounds bounds;
  bounds.share = std::min(per_round, owner_.budget_.pressed() ? pressed_group_limit : group_limit);
  bounds.key_records = key_records_room(conn, owner_.budget_);
  const parsed_input parsed =
      parse_group(conn.input, owner_.settings_.limits, bounds, conn.swallow, group);
  const std::size_t position = parsed.consumed;
  auto& counters = owner_.stats_.connections;
  counters.multigets_out_of_memory += parsed.multigets_refused;
  if (parsed.share_full && bounds.share == per_round) {
    conn.yielded = true;
    ++counters.yields;
  }
  if (group.used == 0) {
    conn.input.erase(0, position);
    if (group.close_after) conn.closing = true;
    return;
  }
  conn.parsed_end = position;
  conn.last_command_at = std::time(nullptr);  // `stats conns`' secs_since_last_cmd
  if (!grant_room(conn)) {
    conn.resuming = true;  // parsed; it goes when the budget has room (settle)
    return;
  }
  submit(conn);
}

void network::worker::submit(connection& conn) {
  conn.reply_at_completion = conn.backlog() == 0;
  conn.waiting = true;
  to_submit_.push_back(&conn.group);
}

void network::worker::finish_groups() {
  std::vector<engine::request_group*> done;
  {
    std::lock_guard lock(done_mutex_);
    done.swap(done_);
    handed_over_.store(!adopted_.empty(), std::memory_order_relaxed);
  }
  finish(done);
}

void network::worker::finish(const std::vector<engine::request_group*>& done) {
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
    } else if (group->close_after) {
      conn.closing = true;
    }
    settle_group(conn, owner_.budget_);
    if (engine_->shutdown_requested()) owner_.shutdown_requested_ = true;
    // (input that came meanwhile was read aside on its EPOLLIN; settle
    // reads on if reading had paused at the limit)
    write_output(conn);
    settle(conn);
  }
}

}  // namespace gpuhash::server::net
