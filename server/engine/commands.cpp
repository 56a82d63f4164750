// memcached's classic text commands, run on the batch thread against the
// items found by the batch's searches (core.hpp).

#include <algorithm>
#include <charconv>

#include "engine/core.hpp"
#include "engine/reply.hpp"

namespace gpuhash::server::engine {

namespace {

constexpr std::string_view server_version = "1.6.18-gpuhash";

store_mode mode_of(protocol::command kind) {
  using protocol::command;
  switch (kind) {
    case command::add: return store_mode::add;
    case command::replace: return store_mode::replace;
    case command::append: return store_mode::append;
    case command::prepend: return store_mode::prepend;
    case command::cas: return store_mode::cas;
    default: return store_mode::set;
  }
}

std::string_view reply_of(store_result result) {
  switch (result) {
    case store_result::stored: return "STORED\r\n";
    case store_result::not_stored: return "NOT_STORED\r\n";
    case store_result::exists: return "EXISTS\r\n";
    case store_result::not_found: return "NOT_FOUND\r\n";
    case store_result::too_large: return "SERVER_ERROR object too large for cache\r\n";
    case store_result::no_memory: return "SERVER_ERROR out of memory storing object\r\n";
  }
  return "SERVER_ERROR internal\r\n";
}

}  // namespace

bool engine::core::run_request(work_item& work, std::size_t first_search, request_group& group) {
  const protocol::request& request = work.request;
  using protocol::command;
  switch (request.kind) {
    case command::get:
    case command::gets:
    case command::gat:
    case command::gats: return run_retrieval(work, first_search, group);
    case command::lru_crawler_metadump: return run_metadump(work, first_search, group);
    case command::meta_get:
    case command::meta_set:
    case command::meta_delete:
    case command::meta_arithmetic:
    case command::meta_noop:
    case command::meta_debug: return run_meta(request, first_search, group);
    default: run_command(request, first_search, group); return true;
  }
}

void engine::core::run_command(const protocol::request& request, std::size_t first_search,
                               request_group& group) {
  std::string& out = group.replies;
  using protocol::command;
  switch (request.kind) {
    case command::get:
    case command::gets:
    case command::gat:
    case command::gats: return;  // run_retrieval
    case command::set:
    case command::add:
    case command::replace:
    case command::append:
    case command::prepend:
    case command::cas: run_storage(request, first_search, out); return;
    case command::delete_: {
      const location where = lookup(first_search);
      if (where != store::no_location) {
        unlink_item(where);
        ++counters_.delete_hits;
      } else {
        ++counters_.delete_misses;
      }
      if (!request.noreply)
        out.append(where != store::no_location ? "DELETED\r\n" : "NOT_FOUND\r\n");
      return;
    }
    case command::incr:
    case command::decr: run_arithmetic(request, first_search, out); return;
    case command::touch: {
      ++counters_.cmd_touch;
      const location where = lookup(first_search);
      if (where != store::no_location) {
        store::item& item = store_.at(where);
        item.expires_at = expiry_of(request.exptime);
        item.accessed_at = now_;
        store_.bump(where);
        ++counters_.touch_hits;
      } else {
        ++counters_.touch_misses;
      }
      if (!request.noreply)
        out.append(where != store::no_location ? "TOUCHED\r\n" : "NOT_FOUND\r\n");
      return;
    }
    case command::flush_all: {
      ++counters_.cmd_flush;  // a refused one too, as memcached counts it
      if (!config_.flush_enabled) {
        if (!request.noreply) out.append("CLIENT_ERROR flush_all not allowed\r\n");
        return;
      }
      // memcached keeps one flush time: the last flush_all replaces any
      // delayed one still to come.
      if (request.delay > 0) {
        flush_time_ = expiry_of(request.delay) - 1;
      } else {
        flush_time_ = 0;
        flush_cas_ = last_cas_;  // everything stored so far, even this second
      }
      if (!request.noreply) out.append("OK\r\n");
      return;
    }
    case command::version: out.append("VERSION ").append(server_version).append("\r\n"); return;
    case command::verbosity:
      if (!request.noreply) out.append("OK\r\n");
      return;
    case command::stats: run_stats(request.argument, out); return;
    case command::quit: group.close_after = true; return;
    case command::shutdown:
      if (!config_.shutdown_enabled) {
        out.append("ERROR: shutdown not enabled\r\n");
        return;
      }
      if (!request.argument.empty() && request.argument != "graceful") {
        out.append("CLIENT_ERROR invalid shutdown mode\r\n");
        return;
      }
      shutdown_accepted_ = true;
      group.close_after = true;
      return;
    case command::lru_crawler_metadump: return;  // run_metadump
    case command::cache_memlimit: {
      // as memcached's process_memlimit_command
      std::string_view reply = "OK\r\n";
      if (request.delta < 8) {
        reply = "MEMLIMIT_TOO_SMALL cannot set maxbytes to less than 8m\r\n";
      } else if (request.delta > 1000000000) {
        reply = "MEMLIMIT_ADJUST_FAILED input value is megabytes not bytes\r\n";
      } else if (!store_.set_memory_limit((static_cast<std::size_t>(request.delta) << 20) /
                                          config_.shards)) {
        reply = "MEMLIMIT_ADJUST_FAILED out of bounds or unable to adjust\r\n";
      }
      if (!request.noreply) out.append(reply);
      return;
    }
    case command::meta_get:
    case command::meta_set:
    case command::meta_delete:
    case command::meta_arithmetic:
    case command::meta_noop:
    case command::meta_debug: return;  // run_meta
  }
}

/// get, gets, gat, gats. Values are copied into the replies; past the
/// group's reply budget the request stops, to go on in a later batch from
/// work.keys_done (the searches of this batch start at that key). Each key
/// ends a reply segment (request_group::mark), hit or miss.
bool engine::core::run_retrieval(work_item& work, std::size_t first_search, request_group& group) {
  std::string& out = group.replies;
  const protocol::request& request = work.request;
  using protocol::command;
  const bool with_cas = request.kind == command::gets || request.kind == command::gats;
  const bool touches = request.kind == command::gat || request.kind == command::gats;
  const std::int64_t expires_at = touches ? expiry_of(request.exptime) : 0;
  const std::size_t first_key = work.keys_done;
  for (std::size_t k = first_key; k < request.keys.size(); ++k) {
    if (out.size() >= group.budget) {
      work.keys_done = k;
      return false;
    }
    const location where = lookup(first_search + (k - first_key));
    // a value that does not fit stops the request before anything is counted
    if (where != store::no_location && !group.reply_fits(reply_bound(store_.at(where)))) {
      work.keys_done = k;
      return false;
    }
    ++(touches ? counters_.cmd_touch : counters_.cmd_get);
    if (where == store::no_location) {
      ++(touches ? counters_.touch_misses : counters_.get_misses);
      group.mark();
      continue;
    }
    store::item& item = store_.at(where);
    ++(touches ? counters_.touch_hits : counters_.get_hits);
    if (touches) item.expires_at = expires_at;
    item.fetched = true;
    item.accessed_at = now_;
    store_.bump(where);
    out.append("VALUE ").append(item.key()).push_back(' ');
    append_number(out, item.client_flags);
    out.push_back(' ');
    append_number(out, item.value_bytes);
    if (with_cas) {
      out.push_back(' ');
      append_number(out, config_.cas_enabled ? item.cas : 0);
    }
    out.append("\r\n");
    const std::span<const char> value = item.value();
    out.append(value.data(), value.size() + 2);  // the value's "\r\n" follows it
    group.mark();
  }
  out.append("END\r\n");
  return true;
}

void engine::core::run_storage(const protocol::request& request, std::size_t search,
                               std::string& out) {
  ++counters_.cmd_set;
  const location existing = lookup(search);
  const store_mode mode = mode_of(request.kind);
  const store_result result =
      store_value(search, existing, request.data, request.client_flags, expiry_of(request.exptime),
                  mode, request.cas_unique, nullptr);
  if (mode == store_mode::cas) {
    if (result == store_result::stored) ++counters_.cas_hits;
    if (result == store_result::exists) ++counters_.cas_badval;
    if (result == store_result::not_found) ++counters_.cas_misses;
  }
  // noreply silences the errors too, as in memcached: a client that asked
  // for no reply reads none, so an error line would put it out of step
  if (!request.noreply) out.append(reply_of(result));
}

/// incr/decr on a decimal value: incr wraps at 2^64, decr stops at 0. As in
/// memcached, a result no longer than the value is written in place, padded
/// with spaces; a longer one makes a new item.
void engine::core::run_arithmetic(const protocol::request& request, std::size_t search,
                                  std::string& out, bool errors_despite_noreply) {
  const bool incr = request.kind == protocol::command::incr;
  const bool send_errors = !request.noreply || errors_despite_noreply;
  const location where = lookup(search);
  if (where == store::no_location) {
    ++(incr ? counters_.incr_misses : counters_.decr_misses);
    if (!request.noreply) out.append("NOT_FOUND\r\n");
    return;
  }
  store::item& item = store_.at(where);
  const std::span<char> value = item.value();
  std::uint64_t number = 0;
  const char* end = value.data() + value.size();
  // trailing spaces are left by an earlier in-place decr
  while (end != value.data() && end[-1] == ' ') --end;
  const auto parsed = std::from_chars(value.data(), end, number);
  if (value.empty() || parsed.ec != std::errc{} || parsed.ptr != end) {
    if (send_errors) out.append("CLIENT_ERROR cannot increment or decrement non-numeric value\r\n");
    return;
  }
  ++(incr ? counters_.incr_hits : counters_.decr_hits);
  number = incr ? number + request.delta : (number > request.delta ? number - request.delta : 0);
  char digits[24];
  const auto length =
      static_cast<std::size_t>(std::to_chars(digits, digits + sizeof digits, number).ptr - digits);
  if (length <= value.size()) {
    std::copy(digits, digits + length, value.data());
    std::fill(value.data() + length, value.data() + value.size(), ' ');
    item.cas = next_cas();
    item.accessed_at = now_;
    store_.bump(where);
  } else {
    // replace, not set: if the longer value finds no memory, the old one
    // stays (as in memcached)
    const store_result result =
        store_value(search, where, std::string_view(digits, length), item.client_flags,
                    item.expires_at, store_mode::replace, 0, nullptr);
    if (result != store_result::stored) {
      if (send_errors) out.append(reply_of(result));
      return;
    }
  }
  if (!request.noreply) out.append(digits, length).append("\r\n");
}

/// The fields of a metadump line and of `me`: " exp= la= cas= fetch= cls=
/// size=", with exp (-1: never) and la given by the caller (metadump: Unix
/// times; me: seconds from now).
void append_item_fields(const store::item& item, std::int64_t exp, std::int64_t la,
                        std::string& out) {
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
  append_number(out, sizeof(store::item) + item.key_bytes + item.value_bytes + 2);
}

/// One line of `lru_crawler metadump` (ending in "\n" alone, as memcached's).
void engine::core::append_item_line(location where, std::string& out) const {
  const store::item& item = store_.at(where);
  out.append("key=");
  append_url_encoded(out, item.key());
  append_item_fields(item, item.expires_at, item.accessed_at, out);
  out.push_back('\n');
}

bool engine::core::run_metadump(work_item& work, std::size_t first_search, request_group& group) {
  const protocol::request& request = work.request;
  std::string& out = group.replies;
  if (!config_.dumping_enabled) {
    out.append("ERROR metadump not allowed\r\n");
    return true;
  }
  if (request.argument == "all") {
    // The whole cache, in pieces of the reply budget sent as the client
    // reads them: each piece goes on from the location where the last one
    // stopped (kept in work.keys_done), and ends a reply segment.
    const location next = store_.visit_linked_from(static_cast<location>(work.keys_done),
                                                   [&](location where, const store::item& item) {
                                                     if (out.size() >= group.budget) return false;
                                                     if (is_live(item))
                                                       append_item_line(where, out);
                                                     return true;
                                                   });
    if (next != store::no_location) {
      work.keys_done = next;
      group.mark();
      return false;
    }
  } else {
    std::size_t search = first_search;
    for (std::size_t k = 0; k < request.keys.size(); ++k) {
      const location where = lookup(search++);
      if (where != store::no_location) append_item_line(where, out);
      group.mark();  // one segment a key, as a multi-get's
    }
  }
  out.append("END\r\n");
  return true;
}

}  // namespace gpuhash::server::engine
