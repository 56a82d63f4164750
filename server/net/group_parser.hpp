#pragma once
// A connection's input parsed into the group its worker hands the engine
// (worker::parse_and_submit): the complete requests, in order, with the
// refusals among them, up to the connection's share of one worker round.
// Pure: the worker supplies the input, the bytes of a refused value still to
// drop, and the bounds, so that the rules are tested without sockets.

#include <cstddef>
#include <limits>
#include <string_view>

#include "engine/request_group.hpp"
#include "protocol/request.hpp"

namespace gpuhash::server::net {

/// memcached's answer to a get, gets, gat or gats it has no memory to answer
/// (proto_text.c), counted in `stats` as response_obj_oom.
inline constexpr std::string_view out_of_memory_for_get =
    "SERVER_ERROR out of memory writing get response\r\n";

/// What a group may take of its connection's input.
struct group_bounds {
  /// Requests at most: the connection's share of a round (-R), or fewer.
  std::size_t share = 1;
  /// Bytes the key records of the group's multi-gets may take together (one
  /// std::string_view per key): the memory budget's room for them.
  std::size_t key_records = std::numeric_limits<std::size_t>::max();
};

struct parsed_input {
  /// Bytes of the input the group's requests took (with the bytes dropped).
  std::size_t consumed = 0;
  /// The group holds `share` requests and another complete request follows:
  /// it waits for the next round (memcached's -R, counted as conn_yields).
  bool share_full = false;
  /// Multi-gets whose key records did not fit in bounds.key_records: each is
  /// answered out_of_memory_for_get, in its place.
  std::size_t multigets_refused = 0;
};

/// Parses `input` into `group` (reset by the caller): at most bounds.share
/// requests, stopping at an incomplete one and after a quit or shutdown
/// (nothing after it runs). `swallow` is the connection's count of bytes of
/// a refused value still to drop: dropped first, and set when the parser
/// refuses a value the input does not yet hold in full.
parsed_input parse_group(std::string_view input, const protocol::parser_limits& limits,
                         const group_bounds& bounds, std::size_t& swallow,
                         engine::request_group& group);

}  // namespace gpuhash::server::net
