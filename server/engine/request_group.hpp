#pragma once
// What a submitter hands the engine at once: a group of parsed requests
// (everything one read of a connection brought), and what the engine
// writes back: the replies, in request order. The requests' views point
// into the submitter's input, which stays put until the group is finished.
//
// A batch answers a group's requests until its replies reach `budget` bytes
// (values are copied into them); the group then comes back unfinished, and
// the submitter submits it again, to go on from where it stopped, once the
// client has read the replies. A value is copied in only if it fits in what
// is left of the budget; one that does not stops the group there and leaves
// its size in room_wanted, so that the submitter can find the memory for it
// (net/memory_budget.hpp) before it submits the group again.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/request.hpp"

namespace gpuhash::server::engine {

struct shard_numbers;  // stats/numbers.hpp
struct dumped_item;    // stats/cachedump.hpp

/// One request of a group, or the parser's error for it (answered in order).
struct work_item {
  protocol::request request;
  std::string_view error_reply;  ///< non-empty: the parser refused the request
  bool silent = false;           ///< the refusal is not answered (noreply)
  bool drops_key = false;        ///< the refusal removes request.item_key()'s value
  /// Where an earlier batch stopped: a multi-get's keys answered; a
  /// metadump's location to go on from.
  std::size_t resume_at = 0;
  /// The index signatures of its keys as the routing hashed them (the key
  /// hash gives the shard and the signature at once: key_hash.hpp), by
  /// position (protocol::for_each_item_key_at); from the first key routed
  /// on. Fewer than item_key_positions: not hashed (with one shard the
  /// routing hashes nothing), and the batch hashes its keys itself.
  std::vector<std::uint32_t> signatures;

  bool is_error() const noexcept { return !error_reply.empty(); }
};

struct request_group {
  /// Reply bytes a group may gather in one batch at most (then it comes back
  /// unfinished): a multi-get of large values cannot make the server hold
  /// more than this per connection.
  static constexpr std::size_t reply_budget = 4u << 20;

  request_group();
  ~request_group();
  request_group(const request_group&) = delete;
  request_group& operator=(const request_group&) = delete;

  std::vector<work_item> items;
  std::size_t used = 0;      ///< items[0, used) are this group's
  std::size_t done = 0;      ///< items[0, done) are answered
  std::string replies;       ///< written by the engine, in request order
  bool close_after = false;  ///< a quit (or shutdown) was among the requests

  /// Reply bytes this group may gather in one batch: set by the submitter
  /// (the memory it can give the replies), at most reply_budget.
  std::size_t budget = reply_budget;
  /// Set by the engine when a value did not fit in the budget: the reply
  /// bytes the group needs to go on (0: it stopped for no lack of room).
  std::size_t room_wanted = 0;

  /// The engine's routing (engine/routing/): set on a part of a group that
  /// runs on several shards, whose replies are put together from segments.
  struct part_of {
    request_group* whole = nullptr;         ///< the group it is part of
    std::vector<std::size_t> segment_ends;  ///< where each reply segment ends
    /// Its `stats` answers, as numbers, for the whole group's merge.
    std::vector<shard_numbers> numbers;
    /// Its `stats cachedump` answers, as items, for the whole group's merge.
    std::vector<std::vector<dumped_item>> dumps;
  };
  std::unique_ptr<part_of> part;       ///< null: not a part
  struct split_state;                  ///< routing/split_state.hpp
  std::unique_ptr<split_state> split;  ///< the parts, once the group has been in parts

  bool finished() const noexcept { return done == used; }
  /// Bytes of memory the group holds (its requests, replies and parts).
  std::size_t memory_bytes() const noexcept;
  /// Gives back the memory of its replies, requests and parts beyond a few
  /// requests' worth (between submissions only).
  void release_memory();
  /// Whether a reply of `bytes` more fits in the budget; if not, records
  /// room_wanted.
  bool reply_fits(std::size_t bytes) noexcept {
    if (replies.size() + bytes <= budget) return true;
    room_wanted = std::max(room_wanted, bytes);
    return false;
  }
  /// Ends a reply segment: an answered request, or one key of a multi-get.
  void mark() {
    if (part) part->segment_ends.push_back(replies.size());
  }

  /// The next item, its fields reset but for its request, which is the
  /// caller's to fill whole (protocol::parse_request clears it first, as a
  /// copy of another item overwrites it).
  work_item& next_item() {
    if (used == items.size()) items.emplace_back();
    work_item& item = items[used++];
    item.error_reply = {};
    item.silent = false;
    item.drops_key = false;
    item.resume_at = 0;
    item.signatures.clear();
    return item;
  }
  /// Ready for the next requests (the parts are kept for reuse).
  void reset();
};

}  // namespace gpuhash::server::engine
