#pragma once
// The engine runs every command against the store and the index, in batches,
// one batch at a time. Connections hand it request groups (the complete
// requests one read brought); it gathers the groups of all connections into
// one index batch, runs the batch, answers each request in order, and hands
// the groups back with their replies. See docs/designs/server.md for why one
// thread at a time owns the items and how a batch stays consistent while its
// index entries are still being written.
//
// The items and the index are split into shards by key hash (engine_config::
// shards), each with its own batches, so that several batches run at once.
// A group whose keys all fall in one shard goes to that shard whole; one
// that names keys of several (a multi-get, pipelined requests, `stats`) runs
// as one part per shard, and its replies are put back in request order from
// the parts' reply segments (docs/designs/server.md).
//
// Who runs a shard's batches depends on the index:
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
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/stats.hpp"
#include "protocol/request.hpp"

namespace gpuhash::server::engine {

/// One request of a group, or the parser's error for it (answered in order).
struct work_item {
  protocol::request request;
  std::string_view error_reply;  ///< non-empty: the parser refused the request
  bool silent = false;           ///< the refusal is not answered (noreply)
  bool drops_key = false;        ///< the refusal removes request.key's value
  /// A multi-get's keys answered by earlier batches; a metadump's location
  /// to go on from.
  std::size_t keys_done = 0;

  bool is_error() const noexcept { return !error_reply.empty(); }
};

/// The requests a connection sends to the engine at once, and their replies.
/// The requests' views point into the connection's input, which stays put
/// until the group is finished. A batch answers a group's requests until its
/// replies reach `budget` bytes (values are copied into them); the group
/// then comes back unfinished, and the connection submits it again, to go on
/// from where it stopped, once the client has read the replies. A value is
/// copied in only if it fits in what is left of the budget; one that does
/// not stops the group there and leaves its size in room_wanted, so that the
/// submitter can find the memory for it (net/memory_budget.hpp) before it
/// submits the group again.
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
  void* owner = nullptr;     ///< the connection, for the completion handler
  /// Set by the engine as it hands the group back: the thread doing so is
  /// a batch thread with no groups queued, or one waiting for its index to
  /// answer the next batch, so the completion handler may spend that
  /// thread's time on the group (the network sends its replies there)
  /// instead of handing it straight to the connection's thread.
  bool completer_idle = false;

  /// Reply bytes this group may gather in one batch: set by the submitter
  /// (the memory it can give the replies), at most reply_budget.
  std::size_t budget = reply_budget;
  /// Set by the engine when a value did not fit in the budget: the reply
  /// bytes the group needs to go on (0: it stopped for no lack of room).
  std::size_t room_wanted = 0;

  // The engine's own, for a group run in parts on several shards:
  bool records_segments = false;          ///< a part: mark() records its reply segments
  std::vector<std::size_t> segment_ends;  ///< a part: where each reply segment ends
  request_group* parent = nullptr;        ///< a part: the group it is part of
  struct split_state;                     ///< engine.cpp
  std::unique_ptr<split_state> split;     ///< the parts, while in parts

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
    if (records_segments) segment_ends.push_back(replies.size());
  }

  work_item& next_item() {
    if (used == items.size()) items.emplace_back();
    work_item& item = items[used++];
    item.request.clear();
    item.error_reply = {};
    item.silent = false;
    item.drops_key = false;
    item.keys_done = 0;
    return item;
  }
  /// Ready for the next requests (the parts are kept for reuse).
  void reset();
};

struct engine_config {
  std::size_t memory_limit = 64u << 20;
  std::size_t item_size_max = 1u << 20;
  double growth_factor = 1.25;
  std::size_t chunk_size_min = 48;
  bool evict = true;
  bool cas_enabled = true;
  bool flush_enabled = true;
  bool shutdown_enabled = false;
  bool dumping_enabled = true;
  enum class index_placement : std::uint8_t {
    automatic,
    gpu,
    cpu
  } index = index_placement::automatic;
  /// Who runs the batches (see the top of this file): automatic picks
  /// batch_thread_unless_idle for an index on the GPU, the submitting
  /// threads for one on the CPU.
  enum class batch_runner : std::uint8_t {
    automatic,
    batch_thread,
    submitting_thread,
    batch_thread_unless_idle  ///< a submitter that finds its shard idle runs its own groups
  } runner = batch_runner::automatic;
  std::size_t batch_max = 32768;    ///< index operations per batch (soft: a group is never split)
  std::uint32_t batch_wait_us = 0;  ///< longest wait for a batch to fill while the server is busy
  std::uint32_t spin_us = 0;        ///< polling for groups before the batch thread sleeps
  /// Tests: the CPU index gives the statuses of inserts and erases one
  /// batch late, as the GPU's does (index_service::defers_mutations).
  bool cpu_index_defers_mutations = false;
  /// How long the GPU index's resident kernels live (0: the default;
  /// gpu_resident.cuh); for gpuhash-engine-latency.
  std::uint64_t resident_lifetime_us = 0;
  int verbosity = 0;
  /// The index's hash seed; absent: random per process (tests fix it to
  /// build keys that share a signature).
  std::optional<std::uint64_t> index_seed;
  /// Shards of the items and the index (each gets memory_limit / shards);
  /// at most max_shards.
  std::size_t shards = 1;
  static constexpr std::size_t max_shards = 64;
  /// Set by the engine in each shard's copy: which shard it is.
  std::size_t shard = 0;
  std::size_t threads = 4;             ///< for `stats`
  std::size_t max_connections = 1024;  ///< for `stats`
  /// `stats settings` lines, rendered by the caller from its options.
  std::vector<std::pair<std::string, std::string>> settings;
  /// `stats conns` lines ("STAT <fd>:addr ...\r\n"), from the network layer.
  std::function<std::string()> describe_connections;
};

class engine {
 public:
  /// Called, on the thread that ran its last batch, with each finished group.
  using completion_handler = std::function<void(request_group*)>;

  engine(engine_config config, server_stats& stats, completion_handler on_complete);
  ~engine();
  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  /// Queues groups; each comes back through the completion handler, which
  /// may be called on this thread before submit returns (index on the CPU).
  void submit(std::span<request_group* const> groups);
  /// Whether batches run on the submitting threads (index on the CPU).
  bool runs_inline() const noexcept { return inline_; }
  /// Whether submit() may run a batch, and call the completion handler,
  /// on the calling thread (always with runs_inline(); on an idle shard
  /// with batch_thread_unless_idle).
  bool may_run_on_submitter() const noexcept { return may_run_on_submitter_; }
  /// Where the index lives now ("cpu", "gpu (NVIDIA H200)").
  std::string index_description() const;
  /// Set when a client's `shutdown` was accepted.
  bool shutdown_requested() const noexcept { return shutdown_requested_.load(); }
  /// Stops the batch threads after the groups already queued.
  void stop();

 private:
  class core;
  class shard;
  class later_shards;
  /// The shard a key's items and index entries live in.
  std::size_t shard_of(std::string_view key) const noexcept;
  /// Queues the group whole on one shard, or makes its parts (false: in parts).
  bool route(request_group& group, std::size_t& to);
  /// Submits each shard's groups, from shard `from` on (queued[s]: shard
  /// s's). Where a shard runs its batch on this thread, the shards after it
  /// are submitted during its index's round trip (later_shards, engine.cpp);
  /// `in_wait`: this call is inside another shard's round trip.
  void submit_shards(std::span<std::vector<request_group*>> queued, std::size_t from,
                     bool in_wait = false);
  /// Fills the parts of a group that names keys of several shards, from
  /// the shards route() found for its keys, in order.
  void make_parts(request_group& group, std::span<const std::uint8_t> routed);
  /// From a shard: a finished group or part (`idle`: see
  /// request_group::completer_idle).
  void completed(request_group* group, bool idle);
  /// A group (or part) whose batch failed (out of memory while building
  /// its replies): answered with an error, its connection closed after it.
  static void fail(request_group& group);
  /// Moves the parts' replies, in request order, into the group's.
  void assemble(request_group& group);

  engine_config config_;
  server_stats& stats_;
  completion_handler on_complete_;
  std::vector<std::unique_ptr<shard>> shards_;
  bool inline_ = false;  // batches run on the submitting threads (no batch threads)
  bool may_run_on_submitter_ = false;
  std::uint64_t routing_seed_[2] = {};
  std::atomic<bool> shutdown_requested_{false};
};

}  // namespace gpuhash::server::engine
