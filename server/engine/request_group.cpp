// A request group's memory and reuse (request_group.hpp).

#include "engine/request_group.hpp"

#include "engine/routing/split_state.hpp"
#include "engine/stats/cachedump.hpp"
#include "engine/stats/numbers.hpp"

namespace gpuhash::server::engine {

request_group::request_group() = default;
request_group::~request_group() = default;

void request_group::reset() {
  used = 0;
  done = 0;
  replies.clear();
  close_after = false;
  room_wanted = 0;
  if (part) {
    part->segment_ends.clear();
    part->numbers.clear();
    part->dumps.clear();
  }
  if (split) split->active = false;
}

std::size_t request_group::memory_bytes() const noexcept {
  const std::size_t inline_key = std::string().capacity();  // a decoded key this short is inline
  std::size_t bytes = replies.capacity() + items.capacity() * sizeof(work_item);
  if (part) {
    bytes += part->segment_ends.capacity() * sizeof(std::size_t);
    for (const std::vector<dumped_item>& dump : part->dumps) {
      bytes += dump.capacity() * sizeof(dumped_item);
      for (const dumped_item& item : dump) bytes += item.key.capacity();
    }
  }
  for (const work_item& item : items) {
    const protocol::request& request = item.request;
    bytes += request.keys.capacity() * sizeof(std::string_view) +
             item.signatures.capacity() * sizeof(std::uint32_t) +
             request.meta_flags.capacity() * sizeof(protocol::meta_flag) +
             (request.decoded_key.capacity() > inline_key ? request.decoded_key.capacity() : 0);
  }
  if (split) bytes += split->memory_bytes();
  return bytes;
}

void request_group::release_memory() {
  constexpr std::size_t kept_items = 16;
  std::string().swap(replies);
  if (part) std::vector<std::size_t>().swap(part->segment_ends);
  if (items.size() > kept_items) {
    items.resize(kept_items);
    items.shrink_to_fit();
  }
  for (work_item& item : items) {
    std::vector<std::string_view>().swap(item.request.keys);
    std::vector<std::uint32_t>().swap(item.signatures);
    std::vector<protocol::meta_flag>().swap(item.request.meta_flags);
    std::string().swap(item.request.decoded_key);
  }
  if (split && !split->active) split.reset();
}

std::size_t request_group::split_state::memory_bytes() const noexcept {
  std::size_t bytes = parts.capacity() * sizeof(parts[0]) + routes.capacity() * sizeof(routes[0]) +
                      key_shards.capacity() +
                      (next_segment.capacity() + next_numbers.capacity() + next_dumps.capacity()) *
                          sizeof(std::size_t);
  for (const auto& each : parts)
    if (each) bytes += sizeof(request_group) + each->memory_bytes();
  return bytes;
}

void request_group::split_state::compact(std::size_t shard) {
  part_of& read = *parts[shard]->part;
  std::string& replies = parts[shard]->replies;
  const std::size_t segments = next_segment[shard];
  if (segments != 0) {
    const std::size_t bytes = read.segment_ends[segments - 1];
    replies.erase(0, bytes);
    read.segment_ends.erase(read.segment_ends.begin(),
                            read.segment_ends.begin() + static_cast<std::ptrdiff_t>(segments));
    for (std::size_t& end : read.segment_ends) end -= bytes;
    next_segment[shard] = 0;
  }
  read.numbers.erase(read.numbers.begin(),
                     read.numbers.begin() + static_cast<std::ptrdiff_t>(next_numbers[shard]));
  next_numbers[shard] = 0;
  read.dumps.erase(read.dumps.begin(),
                   read.dumps.begin() + static_cast<std::ptrdiff_t>(next_dumps[shard]));
  next_dumps[shard] = 0;
}

}  // namespace gpuhash::server::engine
