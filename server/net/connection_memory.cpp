// A connection's memory (connection_memory.hpp).

#include "net/connection_memory.hpp"

#include <algorithm>
#include <string>

namespace gpuhash::server::net {

namespace {

/// Gives back the buffer space the connection holds beyond what it uses, but
/// for its input, which the group's requests point into.
void shed_slack(connection& conn, memory_budget& budget) {
  if (conn.backlog() == 0) {
    std::string().swap(conn.output);
    conn.output_sent = 0;
  }
  if (conn.side_input.capacity() > 2 * conn.side_input.size() + connection_allowance)
    conn.side_input.shrink_to_fit();
  std::string().swap(conn.group.replies);
  conn.group_bytes = conn.group.memory_bytes();
  recharge(conn, budget);
}

}  // namespace

void recharge(connection& conn, memory_budget& budget) {
  const std::size_t held = conn.input.capacity() + conn.side_input.capacity() +
                           conn.output.capacity() + conn.group_bytes;
  budget.recharge(conn.charged, held);
}

bool grant_room(connection& conn, memory_budget& budget) {
  engine::request_group& group = conn.group;
  const std::size_t needed = std::max<std::size_t>(group.room_wanted, 1);
  const std::size_t wanted = std::max(conn.reply_room, group.room_wanted);
  // the replies go into their buffer as it is (empty now): only room beyond
  // its capacity is more memory
  const std::size_t held = group.memory_bytes() - group.replies.capacity();
  std::size_t room = budget.room(conn.charged - conn.group_bytes + held, wanted);
  if (room < needed) {
    // what the connection holds and does not need may be all that is in the
    // way (its own earlier large requests and replies)
    shed_slack(conn, budget);
    room = budget.room(conn.charged - conn.group_bytes + held, wanted);
  }
  if (room < needed) return false;
  group.budget = room;
  group.room_wanted = 0;
  conn.group_bytes = held + std::max(room, group.replies.capacity());
  recharge(conn, budget);
  return true;
}

void settle_room(connection& conn, memory_budget& budget) {
  const engine::request_group& group = conn.group;
  if (group.room_wanted != 0) {
    conn.reply_room = std::min(std::max(conn.reply_room * 2, group.room_wanted),
                               std::max(engine::request_group::reply_budget, group.room_wanted));
  } else if (group.replies.size() < conn.reply_room / 4) {
    conn.reply_room = std::max(conn.reply_room / 2, connection_allowance);
  }
  conn.group_bytes = group.memory_bytes();
  recharge(conn, budget);
}

void shrink_input(connection& conn, memory_budget& budget) {
  if (conn.input.capacity() > 2 * conn.input.size() + connection_allowance &&
      (budget.pressed() || conn.input.capacity() > idle_memory_kept)) {
    conn.input.shrink_to_fit();
    recharge(conn, budget);
  }
}

void release_if_idle(connection& conn, memory_budget& budget) {
  if (conn.waiting || conn.resuming || conn.backlog() != 0 || !conn.input.empty() ||
      !conn.side_input.empty())
    return;
  const bool pressed = budget.pressed() && conn.charged > connection_allowance;
  if (!pressed && conn.charged <= idle_memory_kept) return;
  std::string().swap(conn.input);
  std::string().swap(conn.side_input);
  std::string().swap(conn.output);
  conn.output_sent = 0;
  conn.group.release_memory();
  conn.group_bytes = conn.group.memory_bytes();
  recharge(conn, budget);
}

}  // namespace gpuhash::server::net
