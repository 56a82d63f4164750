// get, gets, gat, gats.

#include <charconv>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

#include "engine/commands/command_set.hpp"
#include "engine/commands/reply.hpp"

namespace gpuhash::server::engine {

namespace {

/// Writes a space and `value`'s digits at `at` (room for 21 bytes); returns
/// their end.
char* put_number(char* at, std::uint64_t value) {
  *at++ = ' ';
  if (value < 10) {  // the flags of most items: 0
    *at++ = static_cast<char>('0' + value);
    return at;
  }
  return std::to_chars(at, at + 20, value).ptr;
}

/// "VALUE <key> <flags> <bytes>[ <cas>]\r\n" for `item`, written whole and
/// appended at once (a multi-get writes one line for each key it finds).
void append_value_line(std::string& out, const store::item& item,
                       std::optional<std::uint64_t> cas) {
  // "VALUE ", a key of at most 255 bytes, three numbers with their spaces, "\r\n"
  char line[6 + 255 + 3 * 21 + 2];
  std::memcpy(line, "VALUE ", 6);
  std::memcpy(line + 6, item.key().data(), item.key_bytes);
  char* at = put_number(line + 6 + item.key_bytes, item.client_flags);
  at = put_number(at, item.value_bytes);
  if (cas) at = put_number(at, *cas);
  *at++ = '\r';
  *at++ = '\n';
  out.append(line, at);
}

}  // namespace

/// Values are copied into the replies; past the group's reply budget the
/// request stops, to go on in a later batch from work.resume_at (the finds
/// of that batch start at that key). Each key ends a reply segment
/// (request_group::mark), hit or miss.
bool run_retrieval(shard_state& state, work_item& work, std::size_t first_search,
                   request_group& group) {
  cache& items = state.items;
  command_counts& counts = state.counts;
  std::string& out = group.replies;
  const protocol::request& request = work.request;
  using protocol::command;
  const bool with_cas = request.kind == command::gets || request.kind == command::gats;
  const bool touches = request.kind == command::gat || request.kind == command::gats;
  const std::int64_t expires_at = touches ? items.expiry_of(request.exptime) : 0;
  const std::size_t first_key = work.resume_at;
  for (std::size_t k = first_key; k < request.keys.size(); ++k) {
    if (out.size() >= group.budget) {
      work.resume_at = k;
      return false;
    }
    const location where = items.find_item(request.keys[k], first_search + (k - first_key));
    if (where == store::no_location) {
      ++(touches ? counts.cmd_touch : counts.cmd_get);
      ++(touches ? counts.touch_misses : counts.get_misses);
      group.mark();
      continue;
    }
    store::item& item = items.at(where);
    // a value that does not fit stops the request before anything is counted
    if (!group.reply_fits(reply_bound(item))) {
      work.resume_at = k;
      return false;
    }
    ++(touches ? counts.cmd_touch : counts.cmd_get);
    ++(touches ? counts.touch_hits : counts.get_hits);
    if (touches) {
      count_in_class(state, item.size_class, &class_command_counts::touch_hits);
      item.expires_at = expires_at;
    } else {
      count_read_hit(state, item);
    }
    items.bump(where);
    append_value_line(
        out, item,
        with_cas ? std::optional<std::uint64_t>(state.settings.store.cas_enabled ? item.cas : 0)
                 : std::nullopt);
    const std::span<const char> value = item.value();
    out.append(value.data(), value.size() + 2);  // the value's "\r\n" follows it
    group.mark();
  }
  out.append("END\r\n");
  return true;
}

}  // namespace gpuhash::server::engine
