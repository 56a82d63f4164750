// One shard's batches: collect, index, resolve (pipeline.hpp).

#include "engine/batch/pipeline.hpp"

#include <chrono>
#include <ctime>
#include <exception>
#include <span>

namespace gpuhash::server::engine {

namespace {

/// A batch's side work as its index sees it: an exception a step throws is
/// kept for after the batch (rethrow), since it is not the index's failure,
/// which would move the index to the CPU.
class guarded_steps final : public index::wait_work {
 public:
  explicit guarded_steps(index::wait_work* work) : work_(work) {}
  bool step() override {
    if (work_ == nullptr) return false;
    try {
      return work_->step();
    } catch (...) {
      error_ = std::current_exception();
      work_ = nullptr;
      return false;
    }
  }
  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  index::wait_work* work_;
  std::exception_ptr error_;
};

}  // namespace

batch_pipeline::batch_pipeline(const engine_settings& settings, std::size_t shard,
                               server_stats& server, std::unique_ptr<index::index_port> index,
                               store::slab_ledger& ledger)
    : state_(settings, shard, server, std::move(index), ledger) {}

void batch_pipeline::run(std::span<request_group* const> groups, batch_side_work* side) {
  cache& items = state_.items;
  const bool timed = items.index().moves_by_load();
  const auto start =
      timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
  items.set_now(static_cast<std::int64_t>(std::time(nullptr)));
  items.clear_finds();
  first_find_.clear();
  for (request_group* group : groups)
    for (std::size_t i = group->done; i < group->used; ++i) collect(group->items[i]);
  guarded_steps steps(side);
  items.run_index(side != nullptr ? &steps : nullptr);
  if (side != nullptr) side->index_answered();
  resolve(groups);
  items.end_resolve();
  if (timed) {
    // --index=auto weighs the index against the rest of the batch's work
    const auto took = std::chrono::steady_clock::now() - start;
    items.index().count_batch(
        groups.size(), static_cast<std::uint64_t>(
                           std::chrono::duration_cast<std::chrono::nanoseconds>(took).count()));
  }
  steps.rethrow();
}

void batch_pipeline::collect(const work_item& item) {
  cache& items = state_.items;
  first_find_.push_back(items.index().finds());
  // the signatures the routing left, else the key's own
  const bool hashed = item.signatures.size() == protocol::item_key_positions(item.request);
  const auto find = [&](std::string_view key, std::size_t k) {
    items.find(hashed ? item.signatures[k] : items.signature(key));
  };
  if (item.is_error()) {
    if (item.drops_key) protocol::for_each_item_key_at(item.request, 0, find);
    return;
  }
  if (hashed && protocol::scope_of(item.request.kind) == protocol::key_scope::many &&
      item.request.keys.size() > item.resume_at + 1) {
    // a multi-get's keys from where it goes on, hashed by the routing, at
    // once (a lone key's find is cheaper one by one)
    items.find(std::span<const index::signature_type>(item.signatures).subspan(item.resume_at));
    return;
  }
  protocol::for_each_item_key_at(item.request, item.resume_at, find);
}

void batch_pipeline::resolve(std::span<request_group* const> groups) {
  std::size_t item = 0;
  for (request_group* group : groups) {
    const std::size_t first = group->done;
    for (std::size_t i = first; i < group->used; ++i, ++item) {
      // past the reply budget the rest waits for the group's next batch
      // (item still counts: first_find_ holds every collected request)
      if (group->done != i || group->replies.size() >= group->budget) continue;
      work_item& work = group->items[i];
      ++group->done;
      if (work.is_error()) {
        answer_refusal(state_, work, first_find_[item], *group);
        group->mark();
        continue;
      }
      if (run_request(state_, work, first_find_[item], *group)) {
        group->mark();
      } else {
        --group->done;  // answered in part only
      }
    }
  }
}

}  // namespace gpuhash::server::engine
