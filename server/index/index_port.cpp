// The index port (index_port.hpp): a batch's way to the index service and
// back, and the service's upkeep between batches.

#include "index/index_port.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <utility>

#include "index/index_factory.hpp"

namespace gpuhash::server::index {

namespace {

using clock_type = std::chrono::steady_clock;

/// A shard that ran a batch this recently is active: its kernel is renewed.
constexpr auto active_for = std::chrono::seconds(1);
/// How often an idle shard's batch thread looks whether batches came (a
/// submitter may run them without waking it).
constexpr auto look_again = std::chrono::milliseconds(50);
/// Inserts per batch of a move's rebuild: the device index sizes its batch
/// buffers for the largest batch it has run, and keeps them.
constexpr std::size_t rebuild_batch = std::size_t{1} << 16;

std::uint64_t ns_between(clock_type::time_point start, clock_type::time_point end) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count());
}

/// The caller's wait_work, its steps timed: the time a run spends on them is
/// the caller's own work, not the index's.
class timed_steps final : public wait_work {
 public:
  explicit timed_steps(wait_work* work) : work_(work) {}
  bool step() override {
    const auto start = clock_type::now();
    const bool more = work_->step();
    ns_ += ns_between(start, clock_type::now());
    return more;
  }
  std::uint64_t ns() const noexcept { return ns_; }

 private:
  wait_work* work_;
  std::uint64_t ns_ = 0;
};

index_site site_of(const index_service& service) {
  return service.on_device() ? index_site::gpu : index_site::cpu;
}

}  // namespace

index_port::index_port(std::unique_ptr<index_service> service, std::uint64_t seed,
                       automatic_placement automatic)
    : service_(std::move(service)),
      seed_(seed),
      make_device_(std::move(automatic.make_device)),
      batch_(service_->batch_memory()) {
  if (automatic.policy)
    placement_ = std::make_unique<auto_placement>(std::move(automatic.policy), site_of(*service_),
                                                  automatic.log_moves, automatic.shard);
}

index_port::~index_port() = default;

void index_port::run(wait_work* while_waiting) {
  // This batch's inserts and erases, for their statuses: now, or with the
  // next batch when the service gives them late.
  sent_.clear();
  for (std::size_t i = batch_.searches(); i < batch_.size(); ++i)
    sent_.push_back({batch_.ops[i], batch_.signatures[i], batch_.locations[i]});
  settled_ = {};
  timed_steps steps(while_waiting);
  const auto start = clock_type::now();
  try {
    results_ = service_->apply(batch_, while_waiting != nullptr ? &steps : nullptr);
  } catch (...) {
    count_run(start, steps.ns());
    throw;
  }
  count_run(start, steps.ns());
  if (service_->defers_mutations()) std::swap(unsettled_, sent_);  // sent_: the ones settled now
  if (results_.settled != sent_.size()) {
    std::fprintf(stderr, "gpuhash-server: ERROR: the index settled %zu entries, not %zu\n",
                 results_.settled, sent_.size());
    return;
  }
  settled_ = {sent_, results_.statuses};
}

void index_port::count_run(clock_type::time_point start, std::uint64_t caller_ns) noexcept {
  const std::uint64_t elapsed = ns_between(start, clock_type::now());
  ++counts_.batches;
  counts_.operations += batch_.size();
  counts_.max_operations = std::max<std::uint64_t>(counts_.max_operations, batch_.size());
  counts_.run_ns += elapsed;
  if (placement_) placement_->count_index(batch_.size(), elapsed - std::min(elapsed, caller_ns));
}

std::optional<index_site> index_port::wanted_move() {
  if (!placement_) return std::nullopt;
  const std::optional<index_site> move =
      placement_->wanted_move(service_->entries(), clock_type::now());
  if (move == index_site::gpu && !make_device_) return std::nullopt;
  return move;
}

std::vector<entry_change> index_port::move_to_cpu(std::span<const entry_change> entries,
                                                  bool device_failed) {
  if (device_failed)
    make_device_ = nullptr;  // a device index that has thrown is never called again
  std::vector<entry_change> refused =
      move_to(make_cpu_index(entries.size() + initial_capacity, seed_), entries);
  if (placement_) placement_->moved(index_site::cpu, clock_type::now(), device_failed);
  return refused;
}

std::vector<entry_change> index_port::move_to_device(std::span<const entry_change> entries) {
  if (!make_device_) throw std::logic_error("index_port: no device to move the index to");
  std::vector<entry_change> refused;
  try {
    refused = move_to(make_device_(entries.size() + initial_capacity, seed_), entries);
  } catch (const std::exception& error) {
    if (!service_->on_device()) throw;  // failed while made or filled: nothing changed
    // Filled, it took the service's place and then failed on the batch's
    // finds: as after a failed run(), the index goes back to the CPU and
    // the device is never called again.
    std::fprintf(stderr,
                 "gpuhash-server: ERROR: the GPU index failed on its first batch after a move "
                 "(%s); the index goes back to the CPU\n",
                 error.what());
    return move_to_cpu(entries, true);
  }
  if (placement_) placement_->moved(index_site::gpu, clock_type::now(), false);
  return refused;
}

void index_port::device_unusable() {
  make_device_ = nullptr;
  if (placement_) placement_->move_failed(clock_type::now());
}

std::vector<entry_change> index_port::move_to(std::unique_ptr<index_service> next,
                                              std::span<const entry_change> entries) {
  // Filled before it takes the service's place: a device that fails here
  // leaves the port as it was (move_to_device).
  std::vector<entry_change> refused;
  const auto keep_refused = [&](const index_results& inserted,
                                std::span<const entry_change> answered) {
    for (std::size_t i = 0; i < inserted.settled && i < answered.size(); ++i)
      if (inserted.status_of(i) != status::inserted) refused.push_back(answered[i]);
  };
  std::span<const entry_change> unanswered;  // the last inserts, whose statuses come late
  index_batch rebuild;
  for (std::size_t first = 0; first < entries.size(); first += rebuild_batch) {
    const auto part = entries.subspan(first, std::min(rebuild_batch, entries.size() - first));
    rebuild.clear();
    for (const entry_change& entry : part)
      rebuild.add(operation::insert, entry.signature, entry.location);
    keep_refused(next->apply(rebuild), next->defers_mutations() ? unanswered : part);
    unanswered = part;
  }
  // A device gives the last part's statuses with its next batch, and counts
  // its entries only then: an empty batch asks for them now, so that the
  // move is whole (its refusals known, its entries counted) before the
  // index serves anything. Without it, a move made at a batch with no index
  // work (a `stats` alone) showed that shard's index without its entries.
  if (next->defers_mutations() && !unanswered.empty()) {
    rebuild.clear();
    keep_refused(next->apply(rebuild), unanswered);
  }
  // The batch stays in the memory the first service chose: a port that
  // moves by the load starts on the device (index_factory.cpp), whose
  // page-locked memory the CPU index reads as well.
  service_ = std::move(next);
  unsettled_.clear();  // the old service's: the rebuilt entries reflect them
  settled_ = {};
  // The batch's inserts and erases are not run: the entries above already
  // reflect every link and unlink.
  batch_.truncate(batch_.searches());
  results_ = batch_.size() == 0 ? index_results{} : service_->apply(batch_);
  return refused;
}

bool index_port::upkeep_due(clock_type::time_point now) const {
  const auto renew_at = service_->renew_at();
  return renew_at && now >= *renew_at && now - active_at_ <= active_for;
}

std::optional<clock_type::time_point> index_port::upkeep_at() {
  const auto renew_at = service_->renew_at();
  if (!renew_at) return std::nullopt;
  const auto now = clock_type::now();
  if (counts_.batches != batches_seen_) {
    batches_seen_ = counts_.batches;
    active_at_ = now;
  }
  if (now < *renew_at) return *renew_at;
  if (now - active_at_ > active_for) return now + look_again;
  return now;
}

void index_port::upkeep() {
  if (!upkeep_due(clock_type::now())) return;
  try {
    service_->renew();
    ++counts_.renewals;
  } catch (const std::exception& error) {
    // The device failed: the next batch finds it so (a failed launch is
    // tried again there), and the cache moves the index to the CPU.
    std::fprintf(stderr, "gpuhash-server: ERROR: renewing the GPU index's kernel failed (%s)\n",
                 error.what());
  }
}

index_numbers index_port::numbers() const {
  index_numbers numbers = counts_;
  numbers.on_device = service_->on_device() ? 1 : 0;
  if (placement_) numbers.placement = placement_->numbers();
  numbers.entries = service_->entries();
  numbers.capacity = service_->capacity();
  numbers.memory_bytes = service_->memory_bytes();
  numbers.rebuilds = service_->rebuilds();
  return numbers;
}

void index_port::reset_counts() noexcept {
  counts_ = {};
}

}  // namespace gpuhash::server::index
