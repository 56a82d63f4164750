// A shard's numbers for `stats`, and their merge over shards (numbers.hpp).

#include "engine/stats/numbers.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <type_traits>

namespace gpuhash::server::engine {

namespace {

/// Adds counts of a struct that holds 64-bit counters only (command_counts,
/// item_counts, batch_counts, index_numbers and its placement_numbers,
/// store_numbers), counter by counter.
template <class Counts>
void add_counts(Counts& to, const Counts& from) {
  static_assert(std::is_trivially_copyable_v<Counts> && sizeof(Counts) % 8 == 0,
                "a struct of std::uint64_t counters only");
  constexpr std::size_t n = sizeof(Counts) / sizeof(std::uint64_t);
  using counters = std::array<std::uint64_t, n>;
  counters sum = std::bit_cast<counters>(to);
  const counters more = std::bit_cast<counters>(from);
  for (std::size_t i = 0; i < n; ++i) sum[i] += more[i];
  to = std::bit_cast<Counts>(sum);
}

/// The indexes' numbers add up, but for the largest batch (--index=auto's
/// last windows add up too: their costs are cores, their keys and batches
/// give the mean, and `judged` divides the sums of costs per key and batch).
void add(index::index_numbers& to, const index::index_numbers& from) {
  const std::uint64_t max_operations = std::max(to.max_operations, from.max_operations);
  add_counts(to, from);
  to.max_operations = max_operations;
}

/// A size class's numbers: its counts add up, its age and the time its
/// last evicted item went unread are the largest.
void add(class_numbers& to, const class_numbers& from) {
  store::class_stats& sum = to.store;
  const store::class_stats& more = from.store;
  for (auto field : {&store::class_stats::linked_items, &store::class_stats::requested_bytes})
    sum.*field += more.*field;
  for (std::size_t segment = 0; segment < store::lru_segments; ++segment)
    sum.segment_items[segment] += more.segment_items[segment];
  for (auto count : {&store::class_stats::evictions, &store::class_stats::reclaimed,
                     &store::class_stats::outofmemory, &store::class_stats::direct_reclaims,
                     &store::class_stats::evicted_active, &store::class_stats::moves_to_cold,
                     &store::class_stats::moves_to_warm, &store::class_stats::moves_within_lru})
    sum.*count += more.*count;
  class_item_counts& items = to.items;
  for (auto count : {&class_item_counts::evicted_nonzero, &class_item_counts::evicted_unfetched,
                     &class_item_counts::expired_unfetched})
    items.*count += from.items.*count;
  items.evicted_time = std::max(items.evicted_time, from.items.evicted_time);
  for (std::size_t segment = 0; segment < store::lru_segments; ++segment)
    to.age[segment] = std::max(to.age[segment], from.age[segment]);
}

}  // namespace

void shard_numbers::merge(const shard_numbers& other) {
  add_counts(commands, other.commands);
  add_counts(items, other.items);
  add_counts(batches, other.batches);
  add(index, other.index);
  index_overflow += other.index_overflow;
  add_counts(store, other.store);
  if (classes.size() < other.classes.size()) classes.resize(other.classes.size());
  for (std::size_t c = 0; c < other.classes.size(); ++c) add(classes[c], other.classes[c]);
}

shard_numbers numbers_of(const cache& items, const command_counts& commands,
                         const batch_counts& batches) {
  const store::item_store& store = items.store();
  shard_numbers numbers;
  numbers.now = items.now();
  numbers.commands = commands;
  numbers.items = items.counts();
  numbers.batches = batches;
  numbers.index = items.index().numbers();
  numbers.index_description = items.index().description();
  numbers.index_overflow = items.overflowed();
  numbers.store = {store.bytes_used(), store.linked_items(), store.juggles()};
  numbers.temp_lru = store.lru().temp_lru;
  numbers.slabs = store.ledger().numbers();
  const class_item_table& class_counts = items.class_counts();
  for (const store::class_stats& each : store.classes()) {
    std::array<std::int64_t, store::lru_segments> age{};
    for (std::size_t segment = 0; segment < store::lru_segments; ++segment) {
      const std::int64_t oldest = each.oldest_access[segment];
      age[segment] = oldest == 0 ? 0 : numbers.now - oldest;
    }
    numbers.classes.push_back({each, class_counts[numbers.classes.size() + 1], age});
  }
  return numbers;
}

}  // namespace gpuhash::server::engine
