// memcached's meta commands (mg ms md ma mn me): what they share, mn and me.
// Flags used: mg b c f h k l O q s t u v N R T (returning W, X, Z); ms b c C
// F I k O q T M; md b C I k O q T; ma b C N J D T M O q t c v k. The parser
// refuses the letters memcached 1.6.18 refuses (E and md's x among them);
// every other flag of memcached's set is accepted by every meta command, and
// ignored by those that have no use for it, as memcached ignores it.

#include "engine/commands/meta_flags.hpp"
#include "engine/commands/reply.hpp"

namespace gpuhash::server::engine {

namespace meta {

void append_return_flags(const protocol::request& request, const reply_context& context,
                         std::string& out, std::string_view returned) {
  const store::item* item = context.item;
  for (const protocol::meta_flag& flag : request.meta_flags) {
    if (returned.find(flag.letter) == std::string_view::npos) continue;
    switch (flag.letter) {
      case 'O': out.append(" O").append(flag.token); break;
      case 'k': out.append(" k").append(request.key); break;
      case 'c':
        if (item) out.append(" c"), append_number(out, item->cas);
        break;
      case 'f':
        if (item) out.append(" f"), append_number(out, item->client_flags);
        break;
      case 'h':
        if (item) out.append(context.hit_before ? " h1" : " h0");
        break;
      case 'l':
        if (item) out.append(" l"), append_number(out, context.now - context.last_access);
        break;
      case 's':
        if (item) out.append(" s"), append_number(out, item->value_bytes);
        break;
      case 't':
        if (item) {
          out.append(" t");
          append_number(out,
                        item->expires_at == 0 ? std::int64_t{-1} : item->expires_at - context.now);
        }
        break;
      default: break;
    }
  }
  if (has_flag(request, 'b') && has_flag(request, 'k')) out.append(" b");
}

void append_bare_reply(std::string_view code, const protocol::request& request, std::int64_t now,
                       std::string& out) {
  out.append(code);
  append_return_flags(request, {nullptr, now, false, now}, out);
  out.append("\r\n");
}

}  // namespace meta

namespace {

/// me: the item's fields, with times from now.
void run_meta_debug(shard_state& state, const protocol::request& request, key_ref key,
                    std::string& out) {
  cache& items = state.items;
  const location where = items.find_item(key.key, key.search);
  if (where == store::no_location) {
    out.append("EN\r\n");
    return;
  }
  const store::item& item = items.at(where);
  out.append("ME ").append(request.key);
  // exp= as memcached 1.6.18's me prints it: current time - expiry, the
  // negative of the seconds left (metadump prints the expiry itself).
  append_item_fields(item, items.now() - item.expires_at, items.now() - item.accessed_at,
                     items.store().reported_size(item), out);
  out.append("\r\n");
}

}  // namespace

bool run_meta(shard_state& state, const protocol::request& request, std::size_t search,
              request_group& group) {
  using protocol::command;
  std::string& out = group.replies;
  const key_ref key{request.item_key(), search};
  const bool key_decodes = !key.key.empty();
  if (request.kind == command::meta_get && meta::has_flag(request, 'v') && key_decodes) {
    // a value that does not fit in the budget stops the request before it runs
    const location where = state.items.find_item(key.key, key.search);
    if (where != store::no_location && !group.reply_fits(reply_bound(state.items.at(where))))
      return false;
  }
  ++state.counts.cmd_meta;
  if (request.kind == command::meta_noop) {
    out.append("MN\r\n");
    return true;
  }
  if (!key_decodes) {
    out.append(meta::bad_key);
    return true;
  }
  switch (request.kind) {
    case command::meta_get: run_meta_get(state, request, key, out); return true;
    case command::meta_set: run_meta_set(state, request, key, out); return true;
    case command::meta_delete: run_meta_delete(state, request, key, out); return true;
    case command::meta_arithmetic: run_meta_arithmetic(state, request, key, out); return true;
    case command::meta_debug: run_meta_debug(state, request, key, out); return true;
    default: out.append("ERROR\r\n"); return true;
  }
}

}  // namespace gpuhash::server::engine
