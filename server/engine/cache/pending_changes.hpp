#pragma once
// The index entries a shard's cache inserts and erases with its next batch
// (cache.hpp), as net changes: an insert and an erase of one entry cancel.
// Each store queues two (the erase of the item it replaces, then its item's
// insert) and each batch sends and drops them all, so they are kept flat:
// the changes in a vector, in the order first queued, found by an
// open-addressing table of their positions, where a node-based map takes a
// node, a bucket's division and a rehash check for each.
//
// One thread at a time: the one running the shard's batch.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpuhash::server::engine {

class pending_changes {
 public:
  /// Adds `count` (+1: an insert, -1: an erase) to the net change of `entry`.
  void add(std::uint64_t entry, int count) {
    if (2 * changes_.size() >= slots_.size()) grow();
    for (std::size_t slot = home_of(entry);; slot = (slot + 1) & (slots_.size() - 1)) {
      if (slots_[slot] == empty_slot) {
        slots_[slot] = static_cast<std::uint32_t>(changes_.size());
        changes_.push_back({entry, count, static_cast<std::uint32_t>(slot)});
        if (count != 0) ++nonzero_;
        return;
      }
      change& queued = changes_[slots_[slot]];
      if (queued.entry != entry) continue;
      if (queued.count != 0) --nonzero_;
      queued.count += count;
      if (queued.count != 0) ++nonzero_;
      return;
    }
  }

  /// Whether no entry has a net change (every change queued cancelled).
  bool empty() const noexcept { return nonzero_ == 0; }

  /// Calls fn(entry, count) for each entry whose net change is not 0, in
  /// the order the entries were first queued.
  template <class Fn>
  void for_each(Fn&& fn) const {
    for (const change& each : changes_)
      if (each.count != 0) fn(each.entry, each.count);
  }

  /// Drops every change; the table keeps its size (its slots in use are
  /// emptied one by one, so a clear costs what was queued).
  void clear() noexcept {
    for (const change& each : changes_) slots_[each.slot] = empty_slot;
    changes_.clear();
    nonzero_ = 0;
  }

 private:
  struct change {
    std::uint64_t entry;
    int count;
    std::uint32_t slot;  ///< where slots_ holds its position
  };
  static constexpr std::uint32_t empty_slot = 0xFFFFFFFFu;
  static constexpr std::size_t least_slots = 16;

  /// The entry's first slot: Fibonacci hashing, whose high bits mix every
  /// bit of the entry (its signature and its location).
  std::size_t home_of(std::uint64_t entry) const noexcept {
    return static_cast<std::size_t>((entry * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  /// Doubles the table (at most half full after), placing the changes anew.
  void grow() {
    const std::size_t slots = std::max(least_slots, 2 * slots_.size());
    slots_.assign(slots, empty_slot);
    shift_ = 64 - static_cast<unsigned>(std::countr_zero(slots));
    for (std::size_t position = 0; position < changes_.size(); ++position) {
      std::size_t slot = home_of(changes_[position].entry);
      while (slots_[slot] != empty_slot) slot = (slot + 1) & (slots - 1);
      slots_[slot] = static_cast<std::uint32_t>(position);
      changes_[position].slot = static_cast<std::uint32_t>(slot);
    }
  }

  std::vector<change> changes_;       ///< in the order first queued
  std::vector<std::uint32_t> slots_;  ///< a change's position, or empty_slot
  unsigned shift_ = 64;               ///< 64 - log2 of slots_.size()
  std::size_t nonzero_ = 0;           ///< changes whose count is not 0
};

}  // namespace gpuhash::server::engine
