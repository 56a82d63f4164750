// A connection's memory (connection_memory.hpp).

#include "net/connection_memory.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <string_view>

namespace gpuhash::server::net {

namespace {

/// Gives `buffer` the capacity `capacity` (std::string's own growth would
/// double it, past what the budget allows).
void grow_exactly(std::string& buffer, std::size_t capacity) {
  std::string grown;
  grown.reserve(capacity);
  grown.append(buffer);
  buffer.swap(grown);
}

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
  const std::size_t input = conn.input.capacity() + conn.side_input.capacity();
  budget.recharge(conn.charged, input + conn.output.capacity() + conn.group_bytes, input);
}

void release_all(connection& conn, memory_budget& budget) {
  budget.recharge(conn.charged, 0, 0);
}

std::size_t take_input_room(connection& conn, const std::string& target, std::size_t wanted,
                            memory_budget& budget) {
  const std::size_t spare = target.capacity() - target.size();
  if (spare >= wanted) return wanted;
  // It may double, as std::string grows. A large buffer grows by what the
  // read lacks at least, so that it is not copied for a few bytes at a time
  // when the budget is nearly spent.
  const std::size_t least = target.capacity() < wanted ? 1 : wanted - spare;
  const std::size_t most = std::max(target.capacity(), wanted - spare);
  return spare + budget.take_input(conn.charged, least, most);
}

void append_input(connection& conn, std::string& target, std::string_view bytes, std::size_t room,
                  memory_budget& budget) {
  const std::size_t needed = target.size() + bytes.size();
  if (needed > target.capacity()) {
    // doubling, as std::string grows, within the room taken
    grow_exactly(target, std::min(target.size() + room, std::max(needed, 2 * target.capacity())));
  }
  target.append(bytes);
  recharge(conn, budget);  // (gives back what was taken and not used)
}

bool grant_room(connection& conn, memory_budget& budget) {
  engine::request_group& group = conn.group;
  const std::size_t needed = std::max<std::size_t>(group.room_wanted, 1);
  const std::size_t wanted = std::max(conn.reply_room, group.room_wanted);
  // its parsed requests are charged as they are (a group's worth at most)
  conn.group_bytes = group.memory_bytes();
  recharge(conn, budget);
  // The replies go into their buffer as it is (empty now): only room beyond
  // its capacity is more memory.
  const auto take_room = [&] {
    const std::size_t held = group.replies.capacity();
    if (held >= wanted) return wanted;
    const std::size_t taken =
        budget.take(conn.charged, needed > held ? needed - held : 0, wanted - held);
    conn.group_bytes += taken;
    return held + taken;
  };
  std::size_t room = take_room();
  if (room < needed) {
    // what the connection holds and does not need may be all that is in the
    // way (its own earlier large requests and replies)
    shed_slack(conn, budget);
    room = take_room();
  }
  if (room < needed) return false;
  group.budget = room;
  group.room_wanted = 0;
  return true;
}

namespace {

/// The finished group's requests leave the input, and what was read aside
/// meanwhile joins it (charged by the caller).
void join_side_input(connection& conn, const memory_budget& budget) {
  std::string& input = conn.input;
  input.erase(0, conn.parsed_end);
  conn.parsed_end = 0;
  if (input.empty()) {
    input.swap(conn.side_input);
  } else if (!conn.side_input.empty()) {
    const std::size_t needed = input.size() + conn.side_input.size();
    if (needed > input.capacity()) grow_exactly(input, needed);
    input.append(conn.side_input);
  }
  if (budget.pressed() || conn.side_input.capacity() > idle_memory_kept) {
    std::string().swap(conn.side_input);
  } else {
    conn.side_input.clear();
  }
}

}  // namespace

void settle_group(connection& conn, memory_budget& budget) {
  const engine::request_group& group = conn.group;
  if (group.finished()) join_side_input(conn, budget);
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
  const bool pressed = budget.pressed() && conn.charged.total > connection_allowance;
  if (!pressed && conn.charged.total <= idle_memory_kept) return;
  std::string().swap(conn.input);
  std::string().swap(conn.side_input);
  std::string().swap(conn.output);
  conn.output_sent = 0;
  conn.group.release_memory();
  conn.group_bytes = conn.group.memory_bytes();
  recharge(conn, budget);
}

std::size_t key_records_room(const connection& conn, const memory_budget& budget) {
  const std::size_t limit = budget.limit();
  if (limit == 0) return std::numeric_limits<std::size_t>::max();
  return limit - std::min(limit, conn.charged.input);
}

bool input_at_ceiling(const connection& conn, const memory_budget& budget) {
  return budget.limit() != 0 && conn.charged.input >= budget.input_ceiling();
}

}  // namespace gpuhash::server::net
