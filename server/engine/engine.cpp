// The engine: groups routed to the shards (routing/router.hpp), each shard
// running its batches one at a time (shard/shard.hpp), and the groups
// handed back.

#include "engine/engine.hpp"

#include <algorithm>
#include <exception>

#include "engine/key_hash.hpp"
#include "engine/shard/shard.hpp"

namespace gpuhash::server::engine {

namespace {

/// The settings with the key hash's key: the given seed's, or a random one
/// (the routing and every shard hash keys alike: key_hash.hpp).
engine_settings with_key_hash_key(engine_settings settings) {
  settings.key_hash_key = settings.key_seed ? key_hasher::key_of_seed(*settings.key_seed)
                                            : key_hasher::random_key();
  return settings;
}

}  // namespace

engine::engine(engine_settings settings, server_stats& stats,
               const index::index_factory& make_index, completion_handler on_complete)
    : settings_(with_key_hash_key(std::move(settings))),
      stats_(stats),
      on_complete_(std::move(on_complete)),
      router_(settings_.shards, settings_.dumping_enabled, key_hasher(settings_.key_hash_key)),
      ledger_(settings_.store, router_.shards()) {
  settings_.shards = router_.shards();
  for (std::size_t s = 0; s < settings_.shards; ++s)
    shards_.push_back(std::make_unique<shard>(*this, settings_, s, make_index(s)));
}

bool engine::runs_inline() const noexcept {
  return std::ranges::all_of(shards_, [](const auto& each) { return each->runs_inline(); });
}

bool engine::may_run_on_submitter() const noexcept {
  return settings_.runner != batch_runner::batch_thread;
}

engine::~engine() {
  stop();
}

namespace {

/// A thread's queues of routed groups, kept from one submit to the next so
/// that routing allocates nothing once they have grown (engine::submit).
struct routed_queues {
  shard_queues queued;
  bool in_use = false;  // a submit on this thread routes into them now
};

/// Empties the queues of a submit when it ends, returns or throws.
class routed_queues_lease {
 public:
  routed_queues_lease(routed_queues& queues, std::size_t shards)
      : queues_(queues), shards_(shards) {
    queues_.in_use = true;
  }
  ~routed_queues_lease() {
    for (std::size_t s = 0; s < shards_; ++s) queues_.queued[s].clear();
    queues_.in_use = false;
  }
  routed_queues_lease(const routed_queues_lease&) = delete;
  routed_queues_lease& operator=(const routed_queues_lease&) = delete;

 private:
  routed_queues& queues_;
  std::size_t shards_;
};

}  // namespace

void engine::submit(std::span<request_group* const> groups) {
  if (groups.empty()) return;
  if (shards_.size() == 1) {
    shards_.front()->submit(groups);
    return;
  }
  thread_local routed_queues reused;
  if (reused.in_use) {
    // a completion handler that submits from inside a submit (tests do)
    const auto own = std::make_unique<shard_queues>();
    route_and_submit(groups, *own);
    return;
  }
  const routed_queues_lease lease(reused, shards_.size());
  route_and_submit(groups, reused.queued);
}

void engine::route_and_submit(std::span<request_group* const> groups, shard_queues& queued) {
  for (request_group* group : groups) {
    if (router_.route(*group, queued)) continue;
    // a group in parts none of which has anything left to run
    router_.assemble(*group, stats_);
    on_complete_(*group, completer::busy);
  }
  submit_shards(queued, 0);
}

/// The shards after one that may run its batch on the submitting thread:
/// submitted while that batch waits for its index (or once it needs none),
/// so that where they run here too their round trips overlap instead of
/// following one another. An exception from them is kept for the submitter
/// (as if they had been submitted after the batch) rather than taken for
/// the batch's own failure.
class engine::later_shards final : public batch_side_work {
 public:
  /// `in_wait`: the batch they follow runs inside yet another's round trip.
  later_shards(engine& owner, std::span<std::vector<request_group*>> queued, std::size_t from,
               bool in_wait)
      : owner_(owner), queued_(queued), from_(from), in_wait_(in_wait) {}

  bool step() override {
    submit(true);
    return false;
  }
  void index_answered() override { submit(false); }
  /// Submits them if the batch did not, and passes on their exception.
  void finish() {
    submit(false);
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void submit(bool in_wait) {
    if (submitted_) return;
    submitted_ = true;
    try {
      owner_.submit_shards(queued_, from_, in_wait || in_wait_);
    } catch (...) {
      error_ = std::current_exception();
    }
  }

  engine& owner_;
  std::span<std::vector<request_group*>> queued_;
  std::size_t from_;
  bool in_wait_;
  bool submitted_ = false;
  std::exception_ptr error_;
};

void engine::submit_shards(std::span<std::vector<request_group*>> queued, std::size_t from,
                           bool in_wait) {
  for (std::size_t s = from; s < shards_.size(); ++s) {
    if (queued[s].empty()) continue;
    // Batches on the CPU index gain nothing from overlapping (one after
    // the other), and a shard whose batch thread runs them all has no
    // round trip on this thread to overlap.
    if (!shards_[s]->overlaps_on_submitter()) {
      shards_[s]->submit(queued[s]);
      continue;
    }
    later_shards rest(*this, queued, s + 1, in_wait);
    shards_[s]->submit(queued[s], &rest, in_wait);
    rest.finish();
    return;
  }
}

void engine::completed(request_group& group, completer by) {
  if (!group.part) {
    on_complete_(group, by);
    return;
  }
  if (!router::part_done(group)) return;
  request_group& whole = *group.part->whole;
  router_.assemble(whole, stats_);
  on_complete_(whole, by);
}

std::string engine::index_description() const {
  return shards_.front()->index_description();
}

bool engine::index_moves_by_load() const {
  return shards_.front()->index_moves_by_load();
}

void engine::stop() {
  for (auto& each : shards_) each->stop();
}

}  // namespace gpuhash::server::engine
