// The batch thread's work: collecting a batch's index operations, running
// them, and keeping the items and their index entries consistent (see
// core.hpp for the invariants).

#include "engine/core.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <random>

namespace gpuhash::server::engine {

namespace {

std::uint64_t random_seed() {
  std::random_device device;
  return (std::uint64_t{device()} << 32) ^ device();
}

store::store_config store_config_of(const engine_config& config) {
  store::store_config result;
  result.memory_limit = config.memory_limit;
  result.item_size_max = config.item_size_max;
  result.growth_factor = config.growth_factor;
  result.chunk_size_min = config.chunk_size_min;
  result.evict = config.evict;
  return result;
}

std::uint64_t entry_of(index::signature_type signature, store::location where) {
  return std::uint64_t{signature} << 32 | where;
}

}  // namespace

/// The index the configuration asks for: the GPU's when there is one (auto).
static std::unique_ptr<index::index_service> make_index(const engine_config& config,
                                                        std::uint64_t seed) {
  using placement = engine_config::index_placement;
  const std::size_t capacity = 1u << 16;
  const bool want_gpu = config.index == placement::gpu ||
                        (config.index == placement::automatic && index::gpu_available());
  std::unique_ptr<index::index_service> made;
  if (want_gpu) {
    try {
      made = index::make_gpu_index(capacity, seed, config.resident_lifetime_us);
    } catch (const std::exception& error) {
      if (config.index == placement::gpu) throw;  // asked for by name: refuse to start
      std::fprintf(stderr,
                   "gpuhash-server: ERROR: the GPU index could not be created (%s); the index "
                   "is on the CPU\n",
                   error.what());
    }
  }
  if (!made) made = index::make_cpu_index(capacity, seed, config.cpu_index_defers_mutations);
  // A test hook: the index (of the first shard) fails at the given batch, as
  // a GPU that fails while serving (the engine must move the index to the
  // CPU and lose nothing).
  if (const char* fail_at = std::getenv("GPUHASH_SERVER_INJECT_INDEX_FAILURE")) {
    const std::size_t batch = std::strtoull(fail_at, nullptr, 10);
    if (batch != 0 && config.shard == 0) made = index::make_failing_index(std::move(made), batch);
  }
  return made;
}

engine::core::core(const engine_config& config, server_stats& stats)
    : config_(config),
      stats_(stats),
      store_(store_config_of(config)),
      seed_(config.index_seed ? *config.index_seed : random_seed()),
      index_(make_index(config, seed_)),
      batch_(index_->batch_memory()) {
  store_.on_eviction([this](location where, const store::item& item) {
    if (!item.fetched && is_live(item)) ++counters_.evicted_unfetched;
    forget_entry(where, item);
  });
  store_.on_dead_check([this](const store::item& item) { return !is_live(item); });
}

// ---- the batch ---------------------------------------------------------------

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

void engine::core::run_batch(std::span<request_group* const> groups, batch_side_work* side) {
  now_ = static_cast<std::int64_t>(std::time(nullptr));
  batch_.clear();
  search_keys_.clear();
  first_search_.clear();
  for (request_group* group : groups)
    for (std::size_t i = group->done; i < group->used; ++i) collect(group->items[i]);
  searches_ = batch_.size();
  for (const auto& [entry, change] : pending_) {
    const auto signature = static_cast<index::signature_type>(entry >> 32);
    const auto where = static_cast<location>(entry);
    for (int k = 0; k < change; ++k) batch_.add(operation::insert, signature, where);
    for (int k = 0; k > change; --k) batch_.add(operation::erase, signature, where);
  }
  pending_.clear();
  guarded_steps steps(side);
  if (batch_.size() != 0) run_index(side != nullptr ? &steps : nullptr);
  if (side != nullptr) side->index_answered();

  std::size_t item = 0;
  for (request_group* group : groups) {
    const std::size_t first = group->done;
    for (std::size_t i = first; i < group->used; ++i, ++item) {
      // past the reply budget the rest waits for the group's next batch
      // (item still counts: first_search_ holds every collected request)
      if (group->done != i || group->replies.size() >= group->budget) continue;
      work_item& work = group->items[i];
      ++group->done;
      if (work.is_error()) {
        // a set (or ms) refused as too large drops the key's old value, as
        // memcached does; collect searched the key if it could decode it
        if (work.drops_key && !work.request.item_key().empty()) {
          const location old = lookup(first_search_[item]);
          if (old != store::no_location) unlink_item(old);
        }
        if (work.error_reply.starts_with("SERVER_ERROR object too large"))
          ++counters_.store_too_large;
        if (!work.silent) group->replies.append(work.error_reply);
        group->mark();
        continue;
      }
      if (run_request(work, first_search_[item], *group)) {
        group->mark();
      } else {
        --group->done;  // answered in part only
      }
    }
  }
  // The inserts of items linked by the previous resolve have now run; those
  // linked by this one go to the next batch.
  in_flight_ = std::move(fresh_);
  fresh_.clear();
  steps.rethrow();
}

void engine::core::collect(const work_item& item) {
  first_search_.push_back(batch_.size());
  const protocol::request& request = item.request;
  const auto search = [&](std::string_view key) {
    search_keys_.push_back(key);
    batch_.add(operation::search, index_->signature(key), 0);
  };
  if (item.is_error()) {
    if (item.drops_key) protocol::for_each_item_key(request, 0, search);
    return;
  }
  protocol::for_each_item_key(request, item.keys_done, search);
}

void engine::core::run_index(index::wait_work* while_waiting) {
  // this batch's inserts and erases, for their statuses (now or, when the
  // index defers them, with the next batch)
  batch_mutations_.clear();
  for (std::size_t i = searches_; i < batch_.size(); ++i)
    batch_mutations_.push_back({batch_.ops[i], batch_.signatures[i], batch_.locations[i]});
  const auto start = std::chrono::steady_clock::now();
  bool failed = false;
  try {
    results_ = index_->apply(batch_, while_waiting);
  } catch (const std::exception& error) {
    move_index_to_cpu(error.what());
    failed = true;
  }
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ++counters_.batches;
  counters_.batch_operations += batch_.size();
  counters_.batch_max_operations =
      std::max<std::uint64_t>(counters_.batch_max_operations, batch_.size());
  counters_.batch_index_ns += static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count());
  if (failed) return;  // the rebuilt index holds every linked item
  if (index_->defers_mutations()) {
    settle(unsettled_mutations_);
    std::swap(unsettled_mutations_, batch_mutations_);
  } else {
    settle(batch_mutations_);
  }
}

/// Reads the statuses of inserts and erases the index has settled. An entry
/// it refused (a 17th under its signature) leaves its item reachable from
/// the host, if the item is still linked under that signature; otherwise
/// the item's erase is on its way, and will find no entry.
void engine::core::settle(const std::vector<mutation>& mutations) {
  if (results_.settled != mutations.size()) {
    std::fprintf(stderr, "gpuhash-server: ERROR: the index settled %zu entries, not %zu\n",
                 results_.settled, mutations.size());
    return;
  }
  for (std::size_t j = 0; j < mutations.size(); ++j) {
    const mutation& change = mutations[j];
    const status result = results_.status_of(j);
    const std::uint64_t entry = entry_of(change.signature, change.where);
    if (change.op == operation::erase) {
      if (result == status::erased) continue;
      const auto excused = refused_.find(entry);
      if (excused == refused_.end()) {
        ++counters_.index_erase_misses;
      } else if (--excused->second == 0) {
        refused_.erase(excused);
      }
      continue;
    }
    if (result == status::inserted) continue;
    store::item& item = store_.at(change.where);
    if (item.linked && index_->signature(item.key()) == change.signature) {
      overflow_[item.key()] = change.where;
      ++counters_.index_overflow;
    } else {
      ++refused_[entry];
    }
  }
}

/// The GPU failed: rebuild the index on the CPU from the linked items and run
/// the batch's searches there. The batch's inserts and erases are not rerun:
/// the rebuild already reflects every link and unlink.
void engine::core::renew_index() {
  try {
    index_->renew();
    ++counters_.kernel_renewals;
  } catch (const std::exception& error) {
    // The device failed: the next batch finds it so (a failed launch is
    // tried again there) and moves the index to the CPU (run_index).
    std::fprintf(stderr, "gpuhash-server: ERROR: renewing the GPU index's kernel failed (%s)\n",
                 error.what());
  }
}

void engine::core::move_index_to_cpu(const char* why) {
  std::fprintf(stderr,
               "gpuhash-server: ERROR: the GPU index failed (%s); rebuilding the index on the "
               "CPU from %zu items and carrying on\n",
               why, store_.linked_items());
  ++counters_.index_failovers;
  index_ = index::make_cpu_index(store_.linked_items() + (1u << 16), seed_);
  overflow_.clear();
  unsettled_mutations_.clear();
  refused_.clear();
  index::index_batch rebuild;
  store_.for_each_linked([&](location where, const store::item& item) {
    rebuild.add(operation::insert, index_->signature(item.key()), where);
  });
  if (rebuild.size() != 0) {
    const index::index_results inserted = index_->apply(rebuild);
    for (std::size_t i = 0; i < rebuild.size(); ++i)
      if (inserted.status_of(i) != status::inserted)
        overflow_[store_.at(rebuild.locations[i]).key()] = rebuild.locations[i];
  }
  batch_.truncate(searches_);
  results_ = index_->apply(batch_);
}

// ---- items -------------------------------------------------------------------

bool engine::core::is_live(const store::item& item) const noexcept {
  if (item.expires_at != 0 && item.expires_at <= now_) return false;
  if (flush_time_ != 0 && flush_time_ <= now_ && item.stored_at <= flush_time_) return false;
  if (item.cas <= flush_cas_) return false;
  return true;
}

engine::core::location engine::core::lookup(std::size_t search) {
  const std::string_view key = search_keys_[search];
  const auto accept = [&](location where) -> location {
    store::item& item = store_.at(where);
    if (!item.linked || item.key() != key) return store::no_location;
    if (is_live(item)) return where;
    const bool flushed = item.expires_at == 0 || item.expires_at > now_;
    if (flushed) {
      ++counters_.get_flushed;
    } else {
      ++counters_.get_expired;
      if (!item.fetched) ++counters_.expired_unfetched;
    }
    unlink_item(where);
    return store::no_location;
  };
  const auto in = [&](const key_locations& map) {
    const auto found = map.find(key);
    return found == map.end() ? store::no_location : found->second;
  };
  for (const auto* map : {&fresh_, &in_flight_, &overflow_}) {
    const location where = in(*map);
    if (where != store::no_location) return accept(where);
  }
  for (std::uint32_t k = 0; k < results_.count(search); ++k) {
    const location where = accept(results_.match(search, k));
    if (where != store::no_location) return where;
  }
  return store::no_location;
}

void engine::core::queue_entry(index::signature_type signature, location where, int change) {
  const auto [entry, added] = pending_.try_emplace(entry_of(signature, where), change);
  if (added) return;
  entry->second += change;
  if (entry->second == 0) pending_.erase(entry);
}

void engine::core::link_item(location where) {
  store::item& item = store_.at(where);
  store_.link(where);
  fresh_[item.key()] = where;
  queue_entry(index_->signature(item.key()), where, +1);
  ++counters_.total_items;
}

/// Drops an unlinked item from the host maps and queues its entry's erase.
void engine::core::forget_entry(location where, const store::item& item) {
  const std::string_view key = item.key();
  for (auto* map : {&fresh_, &in_flight_}) {
    const auto found = map->find(key);
    if (found != map->end() && found->second == where) map->erase(found);
  }
  const auto overflowed = overflow_.find(key);
  if (overflowed != overflow_.end() && overflowed->second == where) {
    overflow_.erase(overflowed);  // it never had an index entry
    return;
  }
  queue_entry(index_->signature(key), where, -1);
}

void engine::core::unlink_item(location where) {
  store::item& item = store_.at(where);
  forget_entry(where, item);
  store_.unlink(where);
}

std::int64_t engine::core::expiry_of(std::int64_t exptime) const noexcept {
  constexpr std::int64_t thirty_days = 60 * 60 * 24 * 30;
  if (exptime == 0) return 0;
  if (exptime < 0) return 1;  // a time long past: already expired
  if (exptime <= thirty_days) return now_ + exptime;
  return exptime <= now_ ? 1 : exptime;
}

store_result engine::core::store_value(std::size_t search, location existing, std::string_view data,
                                       std::uint32_t client_flags, std::int64_t expires_at,
                                       store_mode mode, std::uint64_t cas, location* stored) {
  switch (mode) {
    case store_mode::add:
      if (existing != store::no_location) {
        store_.bump(existing);
        return store_result::not_stored;
      }
      break;
    case store_mode::replace:
    case store_mode::append:
    case store_mode::prepend:
      if (existing == store::no_location) return store_result::not_stored;
      break;
    case store_mode::cas:
      if (existing == store::no_location) return store_result::not_found;
      if (store_.at(existing).cas != cas) return store_result::exists;
      break;
    case store_mode::set: break;
  }
  const bool joins = mode == store_mode::append || mode == store_mode::prepend;
  const std::size_t old_bytes = joins ? store_.at(existing).value_bytes : 0;
  store::allocation_error error = store::allocation_error::none;
  const std::string_view key = search_keys_[search];
  const location fresh = store_.allocate(key, old_bytes + data.size(), error, existing);
  if (fresh == store::no_location) {
    // memcached drops the old value of a set that failed, so it cannot be read stale
    if (mode == store_mode::set && existing != store::no_location) unlink_item(existing);
    if (error == store::allocation_error::too_large) {
      ++counters_.store_too_large;
      return store_result::too_large;
    }
    ++counters_.store_no_memory;
    return store_result::no_memory;
  }
  store::item& item = store_.at(fresh);
  char* value = item.value().data();
  if (joins) {
    const store::item& old = store_.at(existing);
    const std::span<const char> old_value = old.value();
    const std::size_t split = mode == store_mode::append ? old_value.size() : data.size();
    std::copy(old_value.begin(), old_value.end(),
              value + (mode == store_mode::append ? 0 : data.size()));
    std::copy(data.begin(), data.end(), value + (mode == store_mode::append ? split : 0));
    client_flags = old.client_flags;
    expires_at = old.expires_at;
  } else {
    std::copy(data.begin(), data.end(), value);
  }
  item.client_flags = client_flags;
  item.expires_at = expires_at;
  item.stored_at = now_;
  item.accessed_at = now_;
  item.cas = next_cas();
  if (existing != store::no_location) unlink_item(existing);
  link_item(fresh);
  if (stored != nullptr) *stored = fresh;
  return store_result::stored;
}

}  // namespace gpuhash::server::engine
