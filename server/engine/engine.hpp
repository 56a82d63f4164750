#pragma once
// The engine runs every command against the store and the index, in batches,
// one batch at a time. Connections hand it request groups (the complete
// requests one read brought); it gathers the groups of all connections into
// one index batch, runs the batch, answers each request in order, and hands
// the groups back with their replies. See docs/designs/server.md for why one
// thread at a time owns the items and how a batch stays consistent while its
// index entries are still being written.
//
// The items and the index are split into shards by key hash (engine_settings::
// shards), each with its own batches, so that several batches run at once.
// A group whose keys all fall in one shard goes to that shard whole; one
// that names keys of several (a multi-get, pipelined requests, `stats`) runs
// as one part per shard, and its replies are put back in request order
// (routing/router.hpp).
//
// The parts, each a folder, each knowing nothing above it:
//   routing/   which shard runs what; parts and their replies put together
//   shard/     a shard's queue, and which thread runs its batches
//   batch/     a batch: collect, index, resolve
//   commands/  memcached's commands, as functions over a shard's cache
//   cache/     a shard's items and index entries, kept consistent
//   stats/     the numbers of `stats`, merged as numbers, rendered once
//
// Who runs a shard's batches depends on where its index is (and changes
// when the index moves: a device failure, --index=auto):
//  * on the GPU, a batch thread: while it waits for a batch's round trip,
//    the groups that arrive gather into the next batch, and it sends the
//    replies of a few groups of the last batch itself; under load it
//    may wait up to batch_wait_us (default 0) for a batch to fill. After a
//    batch it polls for the next groups (as long as the shard's arrivals call
//    for: arrival_gaps.hpp) before it sleeps. A worker that
//    submits to an idle shard (nothing queued, no batch running, the batch
//    thread not polling) runs that one batch itself: a lone request then
//    costs no hand-off to the batch thread and back. Under load the shard
//    is never idle so, and the workers, whose time bounds the server then,
//    spend none of it waiting for the GPU (measured: docs/results/server.md);
//  * on the CPU, the worker threads themselves: a worker that submits groups
//    while no batch runs runs them at once, with every group queued by then,
//    and goes on while more are queued (the others only queue theirs). This
//    saves the hand-off to a batch thread and back (two wake-ups a request),
//    which cost more than the index itself (docs/results/server.md).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/engine_settings.hpp"
#include "engine/request_group.hpp"
#include "engine/routing/router.hpp"
#include "engine/stats/server_stats.hpp"
#include "index/index_factory.hpp"
#include "store/slab_ledger.hpp"

namespace gpuhash::server::engine {

/// The thread that hands a group back: an idle one (a batch thread with no
/// groups queued, or one waiting for its index to answer the next batch)
/// may spend its time on the group, as the network does by sending its
/// replies there, instead of handing it straight to the connection's thread.
enum class completer : std::uint8_t { busy, idle };

class engine {
 public:
  /// Called, on the thread that ran its last batch, with each finished group.
  using completion_handler = std::function<void(request_group&, completer)>;

  /// Each shard's index comes from `make_index` (index/index_factory.hpp).
  engine(engine_settings settings, server_stats& stats, const index::index_factory& make_index,
         completion_handler on_complete);
  ~engine();
  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  /// Queues groups; each comes back through the completion handler, which
  /// may be called on this thread before submit returns (index on the CPU).
  void submit(std::span<request_group* const> groups);
  /// Whether every shard's batches run on the submitting threads now
  /// (index on the CPU; an index that moves changes it).
  bool runs_inline() const noexcept;
  /// Whether submit() may run a batch, and call the completion handler,
  /// on the calling thread (with the CPU index always; with the GPU index
  /// on an idle shard): with every runner but batch_thread, wherever the
  /// index is or goes.
  bool may_run_on_submitter() const noexcept;
  /// Where the index lives now ("cpu", "gpu (NVIDIA H200)").
  std::string index_description() const;
  /// Whether the shards' indexes move as the load calls for (--index=auto
  /// with a GPU to move to).
  bool index_moves_by_load() const;
  /// Set when a client's `shutdown` was accepted.
  bool shutdown_requested() const noexcept { return shutdown_requested_.load(); }
  /// Stops the batch threads after the groups already queued.
  void stop();

 private:
  class shard;
  class later_shards;
  /// Routes the groups into `queued` (empty) and submits them.
  void route_and_submit(std::span<request_group* const> groups, shard_queues& queued);
  /// Submits each shard's groups, from shard `from` on (queued[s]: shard
  /// s's). Where a shard runs its batch on this thread, the shards after it
  /// are submitted during its index's round trip (later_shards, engine.cpp);
  /// `in_wait`: this call is inside another shard's round trip.
  void submit_shards(std::span<std::vector<request_group*>> queued, std::size_t from,
                     bool in_wait = false);
  /// From a shard: a finished group or part.
  void completed(request_group& group, completer by);

  engine_settings settings_;
  server_stats& stats_;
  completion_handler on_complete_;
  router router_;
  store::slab_ledger ledger_;  // the shards' slab accounting (memcached's, for all of them)
  std::vector<std::unique_ptr<shard>> shards_;
  std::atomic<bool> shutdown_requested_{false};
};

}  // namespace gpuhash::server::engine
