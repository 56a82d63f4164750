#pragma once
// A connection's input parsed into the group its worker hands the engine
// (worker::parse_and_submit): the complete requests, in order, with the
// parser's refusals among them, up to the connection's share of one worker
// round. Pure: the worker supplies the input, the bytes of a refused value
// still to drop, and the share, so that the rule is tested without sockets.

#include <cstddef>
#include <string_view>

#include "engine/request_group.hpp"
#include "protocol/request.hpp"

namespace gpuhash::server::net {

struct parsed_input {
  /// Bytes of the input the group's requests took (with the bytes dropped).
  std::size_t consumed = 0;
  /// The group holds `share` requests and another complete request follows:
  /// it waits for the next round (memcached's -R, counted as conn_yields).
  bool share_full = false;
};

/// Parses `input` into `group` (reset by the caller): at most `share`
/// requests, stopping at an incomplete one and after a quit or shutdown
/// (nothing after it runs). `swallow` is the connection's count of bytes of
/// a refused value still to drop: dropped first, and set when the parser
/// refuses a value the input does not yet hold in full.
parsed_input parse_group(std::string_view input, const protocol::parser_limits& limits,
                         std::size_t share, std::size_t& swallow, engine::request_group& group);

}  // namespace gpuhash::server::net
