#pragma once
// How a connection's buffers are charged to the memory budget
// (memory_budget.hpp), and what a connection gives back when: the policy
// the network's workers apply at each step of a connection's life.

#include <cstddef>

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

/// Charges the connection what its buffers hold now. The group's part is the
/// one measured when it was last home (the engine may be changing it).
void recharge(connection& conn, memory_budget& budget);

/// Gives the group its reply room before it goes to the engine, charged at
/// once so that the connections submitted after it see it taken; false when
/// the budget has too little (the connection then waits for memory).
bool grant_room(connection& conn, memory_budget& budget);

/// The group is home: its real size replaces the room it was given, and the
/// connection's next room follows what this group needed.
void settle_room(connection& conn, memory_budget& budget);

/// Before a new group is parsed (no request points into the input): a
/// buffer left large by an earlier request shrinks to what it holds.
void shrink_input(connection& conn, memory_budget& budget);

/// An idle connection gives back what it holds beyond its allowance when the
/// budget is pressed, and large buffers always.
void release_if_idle(connection& conn, memory_budget& budget);

}  // namespace gpuhash::server::net
