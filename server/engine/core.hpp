#pragma once
// A shard's state and work: the store, the index, and the command
// semantics (commands.cpp, meta_commands.cpp, reports.cpp). Only the thread
// running the shard's batch touches its core.
//
// A batch runs in three steps:
//   1. collect: every key the batch's requests name becomes an index search,
//      and the entries of items linked or unlinked by the previous batch
//      become inserts and erases (their net effect: an insert and an erase of
//      the same entry cancel);
//   2. the index runs them all in one batch, concurrently (on the GPU:
//      signature_index::find_async or apply_async, one wait);
//   3. resolve: the requests run in order on the host. A key's item is the
//      one linked item whose full key matches, among the search's locations
//      and the items linked by the last two resolves (their inserts were in
//      flight, or not yet sent: `fresh_` and `in_flight_`).
// Invariants: at most one linked item per key; every linked item has an
// index entry, or is in fresh_, in_flight_ or overflow_ (the rare entry the
// index refused: a 17th under one signature). Entries of unlinked items are
// erased by the next batch; until then they only ever point at an item whose
// key or linked flag rejects them.

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <memory_resource>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/engine.hpp"
#include "engine/stats.hpp"
#include "index/index_service.hpp"
#include "store/item_store.hpp"

namespace gpuhash::server::engine {

/// The item fields metadump and `me` print (commands.cpp).
void append_item_fields(const store::item& item, std::int64_t exp, std::int64_t la,
                        std::string& out);

enum class store_mode : std::uint8_t { set, add, replace, append, prepend, cas };
enum class store_result : std::uint8_t {
  stored,
  not_stored,
  exists,
  not_found,
  too_large,
  no_memory
};

/// Work the thread running a batch has besides the batch (the batch
/// thread's sends of the last batch's replies): done a step at a time while
/// the index works on the batch (index::wait_work), and what is left handed
/// on once the index has answered, before the batch's requests are resolved.
class batch_side_work : public index::wait_work {
 public:
  /// The index has answered (or the batch needed none): what is left of
  /// the work must not wait for the resolve.
  virtual void index_answered() = 0;
};

class engine::core {
 public:
  core(const engine_config& config, server_stats& stats);

  /// Runs one batch over the groups and writes their replies. `side`, if
  /// any, is done while the index runs the batch (see batch_side_work).
  void run_batch(std::span<request_group* const> groups, batch_side_work* side = nullptr);
  /// Inserts or erases from the last resolve are waiting for a batch.
  bool has_pending_mutations() const noexcept { return !pending_.empty(); }
  std::string index_description() const { return index_->description(); }
  bool index_on_device() const noexcept { return index_->on_device(); }
  /// Whether run_batch does a batch_side_work's steps while the index works
  /// (an index that computes on this thread has no wait to fill).
  bool index_takes_side_work() const noexcept { return index_->takes_wait_work(); }
  /// The batch thread kept `held` groups from a batch to send during the
  /// next one's index wait, and sent `sent` of them there (for `stats`).
  void count_wait_groups(std::size_t held, std::size_t sent) noexcept {
    counters_.wait_groups_held += held;
    counters_.wait_groups_sent += sent;
  }
  /// When to renew the index's device kernel, and renewing it: see
  /// index_service::renew_at. Called between batches, by a thread that
  /// owns the core as one running a batch does.
  std::optional<std::chrono::steady_clock::time_point> index_renew_at() const {
    return index_->renew_at();
  }
  void renew_index();
  /// Batches run so far.
  std::uint64_t batches() const noexcept { return counters_.batches; }
  /// The last batch ran during another shard's round trip (for `stats`).
  void count_overlapped_batch() noexcept { ++counters_.batches_overlapped; }
  bool shutdown_accepted() const noexcept { return shutdown_accepted_; }

 private:
  using location = store::location;

  // ---- the batch (core.cpp) ------------------------------------------------
  void collect(const work_item& item);
  struct mutation {
    operation op;
    index::signature_type signature;
    location where;
  };
  void run_index(index::wait_work* while_waiting);
  void settle(const std::vector<mutation>& mutations);
  void move_index_to_cpu(const char* why);
  void resolve(request_group& group);

  // ---- items (core.cpp) ----------------------------------------------------
  /// The live item under the key of search `search`, or no_location. An
  /// expired or flushed item found on the way is unlinked.
  location lookup(std::size_t search);
  bool is_live(const store::item& item) const noexcept;
  void link_item(location where);
  void unlink_item(location where);
  void forget_entry(location where, const store::item& item);
  void queue_entry(index::signature_type signature, location where, int change);
  store_result store_value(std::size_t search, location existing, std::string_view data,
                           std::uint32_t client_flags, std::int64_t expires_at, store_mode mode,
                           std::uint64_t cas, location* stored);
  /// memcached's exptime rule: 0 never; up to 30 days relative; above,
  /// absolute Unix time; negative, already expired.
  std::int64_t expiry_of(std::int64_t exptime) const noexcept;
  /// Unique over all shards: shard s of n issues s + 1, s + 1 + n, ...
  std::uint64_t next_cas() noexcept {
    last_cas_ = cas_counter_++ * config_.shards + config_.shard + 1;
    return last_cas_;
  }

  // ---- commands (commands.cpp, meta_commands.cpp, reports.cpp) -------------
  /// Runs one request; false when it was answered only in part or not at all
  /// (past the reply budget, or a value that does not fit in it: a multi-get's
  /// or a metadump's work.keys_done says how far it got; an mg is run again
  /// whole).
  bool run_request(work_item& work, std::size_t first_search, request_group& group);
  bool run_retrieval(work_item& work, std::size_t first_search, request_group& group);
  void run_command(const protocol::request& request, std::size_t first_search,
                   request_group& group);
  void run_storage(const protocol::request& request, std::size_t search, std::string& out);
  /// incr/decr. noreply silences every reply, errors included, as in
  /// memcached, unless `errors_despite_noreply` (for `ma`, which runs it with
  /// noreply to write its own reply, and whose errors are always sent).
  void run_arithmetic(const protocol::request& request, std::size_t search, std::string& out,
                      bool errors_despite_noreply = false);
  bool run_meta(const protocol::request& request, std::size_t search, request_group& group);
  void run_meta_get(const protocol::request& request, std::size_t search, std::string& out);
  void run_meta_set(const protocol::request& request, std::size_t search, std::string& out);
  void run_meta_delete(const protocol::request& request, std::size_t search, std::string& out);
  void run_meta_arithmetic(const protocol::request& request, std::size_t search, std::string& out);
  void run_stats(std::string_view argument, std::string& out);
  bool run_metadump(work_item& work, std::size_t first_search, request_group& group);
  void append_item_line(location where, std::string& out) const;  // metadump/me format
  /// At least the bytes of a reply carrying the item's value (its line and
  /// the meta flags included), checked against the group's budget before
  /// the value is copied in.
  static std::size_t reply_bound(const store::item& item) noexcept {
    return 2 * std::size_t{item.key_bytes} + item.value_bytes + 320;
  }

  const engine_config& config_;
  server_stats& stats_;
  command_counters counters_;
  store::item_store store_;
  std::uint64_t seed_;
  std::unique_ptr<index::index_service> index_;

  // the batch being run (its arrays in the memory the index asks for)
  index::index_batch batch_;
  index::index_results results_;
  std::vector<std::string_view> search_keys_;  // key of each search
  std::size_t searches_ = 0;                   // searches in batch_ (they come first)
  std::vector<std::size_t> first_search_;      // per work item, in collect order
  std::int64_t now_ = 0;

  // The host maps below take their nodes from a pool of this shard's own
  // (one thread at a time runs a shard's batches): each set adds and drops
  // several nodes, and malloc and free were about 3% of the server's time
  // (perf, set50 on the 2-core machine).
  std::pmr::unsynchronized_pool_resource node_pool_;
  using key_locations = std::pmr::unordered_map<std::string_view, location>;
  // entries to change in the next batch: (signature << 32 | location) -> net change
  std::pmr::unordered_map<std::uint64_t, int> pending_{&node_pool_};
  // linked items whose entries the index may not show yet (see the header comment)
  key_locations fresh_{&node_pool_};
  key_locations in_flight_{&node_pool_};
  key_locations overflow_{&node_pool_};
  // inserts and erases of this batch, and those whose statuses the index
  // has not given yet (index_service::defers_mutations)
  std::vector<mutation> batch_mutations_;
  std::vector<mutation> unsettled_mutations_;
  // refused inserts whose items were unlinked meanwhile: their erases will
  // find no entry, and are not counted as misses
  std::pmr::unordered_map<std::uint64_t, int> refused_{&node_pool_};

  std::uint64_t cas_counter_ = 0;  // cas values this shard has issued
  std::uint64_t last_cas_ = 0;     // the last of them
  std::int64_t flush_time_ = 0;    // items stored at or before it are gone once now >= it
  std::uint64_t flush_cas_ = 0;    // items with a cas at or below it are gone
  bool shutdown_accepted_ = false;
};

}  // namespace gpuhash::server::engine
