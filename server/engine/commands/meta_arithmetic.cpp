// ma: memcached's meta arithmetic.

#include <charconv>
#include <optional>

#include "engine/commands/meta_flags.hpp"
#include "engine/commands/reply.hpp"

namespace gpuhash::server::engine {

namespace {

struct arithmetic_flags {
  bool quiet = false, incr = true, value = false, compares = false;
  std::uint64_t delta = 1, initial = 0, compare_cas = 0;
  std::optional<std::int64_t> vivify_ttl, new_ttl;
};

/// ma's M token: incr (I, i, +) or decr (D, d, -); false for another.
bool mode_of(std::string_view token, bool& incr) {
  if (token == "I" || token == "i" || token == "+") {
    incr = true;
  } else if (token == "D" || token == "d" || token == "-") {
    incr = false;
  } else {
    return false;
  }
  return true;
}

/// One of ma's flags.
meta::flag_outcome read_flag(const protocol::meta_flag& flag, arithmetic_flags& flags) {
  switch (flag.letter) {
    case 'q': flags.quiet = true; break;
    case 'v': flags.value = true; break;
    case 'D': return meta::read_if(meta::token_number(flag.token, flags.delta));
    case 'J': return meta::read_if(meta::token_number(flag.token, flags.initial));
    case 'C':
      flags.compares = true;
      return meta::read_if(meta::token_number(flag.token, flags.compare_cas));
    case 'N':
    case 'T': {
      std::int64_t ttl = 0;
      const bool ok = meta::token_number(flag.token, ttl);
      (flag.letter == 'N' ? flags.vivify_ttl : flags.new_ttl) = ttl;
      return meta::read_if(ok);
    }
    case 'M':
      if (!mode_of(flag.token, flags.incr)) return meta::flag_outcome::bad_mode;
      break;
    default: break;  // returned, or of no use to this command (meta_flags.hpp)
  }
  return meta::flag_outcome::read;
}

/// The item after the arithmetic: its number (without the in-place
/// padding) with v, its flags.
void answer(const protocol::request& request, const arithmetic_flags& flags,
            const store::item& item, std::int64_t now, std::string& out) {
  std::size_t length = item.value_bytes;
  const std::span<const char> bytes = item.value();
  while (length != 0 && bytes[length - 1] == ' ') --length;  // in-place padding
  if (flags.value) {
    out.append("VA ");
    append_number(out, length);
  } else {
    out.append("HD");
  }
  meta::append_return_flags(request, {&item, now, false, item.accessed_at}, out,
                            meta::arithmetic_returns);
  out.append("\r\n");
  if (flags.value) out.append(bytes.data(), length).append("\r\n");
}

}  // namespace

void run_meta_arithmetic(shard_state& state, const protocol::request& request, key_ref key,
                         std::string& out) {
  cache& items = state.items;
  arithmetic_flags flags;
  const auto read = [&](const protocol::meta_flag& flag) { return read_flag(flag, flags); };
  if (!meta::read_flags(request, "CLIENT_ERROR invalid mode for ma M token\r\n", out, read)) return;
  location where = items.find_item(key.key, key.search);
  if (where == store::no_location) {
    ++(flags.incr ? state.counts.incr_misses : state.counts.decr_misses);
    if (!flags.vivify_ttl) {
      meta::append_bare_reply("NF", request, items.now(), out);
      return;
    }
    char digits[24];
    const auto length = static_cast<std::size_t>(
        std::to_chars(digits, digits + sizeof digits, flags.initial).ptr - digits);
    // as mg's N: stored without an expiry (never in TEMP), then given N's
    if (items.store_value(key, store::no_location, std::string_view(digits, length), 0, 0,
                          store_mode::add, 0, &where) != store_result::stored) {
      out.append(meta::no_memory);
      return;
    }
    items.at(where).expires_at = items.expiry_of(*flags.vivify_ttl);
  } else {
    if (flags.compares && items.at(where).cas != flags.compare_cas) {
      meta::append_bare_reply("EX", request, items.now(), out);
      return;
    }
    const std::size_t before = out.size();
    run_arithmetic(state, key, flags.incr, flags.delta, /*noreply=*/true, out,
                   /*errors_despite_noreply=*/true);
    if (out.size() != before) return;  // an error line
    where = items.find_item(key.key, key.search);
    if (where == store::no_location) {
      out.append("NF\r\n");
      return;
    }
  }
  store::item& item = items.at(where);
  if (flags.new_ttl) item.expires_at = items.expiry_of(*flags.new_ttl);
  if (flags.quiet && !flags.value) return;
  answer(request, flags, item, items.now(), out);
}

}  // namespace gpuhash::server::engine
