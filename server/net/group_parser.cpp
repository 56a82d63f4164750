// A connection's input parsed into a group (group_parser.hpp).

#include "net/group_parser.hpp"

#include <algorithm>
#include <vector>

namespace gpuhash::server::net {

namespace {

constexpr std::string_view too_large = "SERVER_ERROR object too large for cache\r\n";

bool is_store(protocol::command kind) {
  return kind == protocol::command::set || kind == protocol::command::meta_set;
}

/// Refuses a multi-get whose keys' records do not fit in `room` (what is
/// left of the group's), as memcached refuses one whose response objects do
/// not fit in its read_buf_mem_limit; otherwise takes them from the room.
/// A key's record is its view and the index signature the routing adds.
bool refuse_if_out_of_room(engine::work_item& item, std::size_t& room) {
  std::vector<std::string_view>& keys = item.request.keys;
  if (protocol::scope_of(item.request.kind) != protocol::key_scope::many) return false;
  constexpr std::size_t record_bytes =
      sizeof(std::string_view) + sizeof(decltype(item.signatures)::value_type);
  const std::size_t records = keys.size() * record_bytes;
  if (records <= room) {
    room -= records;
    return false;
  }
  item.error_reply = out_of_memory_for_get;
  std::vector<std::string_view>().swap(keys);  // the records it had go back now
  return true;
}

}  // namespace

parsed_input parse_group(std::string_view input, const protocol::parser_limits& limits,
                         const group_bounds& bounds, std::size_t& swallow,
                         engine::request_group& group) {
  parsed_input parsed;
  std::size_t& position = parsed.consumed;
  std::size_t key_records_room = bounds.key_records;
  for (;;) {
    if (swallow != 0) {
      const std::size_t dropped = std::min(swallow, input.size() - position);
      position += dropped;
      swallow -= dropped;
      if (swallow != 0) break;
    }
    if (position == input.size()) break;
    engine::work_item& item = group.next_item();
    const protocol::parse_result result =
        protocol::parse_request(input.substr(position), limits, item.request);
    if (result.outcome == protocol::parse_outcome::need_more) {
      --group.used;
      break;
    }
    if (group.used > bounds.share) {
      // a complete request past the share: left in the input for the next round
      --group.used;
      parsed.share_full = true;
      break;
    }
    if (result.outcome == protocol::parse_outcome::error) {
      item.error_reply = result.error_reply;
      item.silent = result.silent;
      // memcached drops the old value of a set refused as too large
      item.drops_key = is_store(item.request.kind) && result.error_reply == too_large &&
                       protocol::valid_key(item.request.key, limits);
      const std::size_t available = input.size() - position;
      if (result.consumed > available) {
        swallow = result.consumed - available;
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
    if (refuse_if_out_of_room(item, key_records_room)) ++parsed.multigets_refused;
    if (item.request.kind == protocol::command::quit ||
        item.request.kind == protocol::command::shutdown)
      break;  // nothing after it runs
  }
  return parsed;
}

}  // namespace gpuhash::server::net
