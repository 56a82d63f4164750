// A shard's items and their index entries, kept consistent (cache.hpp).

#include "engine/cache/cache.hpp"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <exception>
#include <utility>
#include <vector>

namespace gpuhash::server::engine {

namespace {

/// memcached's largest relative exptime; above it an exptime is Unix time.
constexpr std::int64_t thirty_days = 60 * 60 * 24 * 30;

std::uint64_t entry_of(index::signature_type signature, location where) {
  return std::uint64_t{signature} << 32 | where;
}

}  // namespace

cache::cache(store::slab_ledger& ledger, std::unique_ptr<index::index_port> index, cas_sequence cas,
             key_hasher hasher)
    : store_(ledger), index_(std::move(index)), hasher_(hasher), cas_(cas) {
  store_.on_removal([this](location where, const store::item& item, store::tail_removal why) {
    class_item_counts& counts = class_counts_[item.size_class];
    if (why == store::tail_removal::evicted) {
      if (item.expires_at != 0) ++counts.evicted_nonzero;
      if (!item.fetched) ++counts.evicted_unfetched;
      counts.evicted_time = now_ - item.accessed_at;
    } else if (!item.fetched) {  // as memcached's lru_pull_tail, flushed items too
      ++counts.expired_unfetched;
    }
    forget_entry(where, signature(item.key()));
  });
  store_.on_dead_check([this](const store::item& item) { return is_reclaimable(item); });
}

// ---- the batch's index work ------------------------------------------------------

void cache::send_changes() {
  pending_.for_each([&](std::uint64_t entry, int change) {
    const auto signature = static_cast<index::signature_type>(entry >> 32);
    const auto where = static_cast<location>(entry);
    for (int k = 0; k < change; ++k) index_->insert(signature, where);
    for (int k = 0; k > change; --k) index_->erase(signature, where);
  });
  pending_.clear();
}

void cache::run_index(index::wait_work* while_waiting) {
  send_changes();
  // --index=auto: a move takes the place of the batch's run (its finds
  // run where the index went).
  if (const auto to = index_->wanted_move(); to && move_index(*to, nullptr)) return;
  if (index_->size() == 0) return;
  try {
    index_->run(while_waiting);
  } catch (const std::exception& error) {
    move_index(index::index_site::cpu, error.what());
    return;  // the rebuilt index holds every linked item
  }
  settle(index_->settled());
}

/// Reads the statuses of inserts and erases the index has settled. An entry
/// it refused (a 17th under its signature) leaves its item reachable from
/// the host, if the item is still linked under that signature; otherwise
/// the item's erase is on its way, and will find no entry.
void cache::settle(const index::settled_changes& settled) {
  for (std::size_t j = 0; j < settled.size(); ++j) {
    const index::entry_change& change = settled.change(j);
    const status result = settled.status_of(j);
    const std::uint64_t entry = entry_of(change.signature, change.location);
    if (change.op == operation::erase) {
      if (result == status::erased) continue;
      const auto excused = refused_.find(entry);
      if (excused == refused_.end()) {
        ++counts_.index_erase_misses;
      } else if (--excused->second == 0) {
        refused_.erase(excused);
      }
      continue;
    }
    if (result == status::inserted) continue;
    store::item& item = store_.at(change.location);
    if (item.linked && signature(item.key()) == change.signature) {
      locate(overflow_, change.signature, change.location);
    } else {
      ++refused_[entry];
    }
  }
}

/// The index moves: to the CPU when the GPU failed (`failure` says how),
/// or where --index=auto wants it. It is rebuilt there from the linked
/// items, and the batch's finds run there. The batch's inserts and erases
/// are not run: the linked items already reflect every link and unlink.
/// False when a move to the GPU failed: the index is where it was, and the
/// batch is still to run.
bool cache::move_index(index::index_site to, const char* failure) {
  if (failure != nullptr) {
    std::fprintf(stderr,
                 "gpuhash-server: ERROR: the GPU index failed (%s); rebuilding the index on the "
                 "CPU from %zu items and carrying on\n",
                 failure, store_.linked_items());
    ++counts_.index_failovers;
  }
  std::vector<index::entry_change> entries;
  entries.reserve(store_.linked_items());
  store_.for_each_linked([&](location where, const store::item& item) {
    entries.push_back({operation::insert, signature(item.key()), where});
  });
  std::vector<index::entry_change> refused;
  if (to == index::index_site::gpu) {
    try {
      refused = index_->move_to_device(entries);
    } catch (const std::exception& error) {
      std::fprintf(stderr,
                   "gpuhash-server: ERROR: --index=auto could not move the index to the GPU (%s); "
                   "it stays on the CPU\n",
                   error.what());
      index_->device_unusable();
      return false;
    }
  } else {
    refused = index_->move_to_cpu(entries, failure != nullptr);
  }
  overflow_.clear();
  refused_.clear();
  for (const index::entry_change& entry : refused) locate(overflow_, entry.signature, entry.location);
  return true;
}

void cache::end_resolve() {
  // The inserts of items linked by the previous resolve have now run; those
  // linked by this one go to the next batch.
  // (swapped, not moved: fresh_ keeps a bucket array to fill)
  in_flight_.swap(fresh_);
  fresh_.clear();
  store_.end_batch();
}

// ---- items ---------------------------------------------------------------------

bool cache::is_live(const store::item& item) const noexcept {
  if (item.expires_at != 0 && item.expires_at <= now_) return false;
  return !is_flushed(item);
}

bool cache::is_reclaimable(const store::item& item) const noexcept {
  return (item.expires_at != 0 && item.expires_at < now_) || is_flushed(item);
}

bool cache::is_flushed(const store::item& item) const noexcept {
  if (flush_time_ != 0 && flush_time_ <= now_ && item.stored_at <= flush_time_) return true;
  return item.cas <= flush_cas_;
}

location cache::find_item(std::string_view key, std::size_t search) {
  const auto accept = [&](location where) -> location {
    store::item& item = store_.at(where);
    if (!item.linked || item.key() != key) return store::no_location;
    if (is_live(item)) return where;
    // as memcached's do_item_get: counted as found dead, not as reclaimed
    ++(is_flushed(item) ? counts_.get_flushed : counts_.get_expired);
    unlink(where);
    return store::no_location;
  };
  const index::signature_type signature = index_->find_signature(search);
  for (const auto* map : {&fresh_, &in_flight_, &overflow_}) {
    if (map->empty()) continue;  // (most often)
    const location where = located(*map, signature, key);
    if (where != store::no_location) return accept(where);
  }
  for (std::uint32_t k = 0; k < index_->match_count(search); ++k) {
    const location where = accept(index_->match(search, k));
    if (where != store::no_location) return where;
  }
  return store::no_location;
}

void cache::queue_entry(index::signature_type signature, location where, int change) {
  pending_.add(entry_of(signature, where), change);
}

void cache::link(location where, location replaced, index::signature_type signature) {
  if (replaced != store::no_location) forget_entry(replaced, signature);
  store_.link(where, replaced);
  locate(fresh_, signature, where);
  queue_entry(signature, where, +1);
  ++counts_.total_items;
}

void cache::forget_entry(location where, index::signature_type signature) {
  unlocate(fresh_, signature, where);
  unlocate(in_flight_, signature, where);
  if (unlocate(overflow_, signature, where)) return;  // it never had an index entry
  queue_entry(signature, where, -1);
}

location cache::located(const key_locations& map, index::signature_type signature,
                        std::string_view key) const {
  const auto [first, last] = map.equal_range(signature);
  for (auto it = first; it != last; ++it)
    if (store_.at(it->second).key() == key) return it->second;
  return store::no_location;
}

void cache::locate(key_locations& map, index::signature_type signature, location where) {
  const std::string_view key = store_.at(where).key();
  const auto [first, last] = map.equal_range(signature);
  for (auto it = first; it != last; ++it) {
    if (store_.at(it->second).key() == key) {
      it->second = where;
      return;
    }
  }
  map.emplace(signature, where);
}

bool cache::unlocate(key_locations& map, index::signature_type signature, location where) {
  if (map.empty()) return false;
  const auto [first, last] = map.equal_range(signature);
  for (auto it = first; it != last; ++it) {
    if (it->second == where) {
      map.erase(it);
      return true;
    }
  }
  return false;
}

void cache::unlink(location where) {
  store::item& item = store_.at(where);
  forget_entry(where, signature(item.key()));
  store_.unlink(where);
}

std::int64_t cache::expiry_of(std::int64_t exptime) const noexcept {
  if (exptime == 0) return 0;
  if (exptime < 0) return 1;  // a time long past: already expired
  if (exptime <= thirty_days) return now_ + exptime;
  // a time before now is long past; now itself is kept, as memcached keeps
  // it: dead at once, reclaimed from the next second, in TEMP with temp_lru
  return exptime < now_ ? 1 : exptime;
}

void cache::flush(std::int64_t delay) {
  if (delay > 0) {
    flushed_at_ = delay <= thirty_days ? now_ + delay : delay;
    flush_time_ = expiry_of(delay) - 1;
  } else {
    flushed_at_ = now_;
    flush_time_ = 0;
    flush_cas_ = last_cas_;  // everything stored so far, even this second
    // memcached's maintainer reclaims the flushed items from the tails in
    // a moment; one that takes effect later is met by set_now's juggles
    store_.juggle_all();
  }
}

namespace {

/// Whether `mode` may store over `existing`; the refusal's result if not.
std::optional<store_result> refusal(store_mode mode, const store::item* existing,
                                    std::uint64_t cas) {
  switch (mode) {
    case store_mode::add:
      if (existing != nullptr) return store_result::not_stored;
      break;
    case store_mode::replace:
      if (existing == nullptr) return store_result::not_stored;
      break;
    case store_mode::append:
    case store_mode::prepend:
      if (existing == nullptr) return store_result::not_stored;
      if (cas != 0 && existing->cas != cas) return store_result::exists;
      break;
    case store_mode::cas:
      if (existing == nullptr) return store_result::not_found;
      if (existing->cas != cas) return store_result::exists;
      break;
    case store_mode::set: break;
  }
  return std::nullopt;
}

}  // namespace

store_result cache::store_value(key_ref key, location existing, std::string_view data,
                                std::uint32_t client_flags, std::int64_t expires_at,
                                store_mode mode, std::uint64_t cas, location* stored) {
  // As memcached's process_update_command: the request's own item is
  // allocated (its data read into it) before the key's item is looked at,
  // so a refused store takes memory as memcached's does (and gives it back).
  store::allocation_error error = store::allocation_error::none;
  location fresh = store_.allocate(key.key, data.size(), client_flags, error, existing);
  if (fresh == store::no_location) {
    // memcached drops the old value of a set that failed, so it cannot be
    // read stale; not when the data found no chunk while being read
    const bool reading = error == store::allocation_error::out_of_memory_reading;
    if (mode == store_mode::set && existing != store::no_location && !reading) unlink(existing);
    if (error == store::allocation_error::too_large) {
      ++counts_.store_too_large;
      return store_result::too_large;
    }
    ++counts_.store_no_memory;
    return reading ? store_result::no_memory_reading : store_result::no_memory;
  }
  const store::item* old = existing == store::no_location ? nullptr : &store_.at(existing);
  if (const auto refused = refusal(mode, old, cas)) {
    store_.release(fresh);
    if (mode == store_mode::add) store_.update(existing);  // do_store_item's NREAD_ADD
    return *refused;
  }
  location request_item = store::no_location;
  if (mode == store_mode::append || mode == store_mode::prepend) {
    // do_store_item: the joined item, with the old one's flags and expiry,
    // is allocated while the request's is still held (and given back after
    // the store); without it the request is not stored
    const location joined = store_.allocate(key.key, old->value_bytes + data.size(),
                                            old->client_flags, error, existing);
    if (joined == store::no_location) {
      store_.release(fresh);
      return store_result::not_stored;
    }
    request_item = fresh;
    fresh = joined;
    expires_at = old->expires_at;
    char* value = store_.at(fresh).value().data();
    const std::span<const char> old_value = old->value();
    const bool append = mode == store_mode::append;
    std::copy(old_value.begin(), old_value.end(), value + (append ? 0 : data.size()));
    std::copy(data.begin(), data.end(), value + (append ? old_value.size() : 0));
  } else {
    std::copy(data.begin(), data.end(), store_.at(fresh).value().data());
  }
  store::item& item = store_.at(fresh);
  item.expires_at = expires_at;
  item.stored_at = now_;
  item.accessed_at = now_;
  item.cas = next_cas();
  const index::signature_type found = index_->find_signature(key.search);
  assert(found == signature(key.key) && "the find was not for this key");
  link(fresh, existing, found);
  if (request_item != store::no_location) store_.release(request_item);
  if (stored != nullptr) *stored = fresh;
  return store_result::stored;
}

}  // namespace gpuhash::server::engine
