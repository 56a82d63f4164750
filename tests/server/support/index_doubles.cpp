// Index services for tests (index_doubles.hpp).

#include "index_doubles.hpp"

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gpuhash::server::index::test_doubles {

namespace {

/// Forwards everything to the index it wraps, unless overridden.
class forwarding_index : public index_service {
 public:
  explicit forwarding_index(std::unique_ptr<index_service> index) : index_(std::move(index)) {}

  std::string description() const override { return index_->description(); }
  bool on_device() const noexcept override { return index_->on_device(); }
  bool defers_mutations() const noexcept override { return index_->defers_mutations(); }
  bool takes_wait_work() const noexcept override { return index_->takes_wait_work(); }
  index_results apply(const index_batch& batch, wait_work* while_waiting) override {
    return index_->apply(batch, while_waiting);
  }
  std::optional<std::chrono::steady_clock::time_point> renew_at() const override {
    return index_->renew_at();
  }
  void renew() override { index_->renew(); }
  std::size_t entries() const noexcept override { return index_->entries(); }
  std::size_t capacity() const noexcept override { return index_->capacity(); }
  std::size_t memory_bytes() const noexcept override { return index_->memory_bytes(); }
  std::size_t rebuilds() const noexcept override { return index_->rebuilds(); }
  std::pmr::memory_resource* batch_memory() const noexcept override {
    return index_->batch_memory();
  }

 protected:
  index_service& inner() noexcept { return *index_; }

 private:
  std::unique_ptr<index_service> index_;
};

class late_statuses_index final : public forwarding_index {
 public:
  using forwarding_index::forwarding_index;

  bool defers_mutations() const noexcept override { return true; }
  bool takes_wait_work() const noexcept override { return true; }

  index_results apply(const index_batch& batch, wait_work* while_waiting) override {
    const std::size_t searches = batch.searches();
    // As the GPU's does, it counts a batch's entries at the next batch.
    counted_entries_ = inner().entries();
    find(batch, searches);
    // this batch's statuses go to the buffer not handed out last
    std::vector<status>& statuses = statuses_[writing_];
    statuses.clear();
    if (searches != batch.size()) {
      index_batch changes;
      for (std::size_t i = searches; i < batch.size(); ++i)
        changes.add(batch.ops[i], batch.signatures[i], batch.locations[i]);
      const index_results changed = inner().apply(changes, nullptr);
      statuses.assign(changed.statuses, changed.statuses + changed.settled);
    }
    // As the GPU's does, it lets the caller do one piece of its work as if
    // waiting for a device: the engine's tests then cover work done during
    // the wait and work left when the answer comes.
    if (while_waiting != nullptr) while_waiting->step();
    index_results results{matches_.data(), counts_.data()};
    results.statuses = unsettled_;
    results.settled = unsettled_count_;
    unsettled_ = nullptr;
    unsettled_count_ = 0;
    if (!statuses.empty()) {
      unsettled_ = statuses.data();
      unsettled_count_ = statuses.size();
      writing_ ^= 1;
    }
    return results;
  }
  std::size_t entries() const noexcept override { return counted_entries_; }

 private:
  /// The batch's finds, on their own; their results copied out, since the
  /// inserts and erases run next on the same index.
  void find(const index_batch& batch, std::size_t searches) {
    matches_.assign(searches * max_matches, 0);
    counts_.assign(searches, 0);
    if (searches == 0) return;
    index_batch finds;
    for (std::size_t i = 0; i < searches; ++i)
      finds.add(operation::search, batch.signatures[i], batch.locations[i]);
    const index_results found = inner().apply(finds, nullptr);
    for (std::size_t i = 0; i < searches; ++i) {
      counts_[i] = found.count(i);
      for (std::size_t k = 0; k < found.count(i); ++k)
        matches_[i * max_matches + k] = found.match(i, k);
    }
  }

  std::vector<location_type> matches_;
  std::vector<std::uint32_t> counts_;
  std::vector<status> statuses_[2];  // one written while the other is read
  std::size_t writing_ = 0;
  const status* unsettled_ = nullptr;  // statuses not handed out yet
  std::size_t unsettled_count_ = 0;
  std::size_t counted_entries_ = 0;  // the inner index's, before the last batch's changes
};

class pretend_device_index final : public forwarding_index {
 public:
  using forwarding_index::forwarding_index;
  std::string description() const override { return "pretend device"; }
  bool on_device() const noexcept override { return true; }
};

class alternating_policy final : public placement_policy {
 public:
  alternating_policy(index_site start, std::size_t batches_per_stay, std::size_t most_moves)
      : site_(start), batches_per_stay_(batches_per_stay), moves_left_(most_moves) {}

  placement_decision judge(const load_window& window, std::uint64_t) override {
    placement_decision decision;
    decision.site = site_;
    decision.batches = window.batches;
    decision.keys = window.keys;
    const bool allowed = site_ == index_site::gpu || device_usable_;
    const bool due = ++judged_ % batches_per_stay_ == 0 && allowed && moves_left_ != 0;
    decision.what = due ? placement_decision::verdict::move : placement_decision::verdict::stay;
    return decision;
  }
  void moved(index_site to, std::uint64_t) override {
    site_ = to;
    if (moves_left_ != 0) --moves_left_;
  }
  void device_lost() override { device_usable_ = false; }
  std::uint64_t window_ns() const noexcept override { return 0; }  // every batch

 private:
  index_site site_;
  std::size_t batches_per_stay_;
  std::size_t moves_left_;
  std::size_t judged_ = 0;
  bool device_usable_ = true;
};

class failing_index final : public forwarding_index {
 public:
  failing_index(std::unique_ptr<index_service> index, std::size_t fail_at)
      : forwarding_index(std::move(index)), fail_at_(fail_at) {}

  index_results apply(const index_batch& batch, wait_work* while_waiting) override {
    if (++batches_ >= fail_at_)
      throw std::runtime_error("injected index failure at batch " + std::to_string(batches_));
    return forwarding_index::apply(batch, while_waiting);
  }

 private:
  std::size_t fail_at_;
  std::size_t batches_ = 0;
};

}  // namespace

std::unique_ptr<index_service> make_late_statuses_index(std::unique_ptr<index_service> index) {
  return std::make_unique<late_statuses_index>(std::move(index));
}

std::unique_ptr<index_service> make_failing_index(std::unique_ptr<index_service> index,
                                                  std::size_t fail_at) {
  return std::make_unique<failing_index>(std::move(index), fail_at);
}

std::unique_ptr<index_service> make_pretend_device_index(std::size_t capacity, std::uint64_t seed) {
  return std::make_unique<pretend_device_index>(
      make_late_statuses_index(make_cpu_index(capacity, seed)));
}

std::unique_ptr<placement_policy> make_alternating_policy(index_site start,
                                                          std::size_t batches_per_stay,
                                                          std::size_t most_moves) {
  return std::make_unique<alternating_policy>(start, batches_per_stay, most_moves);
}

index_factory moving_index_factory(std::uint64_t seed, index_site start,
                                   std::size_t batches_per_stay, std::size_t most_moves) {
  return [seed, start, batches_per_stay, most_moves](std::size_t shard) {
    automatic_placement moving;
    moving.make_device = make_pretend_device_index;
    moving.policy = make_alternating_policy(start, batches_per_stay, most_moves);
    moving.shard = shard;
    std::unique_ptr<index_service> first = start == index_site::gpu
                                               ? make_pretend_device_index(initial_capacity, seed)
                                               : make_cpu_index(initial_capacity, seed);
    return std::make_unique<index_port>(std::move(first), seed, std::move(moving));
  };
}

index_factory cpu_index_factory(std::uint64_t seed, bool late_statuses) {
  return [seed, late_statuses](std::size_t) {
    std::unique_ptr<index_service> made = make_cpu_index(initial_capacity, seed);
    if (late_statuses) made = make_late_statuses_index(std::move(made));
    return std::make_unique<index_port>(std::move(made), seed);
  };
}

}  // namespace gpuhash::server::index::test_doubles
