#pragma once
// Routing: which shard holds a key, and how a group that names keys of
// several shards runs in parts and gets its replies back in order.
//
// A group whose keys all fall in one shard goes to that shard whole. Any
// other runs in parts, one a shard, each a request_group of its own holding
// that shard's requests (a multi-get holds the shard's keys only; `stats`,
// `flush_all`, `cache_memlimit` and metadump go to every shard; a request
// for no key goes with the group's first shard). A part marks where each
// reply ends (request_group::mark: each answered request, and each key of
// a multi-get) and keeps its `stats` answers as numbers; when the last part
// is back, assemble() takes the segments in request order and merges the
// numbers. A part stops at its share of the reply budget like any group;
// the group then goes back unfinished with what is in order so far, and its
// unfinished parts run again when the client has read it.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "engine/key_hash.hpp"
#include "engine/request_group.hpp"
#include "engine/stats/server_stats.hpp"

namespace gpuhash::server::engine {

/// Most shards an engine has (a shard is a bit of a 64-bit mask).
inline constexpr std::size_t max_shards = 64;

/// Groups per shard, as routed.
using shard_queues = std::array<std::vector<request_group*>, max_shards>;

class router {
 public:
  /// `dumping_enabled`: metadump runs (else every shard refuses it alike).
  /// `hasher`: the engine's key hash, whose signatures every shard's index
  /// takes.
  router(std::size_t shards, bool dumping_enabled, key_hasher hasher);

  std::size_t shards() const noexcept { return shards_; }

  /// Queues a group on the shard that runs it whole, or its parts on theirs;
  /// a group that came back unfinished in parts has its stopped parts go on.
  /// Returns false for a group in parts that has no part left to run (its
  /// replies are then assembled and it is finished).
  bool route(request_group& group, shard_queues& queued);
  /// A part is back from its batch: true when it was the group's last, and
  /// the group's replies are put together (assemble).
  static bool part_done(request_group& part);
  /// Puts the replies of a group in parts together, in request order, as far
  /// as its parts have answered.
  void assemble(request_group& group, const server_stats& server) const;
  /// A group (or part) whose batch failed (out of memory while building its
  /// replies): answered with an error, its connection closed after it.
  static void fail(request_group& group);

 private:
  /// Queues the group whole (true), or finds it needs parts (false); the
  /// shards of its keys, in order, and of each request's keys are left for
  /// make_parts (router.cpp's routed_keys).
  bool route_whole(request_group& group, shard_queues& queued);
  /// Fills the parts of a group that names keys of several shards, from the
  /// shards route_whole found for its keys, in order.
  void make_parts(request_group& group);
  void make_routes(request_group& group);
  void fill_parts(request_group& group);
  bool resume(request_group& group, shard_queues& queued);

  std::size_t shards_;
  bool dumping_enabled_;
  key_hasher hasher_;
};

}  // namespace gpuhash::server::engine
