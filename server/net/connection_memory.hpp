#pragma once
// How a connection's buffers are charged to the memory budget
// (memory_budget.hpp), and what a connection gives back when: the policy
// the network's workers apply at each step of a connection's life.

#include <cstddef>
#include <string>
#include <string_view>

#include "net/connection.hpp"
#include "net/memory_budget.hpp"

namespace gpuhash::server::net {

/// What every connection may hold whatever the others hold (memcached's read
/// buffer is 16 KB), and the reply room a new connection asks for.
inline constexpr std::size_t connection_allowance = 16u << 10;
inline constexpr std::size_t initial_reply_room = 256u << 10;
/// An idle connection holding more than this gives it back even when the
/// budget is not pressed.
inline constexpr std::size_t idle_memory_kept = 4u << 20;

/// The budget's reply reserve (memory_budget.hpp): one reply of a largest
/// value, with its header line.
inline constexpr std::size_t largest_reply(std::size_t item_size_max) {
  return item_size_max + (4u << 10);
}

/// Charges the connection what its buffers hold now. The group's part is the
/// one measured when it was last home (the engine may be changing it).
void recharge(connection& conn, memory_budget& budget);

/// Gives back all the connection is charged (it is closing).
void release_all(connection& conn, memory_budget& budget);

/// Room to read `wanted` bytes into `target`, the connection's input or side
/// input: its spare capacity, and what the budget lets it grow by (up to
/// doubling), taken now so that two workers cannot both take the last of it.
/// The connection may read as many bytes as the room, up to `wanted`.
std::size_t take_input_room(connection& conn, const std::string& target, std::size_t wanted,
                            memory_budget& budget);

/// Appends what was read into the `room` take_input_room gave, grows the
/// buffer no further than that, and charges what it now holds (giving back
/// what was taken and not used). After a read that brought nothing,
/// recharge gives it back.
void append_input(connection& conn, std::string& target, std::string_view bytes, std::size_t room,
                  memory_budget& budget);

/// Gives the group its reply room before it goes to the engine, taken from
/// the budget at once so that the connections submitted after it see it
/// taken; false when the budget has too little (the connection then waits
/// for memory).
bool grant_room(connection& conn, memory_budget& budget);

/// The group is home: when it is finished, its requests leave the input and
/// what was read aside meanwhile joins it; its real size replaces the room
/// it was given, and the connection's next room follows what this group
/// needed. The connection is charged once, for all of it.
void settle_group(connection& conn, memory_budget& budget);

/// Before a new group is parsed (no request points into the input): a
/// buffer left large by an earlier request shrinks to what it holds.
void shrink_input(connection& conn, memory_budget& budget);

/// An idle connection gives back what it holds beyond its allowance when the
/// budget is pressed, and large buffers always.
void release_if_idle(connection& conn, memory_budget& budget);

/// Bytes the key records of a group's multi-gets may take (group_parser.hpp):
/// what the budget could hold besides the connection's input, which the
/// requests point into, were every other connection to hold nothing. A
/// multi-get needing more could never be answered under the limit.
std::size_t key_records_room(const connection& conn, const memory_budget& budget);

/// The connection's input holds all the input the budget lets the
/// connections hold together: it can never read more than it holds.
bool input_at_ceiling(const connection& conn, const memory_budget& budget);

}  // namespace gpuhash::server::net
