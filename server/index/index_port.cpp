// The index port (index_port.hpp): a batch's way to the index service and
// back, and the service's upkeep between batches.

#include "index/index_port.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <utility>

namespace gpuhash::server::index {

namespace {

using clock_type = std::chrono::steady_clock;

/// A shard that ran a batch this recently is active: its kernel is renewed.
constexpr auto active_for = std::chrono::seconds(1);
/// How often an idle shard's batch thread looks whether batches came (a
/// submitter may run them without waking it).
constexpr auto look_again = std::chrono::milliseconds(50);

}  // namespace

index_port::index_port(std::unique_ptr<index_service> service, std::uint64_t seed)
    : service_(std::move(service)), seed_(seed), batch_(service_->batch_memory()) {}

index_port::~index_port() = default;

void index_port::run(wait_work* while_waiting) {
  // This batch's inserts and erases, for their statuses: now, or with the
  // next batch when the service gives them late.
  sent_.clear();
  for (std::size_t i = batch_.searches(); i < batch_.size(); ++i)
    sent_.push_back({batch_.ops[i], batch_.signatures[i], batch_.locations[i]});
  settled_ = {};
  const auto start = clock_type::now();
  try {
    results_ = service_->apply(batch_, while_waiting);
  } catch (...) {
    count_batch(start);
    throw;
  }
  count_batch(start);
  if (service_->defers_mutations()) std::swap(unsettled_, sent_);  // sent_: the ones settled now
  if (results_.settled != sent_.size()) {
    std::fprintf(stderr, "gpuhash-server: ERROR: the index settled %zu entries, not %zu\n",
                 results_.settled, sent_.size());
    return;
  }
  settled_ = {sent_, results_.statuses};
}

void index_port::count_batch(clock_type::time_point start) noexcept {
  const auto elapsed = clock_type::now() - start;
  ++counts_.batches;
  counts_.operations += batch_.size();
  counts_.max_operations = std::max<std::uint64_t>(counts_.max_operations, batch_.size());
  counts_.run_ns += static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count());
}

std::vector<entry_change> index_port::move_to_cpu(std::span<const entry_change> entries) {
  service_ = make_cpu_index(entries.size() + (1u << 16), seed_);
  unsettled_.clear();
  settled_ = {};
  std::vector<entry_change> refused;
  if (!entries.empty()) {
    index_batch rebuild;
    for (const entry_change& entry : entries)
      rebuild.add(operation::insert, entry.signature, entry.location);
    const index_results inserted = service_->apply(rebuild);
    for (std::size_t i = 0; i < entries.size(); ++i)
      if (inserted.status_of(i) != status::inserted) refused.push_back(entries[i]);
  }
  // The failed batch's inserts and erases are not run again: the entries
  // above already reflect every link and unlink.
  batch_.truncate(batch_.searches());
  results_ = service_->apply(batch_);
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
