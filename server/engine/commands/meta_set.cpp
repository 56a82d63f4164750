// ms and md: memcached's meta set and meta delete.

#include <optional>

#include "engine/commands/meta_flags.hpp"

namespace gpuhash::server::engine {

namespace {

constexpr std::string_view bad_ms_mode = "CLIENT_ERROR invalid mode for ms M token\r\n";

struct set_flags {
  bool quiet = false;
  std::uint32_t client_flags = 0;
  std::int64_t ttl = 0;
  std::uint64_t compare_cas = 0;
  bool compares = false;
  store_mode mode = store_mode::set;
};

/// ms's M token: how the value is stored; false for none of ms's modes.
bool mode_of(std::string_view token, store_mode& mode) {
  if (token.size() != 1) return false;
  switch (token[0]) {
    case 'E':
    case 'e': mode = store_mode::add; return true;
    case 'A':
    case 'a': mode = store_mode::append; return true;
    case 'P':
    case 'p': mode = store_mode::prepend; return true;
    case 'R':
    case 'r': mode = store_mode::replace; return true;
    case 'S':
    case 's': mode = store_mode::set; return true;
    default: return false;
  }
}

/// One of ms's flags. I (invalidate) would mark stale items, which ms does
/// not do here: a plain store.
meta::flag_outcome read_flag(const protocol::meta_flag& flag, set_flags& flags) {
  switch (flag.letter) {
    case 'q': flags.quiet = true; break;
    case 'F': return meta::read_if(meta::token_number(flag.token, flags.client_flags));
    case 'T': return meta::read_if(meta::token_number(flag.token, flags.ttl));
    case 'C':
      flags.compares = true;
      return meta::read_if(meta::token_number(flag.token, flags.compare_cas));
    case 'M':
      if (!mode_of(flag.token, flags.mode)) return meta::flag_outcome::bad_mode;
      break;
    default: break;  // returned, or of no use to this command (meta_flags.hpp)
  }
  return meta::flag_outcome::read;
}

struct delete_flags {
  bool quiet = false, invalidate = false, compares = false;
  std::uint64_t compare_cas = 0;
  std::optional<std::int64_t> new_ttl;
};

/// One of md's flags.
meta::flag_outcome read_flag(const protocol::meta_flag& flag, delete_flags& flags) {
  switch (flag.letter) {
    case 'q': flags.quiet = true; break;
    case 'I': flags.invalidate = true; break;
    case 'C':
    case 'T': {
      std::int64_t number = 0;
      if (!meta::token_number(flag.token, number)) return meta::flag_outcome::bad_token;
      if (flag.letter == 'C') {
        flags.compare_cas = static_cast<std::uint64_t>(number);
        flags.compares = true;
      } else {
        flags.new_ttl = number;
      }
      break;
    }
    default: break;  // returned, or of no use to this command (meta_flags.hpp)
  }
  return meta::flag_outcome::read;
}

}  // namespace

void run_meta_set(shard_state& state, const protocol::request& request, key_ref key,
                  std::string& out) {
  cache& items = state.items;
  set_flags flags;
  const auto read = [&](const protocol::meta_flag& flag) { return read_flag(flag, flags); };
  if (!meta::read_flags(request, bad_ms_mode, out, read)) return;
  ++state.counts.cmd_set;
  count_in_class(state, class_of_store(state, key.key, request.data, flags.client_flags),
                 &class_command_counts::cmd_set);
  const location existing = items.find_item(key.key, key.search);
  // As memcached's process_mset_command: C turns set and replace into a
  // compare-and-swap (a replace that compares is one), counted as cas is;
  // append and prepend compare without counting (cache::store_value), add
  // ignores it.
  const bool swaps = flags.mode == store_mode::set || flags.mode == store_mode::replace;
  if (flags.compares && swaps) flags.mode = store_mode::cas;
  const std::size_t old_class = existing == store::no_location ? 0 : items.at(existing).size_class;
  location stored = store::no_location;
  const store_result result =
      items.store_value(key, existing, request.data, flags.client_flags, items.expiry_of(flags.ttl),
                        flags.mode, flags.compare_cas, &stored);
  if (flags.mode == store_mode::cas) count_compare_and_swap(state, result, old_class);
  std::string_view code;
  switch (result) {
    case store_result::stored: code = "HD"; break;
    case store_result::not_stored: code = "NS"; break;
    case store_result::exists: code = "EX"; break;
    case store_result::not_found: code = "NF"; break;
    case store_result::too_large:
    case store_result::no_memory:
    case store_result::no_memory_reading: out.append(reply_of(result)); return;
  }
  if (flags.quiet && result == store_result::stored) return;
  out.append(code);
  const store::item* item = stored == store::no_location ? nullptr : &items.at(stored);
  meta::append_return_flags(request, {item, items.now(), false, items.now()}, out,
                            meta::set_returns);
  out.append("\r\n");
}

void run_meta_delete(shard_state& state, const protocol::request& request, key_ref key,
                     std::string& out) {
  cache& items = state.items;
  delete_flags flags;
  const auto read = [&](const protocol::meta_flag& flag) { return read_flag(flag, flags); };
  if (!meta::read_flags(request, {}, out, read)) return;
  const location where = items.find_item(key.key, key.search);
  std::string_view code = "HD";
  if (where == store::no_location) {
    ++state.counts.delete_misses;
    code = "NF";
  } else if (flags.compares && items.at(where).cas != flags.compare_cas) {
    code = "EX";
  } else {
    ++state.counts.delete_hits;
    count_in_class(state, items.at(where).size_class, &class_command_counts::delete_hits);
    if (flags.invalidate) {
      // I: keep the item, marked stale, so one client gets to recache it
      store::item& item = items.at(where);
      item.stale = true;
      item.win_sent = false;
      item.cas = items.next_cas();
      if (flags.new_ttl) item.expires_at = items.expiry_of(*flags.new_ttl);
    } else {
      items.unlink(where);
    }
    if (flags.quiet) return;
  }
  meta::append_bare_reply(code, request, items.now(), out);
}

}  // namespace gpuhash::server::engine
