// lru_crawler metadump, and the item fields it shares with `me`.

#include "engine/commands/command_set.hpp"
#include "engine/commands/reply.hpp"

namespace gpuhash::server::engine {

namespace {

/// One line of `lru_crawler metadump` (ending in "\n" alone, as memcached's).
void append_item_line(const store::item_store& store, const store::item& item, std::string& out) {
  out.append("key=");
  append_url_encoded(out, item.key());
  append_item_fields(item, item.expires_at, item.accessed_at, store.reported_size(item), out);
  out.push_back('\n');
}

}  // namespace

void append_item_fields(const store::item& item, std::int64_t exp, std::int64_t la,
                        std::size_t size, std::string& out) {
  out.append(" exp=");
  append_number(out, item.expires_at == 0 ? std::int64_t{-1} : exp);
  out.append(" la=");
  append_number(out, la);
  out.append(" cas=");
  append_number(out, item.cas);
  out.append(item.fetched ? " fetch=yes" : " fetch=no");
  out.append(" cls=");
  append_number(out, unsigned{item.size_class});
  out.append(" size=");
  append_number(out, size);
}

bool run_metadump(shard_state& state, work_item& work, std::size_t first_search,
                  request_group& group) {
  const protocol::request& request = work.request;
  cache& items = state.items;
  std::string& out = group.replies;
  if (!state.settings.dumping_enabled) {
    out.append("ERROR metadump not allowed\r\n");
    return true;
  }
  if (request.argument == "all") {
    // The whole cache, in pieces of the reply budget sent as the client
    // reads them: each piece goes on from the location where the last one
    // stopped (kept in work.resume_at), and ends a reply segment.
    const location next = items.store().visit_linked_from(
        static_cast<location>(work.resume_at), [&](location, const store::item& item) {
          if (out.size() >= group.budget) return false;
          if (items.is_live(item)) append_item_line(items.store(), item, out);
          return true;
        });
    if (next != store::no_location) {
      work.resume_at = next;
      group.mark();
      return false;
    }
  } else {
    for (std::size_t k = 0; k < request.keys.size(); ++k) {
      const location where = items.find_item(request.keys[k], first_search + k);
      if (where != store::no_location) append_item_line(items.store(), items.at(where), out);
      group.mark();  // one segment a key, as a multi-get's
    }
  }
  out.append("END\r\n");
  return true;
}

}  // namespace gpuhash::server::engine
