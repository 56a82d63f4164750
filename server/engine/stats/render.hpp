#pragma once
// memcached's text for `stats`, `stats items` and `stats slabs`, written once
// from a shard's numbers or the merged numbers of several (numbers.hpp),
// with the index's own lines (index_*) after memcached's.

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

}  // namespace gpuhash::server::engine
