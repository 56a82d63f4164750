#pragma once
// A group's parts and how its replies are put back together (router.hpp).
// Kept with the group, for reuse, once it has been in parts.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "engine/request_group.hpp"

namespace gpuhash::server::engine {

/// How a request's replies come from the parts of a group in parts.
enum class route_kind : std::uint8_t {
  one,             ///< one shard's (a request for one key, or for none)
  keys,            ///< a multi-get: each key's from its shard, then one END
  every,           ///< every shard runs it; the first shard's reply is the reply
  every_dump,      ///< metadump all: every shard's lines, then one END
  every_keys,      ///< metadump of keys: every shard looks each key up
  every_stats,     ///< stats: every shard's numbers, merged
  every_cachedump  ///< stats cachedump: every shard's items, merged
};

struct request_group::split_state {
  struct request_route {
    route_kind kind = route_kind::one;
    std::uint32_t shard = 0;   ///< one: the shard
    std::uint32_t keys = 0;    ///< keys, every_keys: the request's keys
    std::uint64_t shards = 0;  ///< keys: the shards its keys are in (a bit each)
  };

  bool active = false;                                ///< the group's requests are in parts now
  std::vector<std::unique_ptr<request_group>> parts;  ///< by shard; null until needed
  std::uint64_t involved = 0;                         ///< shards with a part (a bit each)
  std::vector<request_route> routes;                  ///< per request, from the group's done
  std::vector<std::uint8_t> key_shards;   ///< the shard of each key of the `keys` routes
  std::vector<std::size_t> next_segment;  ///< per shard: its part's next unread segment
  std::vector<std::size_t> next_numbers;  ///< per shard: its part's next unread stats numbers
  std::vector<std::size_t> next_dumps;    ///< per shard: its part's next unread cachedump
  std::atomic<std::size_t> pending{0};    ///< parts not yet back from their batch
  std::atomic<bool> failed{false};        ///< a part's batch failed (out of memory)
  // where assemble() goes on from
  std::size_t first_item = 0;  ///< the group's done when the parts were made
  std::size_t next_route = 0;
  std::size_t key = 0;           ///< of a multi-get answered in part
  std::size_t key_base = 0;      ///< key_shards' index of the route's first key
  std::uint64_t dumps_done = 0;  ///< of a metadump: the shards whose dump has ended

  /// The segments of a part's replies not read yet.
  std::size_t segments_left(std::size_t shard) const {
    return parts[shard]->part->segment_ends.size() - next_segment[shard];
  }
  bool has_segment(std::size_t shard, std::size_t count = 1) const {
    return count <= segments_left(shard);
  }
  /// The next `count` segments of a part's replies (they lie one after
  /// another), consumed.
  std::string_view take_segment(std::size_t shard, std::size_t count = 1) {
    const request_group& part = *parts[shard];
    const std::vector<std::size_t>& ends = part.part->segment_ends;
    const std::size_t index = next_segment[shard];
    next_segment[shard] += count;
    const std::size_t begin = index == 0 ? 0 : ends[index - 1];
    return std::string_view(part.replies).substr(begin, ends[index + count - 1] - begin);
  }
  /// The next stats numbers of a part, consumed.
  const shard_numbers& take_numbers(std::size_t shard) {
    return parts[shard]->part->numbers[next_numbers[shard]++];
  }
  /// The next cachedump items of a part, consumed.
  std::vector<dumped_item>& take_dump(std::size_t shard) {
    return parts[shard]->part->dumps[next_dumps[shard]++];
  }
  std::size_t memory_bytes() const noexcept;
  /// Drops the segments read from a part, before it runs again.
  void compact(std::size_t shard);
};

}  // namespace gpuhash::server::engine
