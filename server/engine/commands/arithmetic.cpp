// incr and decr.

#include <algorithm>
#include <charconv>

#include "engine/commands/command_set.hpp"

namespace gpuhash::server::engine {

/// On a decimal value, read as memcached reads it: incr wraps at 2^64, decr
/// stops at 0. As in memcached, a result no longer than the value is
/// written in place, padded with spaces; a longer one makes a new item.
void run_arithmetic(shard_state& state, key_ref key, bool incr, std::uint64_t delta, bool noreply,
                    std::string& out, bool errors_despite_noreply) {
  cache& items = state.items;
  command_counts& counts = state.counts;
  const bool send_errors = !noreply || errors_despite_noreply;
  const location where = items.find_item(key.key, key.search);
  if (where == store::no_location) {
    ++(incr ? counts.incr_misses : counts.decr_misses);
    if (!noreply) out.append("NOT_FOUND\r\n");
    return;
  }
  store::item& item = items.at(where);
  const std::span<char> value = item.value();
  // As memcached reads the value, with safe_strtoull on a C string: it ends
  // at a NUL, blanks and a '+' may come before the digits and a blank after
  // them (" 12", "+12", "12 34" and the padding of an in-place decr are
  // numbers).
  const std::string_view text(value.data(), value.size());
  std::uint64_t number = 0;
  if (!protocol::parse_unsigned_number(text.substr(0, text.find('\0')), number)) {
    if (send_errors) out.append("CLIENT_ERROR cannot increment or decrement non-numeric value\r\n");
    return;
  }
  ++(incr ? counts.incr_hits : counts.decr_hits);
  count_in_class(state, item.size_class,
                 incr ? &class_command_counts::incr_hits : &class_command_counts::decr_hits);
  number = incr ? number + delta : (number > delta ? number - delta : 0);
  char digits[24];
  const auto length =
      static_cast<std::size_t>(std::to_chars(digits, digits + sizeof digits, number).ptr - digits);
  if (length <= value.size()) {
    std::copy(digits, digits + length, value.data());
    std::fill(value.data() + length, value.data() + value.size(), ' ');
    item.cas = items.next_cas();
    items.update(where);
  } else {
    // replace, not set: if the longer value finds no memory, the old one
    // stays (as in memcached)
    const store_result result =
        items.store_value(key, where, std::string_view(digits, length), item.client_flags,
                          item.expires_at, store_mode::replace, 0, nullptr);
    if (result != store_result::stored) {
      if (send_errors) out.append(reply_of(result));
      return;
    }
  }
  if (!noreply) out.append(digits, length).append("\r\n");
}

}  // namespace gpuhash::server::engine
