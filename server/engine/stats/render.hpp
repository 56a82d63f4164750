#pragma once
// memcached's text for `stats`, `stats items` and `stats slabs`, written once
// from a shard's numbers or the merged numbers of several (numbers.hpp):
// every field memcached 1.6.18 sends, in its order, those it shows only
// under some settings shown under the same settings (shown_counters), with
// the index's own lines (index_*) after memcached's. A field that counts
// something gpuhash-server does not have (memcached's slab mover, LRU
// maintainer and crawler, loggers, response objects, NAPI ids) reads 0
// (docs/designs/server.md lists them).

#include <string>
#include <string_view>

#include "engine/stats/numbers.hpp"
#include "engine/stats/server_stats.hpp"

namespace gpuhash::server::engine {

/// Whether `stats <argument>` shows numbers that add up over shards ("",
/// "items", "slabs"): those are rendered by render_numbers.
inline bool adds_up(std::string_view argument) noexcept {
  return argument.empty() || argument == "items" || argument == "slabs";
}

/// The lines of `stats <argument>` (adds_up(argument)) and their END.
void render_numbers(std::string_view argument, const shard_numbers& numbers,
                    const server_stats& server, std::string& out);

/// `stats items` and `stats slabs` without their END (render_classes.cpp).
void render_items(const shard_numbers& numbers, const shown_counters& shown, std::string& out);
void render_slabs(const shard_numbers& numbers, std::string& out);

}  // namespace gpuhash::server::engine
