#pragma once
// One shard's batch pipeline: the groups a shard takes at once run as one
// index batch, in three steps (docs/designs/server.md, "One batch at a
// time owns a shard's items"):
//   1. collect: every key the batch's requests name becomes a find (each
//      key once: protocol::for_each_item_key), and the entries of items
//      linked or unlinked by the previous batch become inserts and erases
//      (their net effect: an insert and an erase of one entry cancel);
//   2. index: the index runs them all in one batch (engine/cache/ keeps
//      the items consistent meanwhile; index/index_port.hpp);
//   3. resolve: the requests run in order on the host against the cache
//      (engine/commands/), each writing its reply.
// Only the thread running the shard's batch touches the pipeline; the
// shard (engine/shard/) decides which thread that is.

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/commands/commands.hpp"
#include "index/index_port.hpp"

namespace gpuhash::server::engine {

/// Work the thread running a batch has besides the batch (the batch
/// thread's sends of the last batch's replies; a submitter's other shards):
/// done a step at a time while the index works on the batch
/// (index::wait_work), and what is left handed on once the index has
/// answered, before the batch's requests are resolved.
class batch_side_work : public index::wait_work {
 public:
  /// The index has answered (or the batch needed none): what is left of
  /// the work must not wait for the resolve.
  virtual void index_answered() = 0;
};

class batch_pipeline {
 public:
  /// `ledger`: the slab accounting all shards share, which must outlive it.
  batch_pipeline(const engine_settings& settings, std::size_t shard, server_stats& server,
                 std::unique_ptr<index::index_port> index, store::slab_ledger& ledger);

  /// Runs one batch over the groups and writes their replies. `side`, if
  /// any, is done while the index runs the batch (see batch_side_work).
  void run(std::span<request_group* const> groups, batch_side_work* side = nullptr);

  /// Inserts or erases from the last resolve wait for a batch.
  bool has_unsent_changes() const noexcept { return state_.items.has_unsent_changes(); }
  const index::index_port& index() const noexcept { return state_.items.index(); }
  /// The index's upkeep between batches (index_port::upkeep_at), by a
  /// thread that owns the pipeline as one running a batch does.
  index::index_port& index_upkeep() noexcept { return state_.items.index(); }
  /// Counts for `stats` of whoever runs the batches (engine/shard/).
  batch_counts& counts() noexcept { return state_.batches; }
  bool shutdown_accepted() const noexcept { return state_.shutdown_accepted; }

 private:
  void collect(const work_item& item);
  void resolve(std::span<request_group* const> groups);

  shard_state state_;
  std::vector<std::size_t> first_find_;  // per request, in collect order
};

}  // namespace gpuhash::server::engine
