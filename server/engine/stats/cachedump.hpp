#pragma once
// `stats cachedump <class> <limit>`: the items of one size class, as
// memcached 1.6.18's item_cachedump lists them, kept as numbers until the
// shards' lists are put together and rendered once (as `stats` is).
// memcached walks its class's COLD LRU, where gpuhash-server keeps every
// item (render_classes.cpp); dead items (expired, flushed) are left out,
// where memcached lists them until its LRU crawler reclaims them.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/cache/cache.hpp"

namespace gpuhash::server::engine {

/// One item of a dump.
struct dumped_item {
  std::string key;
  std::uint32_t value_bytes = 0;
  std::int64_t expires_at = 0;   ///< Unix seconds; 0: never
  std::int64_t accessed_at = 0;  ///< orders several shards' items, the latest first
};

/// A shard's live items of `size_class`, the most recently used first: at
/// most `limit` (0: no limit), and no more than memcached's reply holds.
std::vector<dumped_item> dump_class(const cache& items, std::size_t size_class,
                                    std::uint32_t limit);

/// memcached's reply: an "ITEM <key> [<bytes> b; <exptime> s]" line an item
/// (exptime in Unix seconds, 0: never), the latest accessed first over the
/// shards' lists, at most `limit` (0: no limit) and 2 MB of them, then END.
void render_cachedump(std::vector<dumped_item> items, std::uint32_t limit, std::string& out);

}  // namespace gpuhash::server::engine
