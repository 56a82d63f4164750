// memcached's meta commands (mg ms md ma mn me), run on the batch thread.
// Supported flags: mg b c f h k l O q s t u v N R T (returning W, X, Z);
// ms b c C E F I k O q s S T M; md b C E I k O q T; ma b C E N J D T M O q
// t c v k (memcached 1.6.18's set: the parser refuses the others, md's x
// among them). E (set the new CAS) is accepted and ignored: CAS values come
// from the server's counter.

#include <charconv>
#include <optional>

#include "engine/core.hpp"
#include "engine/reply.hpp"

namespace gpuhash::server::engine {

namespace {

/// A flag's numeric token, read by memcached's rules (protocol/request.hpp).
bool token_number(std::string_view token, std::int64_t& value) {
  return protocol::parse_signed_number(token, value);
}
bool token_number(std::string_view token, std::uint64_t& value) {
  return protocol::parse_unsigned_number(token, value);
}
bool token_number(std::string_view token, std::uint32_t& value) {
  std::uint64_t wide = 0;
  if (!protocol::parse_unsigned_number(token, wide) || wide > 0xFFFFFFFFu) return false;
  value = static_cast<std::uint32_t>(wide);
  return true;
}

bool has_flag(const protocol::request& request, char letter) {
  for (const protocol::meta_flag& flag : request.meta_flags)
    if (flag.letter == letter) return true;
  return false;
}

constexpr std::string_view invalid_flag = "CLIENT_ERROR invalid flag\r\n";
constexpr std::string_view bad_format = "CLIENT_ERROR bad command line format\r\n";
constexpr std::string_view bad_key = "CLIENT_ERROR error decoding key\r\n";

}  // namespace

bool engine::core::run_meta(const protocol::request& request, std::size_t search,
                            request_group& group) {
  using protocol::command;
  std::string& out = group.replies;
  const bool key_decodes = !request.item_key().empty();
  if (request.kind == command::meta_get && has_flag(request, 'v') && key_decodes) {
    // a value that does not fit in the budget stops the request before it runs
    const location where = lookup(search);
    if (where != store::no_location && !group.reply_fits(reply_bound(store_.at(where))))
      return false;
  }
  ++counters_.cmd_meta;
  if (request.kind == command::meta_noop) {
    out.append("MN\r\n");
    return true;
  }
  if (!key_decodes) {
    out.append(bad_key);
    return true;
  }
  switch (request.kind) {
    case command::meta_get: run_meta_get(request, search, out); return true;
    case command::meta_set: run_meta_set(request, search, out); return true;
    case command::meta_delete: run_meta_delete(request, search, out); return true;
    case command::meta_arithmetic: run_meta_arithmetic(request, search, out); return true;
    case command::meta_debug: {
      const location where = lookup(search);
      if (where == store::no_location) {
        out.append("EN\r\n");
        return true;
      }
      const store::item& item = store_.at(where);
      out.append("ME ").append(request.key);
      append_item_fields(item, item.expires_at - now_, now_ - item.accessed_at, out);
      out.append("\r\n");
      return true;
    }
    default: out.append("ERROR\r\n"); return true;
  }
}

/// What a meta reply's return flags describe.
struct reply_context {
  const store::item* item = nullptr;  // null: no item (a miss)
  std::int64_t now = 0;
  bool hit_before = false;
  std::int64_t last_access = 0;
};

/// The return flags, in the order the request gave them (as memcached): c f
/// h k l O s t, those an item is needed for only when there is one; then
/// "b" when the key is returned in base64.
static void append_return_flags(const protocol::request& request, const reply_context& context,
                                std::string& out) {
  const store::item* item = context.item;
  for (const protocol::meta_flag& flag : request.meta_flags) {
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

void engine::core::run_meta_get(const protocol::request& request, std::size_t search,
                                std::string& out) {
  bool quiet = false, no_bump = false, value = false;
  std::optional<std::int64_t> new_ttl, vivify_ttl, recache_below;
  for (const protocol::meta_flag& flag : request.meta_flags) {
    switch (flag.letter) {
      case 'q': quiet = true; break;
      case 'u': no_bump = true; break;
      case 'v': value = true; break;
      case 'T':
      case 'N':
      case 'R': {
        std::int64_t ttl = 0;
        if (!token_number(flag.token, ttl)) {
          out.append(bad_format);
          return;
        }
        (flag.letter == 'T' ? new_ttl : flag.letter == 'N' ? vivify_ttl : recache_below) = ttl;
        break;
      }
      case 'b':
      case 'c':
      case 'f':
      case 'h':
      case 'k':
      case 'l':
      case 'O':
      case 's':
      case 't': break;
      default: out.append(invalid_flag); return;
    }
  }
  ++counters_.cmd_get;
  location where = lookup(search);
  bool won = false;
  if (where == store::no_location) {
    ++counters_.get_misses;
    if (!vivify_ttl) {
      if (!quiet) out.append("EN\r\n");
      return;
    }
    // N: create an empty item so one client wins the right to fill it
    if (store_value(search, store::no_location, {}, 0, expiry_of(*vivify_ttl), store_mode::add, 0,
                    &where) != store_result::stored) {
      out.append("SERVER_ERROR out of memory storing object\r\n");
      return;
    }
    won = true;
  } else {
    ++counters_.get_hits;
  }
  store::item& item = store_.at(where);
  const bool hit_before = item.fetched;
  const std::int64_t last_access = item.accessed_at;
  // The win token (W) goes to one client only: the one that vivified the
  // item, the first to see it stale, or the first to find its TTL below R.
  // Later clients see Z until the item is stored again.
  const bool recache =
      recache_below && item.expires_at != 0 && item.expires_at - now_ < *recache_below;
  if (won) {
    item.win_sent = true;
  } else if ((item.stale || recache) && !item.win_sent) {
    won = true;
    item.win_sent = true;
  }
  const bool someone_won = item.win_sent && !won;
  if (new_ttl) item.expires_at = expiry_of(*new_ttl);
  if (!won) item.fetched = true;
  if (!no_bump) {
    item.accessed_at = now_;
    store_.bump(where);
  }
  if (value) {
    out.append("VA ");
    append_number(out, item.value_bytes);
  } else {
    out.append("HD");
  }
  append_return_flags(request, {&item, now_, hit_before, last_access}, out);
  // memcached's order: Z (a winner was chosen before), X (stale), W (won now)
  if (someone_won) out.append(" Z");
  if (item.stale) out.append(" X");
  if (won) out.append(" W");
  out.append("\r\n");
  if (value) {
    const std::span<const char> bytes = item.value();
    out.append(bytes.data(), bytes.size() + 2);
  }
}

void engine::core::run_meta_set(const protocol::request& request, std::size_t search,
                                std::string& out) {
  bool quiet = false, invalidate = false;
  std::uint32_t client_flags = 0;
  std::int64_t ttl = 0;
  std::uint64_t compare_cas = 0;
  bool compares = false;
  store_mode mode = store_mode::set;
  for (const protocol::meta_flag& flag : request.meta_flags) {
    bool ok = true;
    switch (flag.letter) {
      case 'q': quiet = true; break;
      case 'I': invalidate = true; break;
      case 'F': ok = token_number(flag.token, client_flags); break;
      case 'T': ok = token_number(flag.token, ttl); break;
      case 'C':
        ok = token_number(flag.token, compare_cas);
        compares = true;
        break;
      case 'M':
        if (flag.token.size() != 1) {
          out.append("CLIENT_ERROR invalid mode for ms M token\r\n");
          return;
        }
        switch (flag.token[0]) {
          case 'E':
          case 'e': mode = store_mode::add; break;
          case 'A':
          case 'a': mode = store_mode::append; break;
          case 'P':
          case 'p': mode = store_mode::prepend; break;
          case 'R':
          case 'r': mode = store_mode::replace; break;
          case 'S':
          case 's': mode = store_mode::set; break;
          default: out.append("CLIENT_ERROR invalid mode for ms M token\r\n"); return;
        }
        break;
      case 'b':
      case 'c':
      case 'E':
      case 'k':
      case 'O':
      case 's':
      case 'S': break;
      default: out.append(invalid_flag); return;
    }
    if (!ok) {
      out.append(bad_format);
      return;
    }
  }
  (void)invalidate;  // marks stale items, which are not implemented: a plain store
  ++counters_.cmd_set;
  const location existing = lookup(search);
  if (compares && mode == store_mode::set) mode = store_mode::cas;
  location stored = store::no_location;
  const store_result result = store_value(search, existing, request.data, client_flags,
                                          expiry_of(ttl), mode, compare_cas, &stored);
  std::string_view code;
  switch (result) {
    case store_result::stored: code = "HD"; break;
    case store_result::not_stored: code = "NS"; break;
    case store_result::exists: code = "EX"; break;
    case store_result::not_found: code = "NF"; break;
    case store_result::too_large: out.append("SERVER_ERROR object too large for cache\r\n"); return;
    case store_result::no_memory:
      out.append("SERVER_ERROR out of memory storing object\r\n");
      return;
  }
  if (quiet && result == store_result::stored) return;
  out.append(code);
  const store::item* item = stored == store::no_location ? nullptr : &store_.at(stored);
  append_return_flags(request, {item, now_, false, now_}, out);
  out.append("\r\n");
}

void engine::core::run_meta_delete(const protocol::request& request, std::size_t search,
                                   std::string& out) {
  bool quiet = false, invalidate = false;
  std::uint64_t compare_cas = 0;
  bool compares = false;
  std::optional<std::int64_t> new_ttl;
  for (const protocol::meta_flag& flag : request.meta_flags) {
    switch (flag.letter) {
      case 'q': quiet = true; break;
      case 'I': invalidate = true; break;
      case 'C':
      case 'T': {
        std::int64_t number = 0;
        if (!token_number(flag.token, number)) {
          out.append(bad_format);
          return;
        }
        if (flag.letter == 'C') {
          compare_cas = static_cast<std::uint64_t>(number);
          compares = true;
        } else {
          new_ttl = number;
        }
        break;
      }
      case 'b':
      case 'E':
      case 'k':
      case 'O': break;
      default: out.append(invalid_flag); return;
    }
  }
  const location where = lookup(search);
  std::string_view code = "HD";
  if (where == store::no_location) {
    ++counters_.delete_misses;
    code = "NF";
  } else if (compares && store_.at(where).cas != compare_cas) {
    code = "EX";
  } else {
    ++counters_.delete_hits;
    if (invalidate) {
      // I: keep the item, marked stale, so one client gets to recache it
      store::item& item = store_.at(where);
      item.stale = true;
      item.win_sent = false;
      item.cas = next_cas();
      if (new_ttl) item.expires_at = expiry_of(*new_ttl);
    } else {
      unlink_item(where);
    }
    if (quiet) return;
  }
  out.append(code);
  append_return_flags(request, {nullptr, now_, false, now_}, out);
  out.append("\r\n");
}

void engine::core::run_meta_arithmetic(const protocol::request& request, std::size_t search,
                                       std::string& out) {
  bool quiet = false, incr = true, value = false;
  std::uint64_t delta = 1, initial = 0, compare_cas = 0;
  bool compares = false;
  std::optional<std::int64_t> vivify_ttl, new_ttl;
  for (const protocol::meta_flag& flag : request.meta_flags) {
    bool ok = true;
    switch (flag.letter) {
      case 'q': quiet = true; break;
      case 'v': value = true; break;
      case 'D': ok = token_number(flag.token, delta); break;
      case 'J': ok = token_number(flag.token, initial); break;
      case 'C':
        ok = token_number(flag.token, compare_cas);
        compares = true;
        break;
      case 'N':
      case 'T': {
        std::int64_t ttl = 0;
        ok = token_number(flag.token, ttl);
        (flag.letter == 'N' ? vivify_ttl : new_ttl) = ttl;
        break;
      }
      case 'M':
        if (flag.token == "I" || flag.token == "i" || flag.token == "+") {
          incr = true;
        } else if (flag.token == "D" || flag.token == "d" || flag.token == "-") {
          incr = false;
        } else {
          out.append("CLIENT_ERROR invalid mode for ma M token\r\n");
          return;
        }
        break;
      case 'b':
      case 'c':
      case 'E':
      case 'k':
      case 'O':
      case 't': break;
      default: out.append(invalid_flag); return;
    }
    if (!ok) {
      out.append(bad_format);
      return;
    }
  }
  location where = lookup(search);
  if (where == store::no_location) {
    ++(incr ? counters_.incr_misses : counters_.decr_misses);
    if (!vivify_ttl) {
      out.append("NF");
      append_return_flags(request, {nullptr, now_, false, now_}, out);
      out.append("\r\n");
      return;
    }
    char digits[24];
    const auto length = static_cast<std::size_t>(
        std::to_chars(digits, digits + sizeof digits, initial).ptr - digits);
    if (store_value(search, store::no_location, std::string_view(digits, length), 0,
                    expiry_of(*vivify_ttl), store_mode::add, 0, &where) != store_result::stored) {
      out.append("SERVER_ERROR out of memory storing object\r\n");
      return;
    }
  } else {
    if (compares && store_.at(where).cas != compare_cas) {
      out.append("EX");
      append_return_flags(request, {nullptr, now_, false, now_}, out);
      out.append("\r\n");
      return;
    }
    protocol::request classic;
    classic.kind = incr ? protocol::command::incr : protocol::command::decr;
    classic.delta = delta;
    classic.noreply = true;
    const std::size_t before = out.size();
    run_arithmetic(classic, search, out, /*errors_despite_noreply=*/true);
    if (out.size() != before) return;  // an error line
    where = lookup(search);
    if (where == store::no_location) {
      out.append("NF\r\n");
      return;
    }
  }
  store::item& item = store_.at(where);
  if (new_ttl) item.expires_at = expiry_of(*new_ttl);
  if (quiet && !value) return;
  std::size_t length = item.value_bytes;
  const std::span<const char> bytes = item.value();
  while (length != 0 && bytes[length - 1] == ' ') --length;  // in-place padding
  if (value) {
    out.append("VA ");
    append_number(out, length);
  } else {
    out.append("HD");
  }
  append_return_flags(request, {&item, now_, false, item.accessed_at}, out);
  out.append("\r\n");
  if (value) out.append(bytes.data(), length).append("\r\n");
}

}  // namespace gpuhash::server::engine
