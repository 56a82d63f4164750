// mg: memcached's meta get, with its win tokens for recaching (W, X, Z).

#include <optional>

#include "engine/commands/meta_flags.hpp"
#include "engine/commands/reply.hpp"

namespace gpuhash::server::engine {

namespace {

struct get_flags {
  bool quiet = false, no_bump = false, value = false;
  std::optional<std::int64_t> new_ttl, vivify_ttl, recache_below;
};

/// One of mg's flags.
meta::flag_outcome read_flag(const protocol::meta_flag& flag, get_flags& flags) {
  switch (flag.letter) {
    case 'q': flags.quiet = true; break;
    case 'u': flags.no_bump = true; break;
    case 'v': flags.value = true; break;
    case 'T':
    case 'N':
    case 'R': {
      std::int64_t ttl = 0;
      if (!meta::token_number(flag.token, ttl)) return meta::flag_outcome::bad_token;
      (flag.letter == 'T'   ? flags.new_ttl
       : flag.letter == 'N' ? flags.vivify_ttl
                            : flags.recache_below) = ttl;
      break;
    }
    default: break;  // returned, or of no use to this command (meta_flags.hpp)
  }
  return meta::flag_outcome::read;
}

/// The hit's reply: its code and flags, the win tokens, and its value.
void answer_hit(const protocol::request& request, const get_flags& flags, store::item& item,
                bool won, const meta::reply_context& context, std::string& out) {
  const bool someone_won = item.win_sent && !won;
  if (flags.value) {
    out.append("VA ");
    append_number(out, item.value_bytes);
  } else {
    out.append("HD");
  }
  meta::append_return_flags(request, context, out);
  // memcached's order: Z (a winner was chosen before), X (stale), W (won now)
  if (someone_won) out.append(" Z");
  if (item.stale) out.append(" X");
  if (won) out.append(" W");
  out.append("\r\n");
  if (flags.value) {
    const std::span<const char> bytes = item.value();
    out.append(bytes.data(), bytes.size() + 2);
  }
}

}  // namespace

void run_meta_get(shard_state& state, const protocol::request& request, key_ref key,
                  std::string& out) {
  cache& items = state.items;
  get_flags flags;
  const auto read = [&](const protocol::meta_flag& flag) { return read_flag(flag, flags); };
  if (!meta::read_flags(request, {}, out, read)) return;
  location where = items.find_item(key.key, key.search);
  bool won = false;
  if (where == store::no_location && flags.vivify_ttl) {
    // N: create an empty item so one client wins the right to fill it;
    // memcached allocates it without an expiry (so it never enters TEMP)
    // and gives it N's afterwards. An allocation that fails is a miss.
    if (items.store_value(key, store::no_location, {}, 0, 0, store_mode::add, 0, &where) ==
        store_result::stored) {
      items.at(where).expires_at = items.expiry_of(*flags.vivify_ttl);
      won = true;
    } else {
      where = store::no_location;
    }
  }
  if (where == store::no_location) {
    ++state.counts.cmd_get;
    ++state.counts.get_misses;
    if (!flags.quiet) out.append("EN\r\n");
    return;
  }
  // memcached counts an item found or created as a touch when T sets its
  // TTL, else as a get hit, in its class and LRU segment
  if (flags.new_ttl) {
    ++state.counts.cmd_touch;
    ++state.counts.touch_hits;
    count_in_class(state, items.at(where).size_class, &class_command_counts::touch_hits);
  } else {
    ++state.counts.cmd_get;
    ++state.counts.get_hits;
    if (won) {
      // memcached counts it where it was linked, before its maintainer
      // moves it on: HOT, or COLD when the LRU is flat (never TEMP: no expiry)
      const bool segmented = items.store().lru().segmented;
      count_read_hit(state, items.at(where).size_class,
                     segmented ? store::lru_segment::hot : store::lru_segment::cold);
    } else {
      count_read_hit(state, items.at(where));
    }
  }
  store::item& item = items.at(where);
  const meta::reply_context context{&item, items.now(), item.fetched, item.accessed_at};
  // The win token (W) goes to one client only: the one that vivified the
  // item, the first to see it stale, or the first to find its TTL below R.
  // Later clients see Z until the item is stored again.
  const bool recache = flags.recache_below && item.expires_at != 0 &&
                       item.expires_at - items.now() < *flags.recache_below;
  if (won) {
    item.win_sent = true;
  } else if ((item.stale || recache) && !item.win_sent) {
    won = true;
    item.win_sent = true;
  }
  if (flags.new_ttl) item.expires_at = items.expiry_of(*flags.new_ttl);
  if (!flags.no_bump) items.bump(where);  // marks it fetched, then active
  if (!won) item.fetched = true;
  answer_hit(request, flags, item, won, context, out);
}

}  // namespace gpuhash::server::engine
