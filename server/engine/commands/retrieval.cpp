// get, gets, gat, gats.

#include "engine/commands/command_set.hpp"
#include "engine/commands/reply.hpp"

namespace gpuhash::server::engine {

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
    // a value that does not fit stops the request before anything is counted
    if (where != store::no_location && !group.reply_fits(reply_bound(items.at(where)))) {
      work.resume_at = k;
      return false;
    }
    ++(touches ? counts.cmd_touch : counts.cmd_get);
    if (where == store::no_location) {
      ++(touches ? counts.touch_misses : counts.get_misses);
      group.mark();
      continue;
    }
    store::item& item = items.at(where);
    ++(touches ? counts.touch_hits : counts.get_hits);
    if (touches) {
      count_in_class(state, item.size_class, &class_command_counts::touch_hits);
      item.expires_at = expires_at;
    } else {
      count_read_hit(state, item);
    }
    items.bump(where);
    out.append("VALUE ").append(item.key()).push_back(' ');
    append_number(out, item.client_flags);
    out.push_back(' ');
    append_number(out, item.value_bytes);
    if (with_cas) {
      out.push_back(' ');
      append_number(out, state.settings.store.cas_enabled ? item.cas : 0);
    }
    out.append("\r\n");
    const std::span<const char> value = item.value();
    out.append(value.data(), value.size() + 2);  // the value's "\r\n" follows it
    group.mark();
  }
  out.append("END\r\n");
  return true;
}

}  // namespace gpuhash::server::engine
