// `stats cachedump` (cachedump.hpp).

#include "engine/stats/cachedump.hpp"

#include <algorithm>

#include "engine/commands/reply.hpp"

namespace gpuhash::server::engine {

namespace {

/// memcached's item_cachedump writes into a 2 MB buffer, keeping room for END.
constexpr std::size_t reply_max = 2u << 20;
constexpr std::size_t end_room = 6;  // "END\r\n" and memcached's NUL

void append_line(const dumped_item& item, std::string& out) {
  out.append("ITEM ").append(item.key).append(" [");
  append_number(out, item.value_bytes);
  out.append(" b; ");
  append_number(out, item.expires_at);
  out.append(" s]\r\n");
}

}  // namespace

std::vector<dumped_item> dump_class(const cache& items, std::size_t size_class,
                                    std::uint32_t limit) {
  std::vector<dumped_item> dumped;
  std::string line;
  std::size_t bytes = 0;
  items.store().visit_class(size_class, [&](const store::item& item) {
    if (limit != 0 && dumped.size() == limit) return false;
    if (!items.is_live(item)) return true;
    dumped_item& each = dumped.emplace_back(
        dumped_item{std::string(item.key()), item.value_bytes, item.expires_at, item.accessed_at});
    line.clear();
    append_line(each, line);
    bytes += line.size();
    return bytes + end_room <= reply_max;  // the rest would not be shown
  });
  return dumped;
}

void render_cachedump(std::vector<dumped_item> items, std::uint32_t limit, std::string& out) {
  // each shard's list is already latest first: a stable sort merges them
  std::ranges::stable_sort(items, std::ranges::greater{}, &dumped_item::accessed_at);
  const std::size_t first = out.size();
  std::size_t shown = 0;
  for (const dumped_item& item : items) {
    if (limit != 0 && shown == limit) break;
    const std::size_t before = out.size();
    append_line(item, out);
    if (out.size() - first + end_room > reply_max) {
      out.resize(before);
      break;
    }
    ++shown;
  }
  out.append("END\r\n");
}

}  // namespace gpuhash::server::engine
