#pragma once
// Growth by added subtables, the alternative to growth by rebuilding that
// bucketed_cuckoo.growth compares it with. A chain holds whole tables of one
// design; when the newest cannot take the next batch under the load limit, a
// new table is added, as large as all the others together (or the batch,
// whichever is larger), and the old ones are never touched again by inserts.
//
//  * insert (if absent): the batch's keys are looked up in every older table
//    (those found there are `exists`), and the rest are inserted into the
//    newest, whose own batch semantics handle repeats inside the batch;
//  * find: the newest table first, then each older one for the keys still
//    missing. A miss reads every table.
//
// Composed from the public batch API (the compaction between tables costs a
// host round trip per table), this prices the design's memory traffic as an
// implementation inside an engine would pay it, plus a few microseconds per
// table. It lives in the benchmark because the measurement rejected it for
// the library (docs/results/bucketed_cuckoo.md, "bucketed_cuckoo.growth").

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpuhash/status.hpp"
#include "gpuhash/table_options.hpp"

namespace gpuhash::bench {

template <class Table>
class subtable_chain {
 public:
  using backend = typename Table::backend_type;
  using key_type = typename Table::key_type;
  using mapped_type = typename Table::mapped_type;
  using value_type = mapped_type;
  using stream_type = typename backend::stream_type;

  subtable_chain(std::size_t initial_capacity, std::uint64_t seed) : seed_(seed) {
    add_table(initial_capacity);
  }

  std::size_t tables() const noexcept { return tables_.size(); }
  std::size_t capacity() const noexcept {
    std::size_t total = 0;
    for (const auto& table : tables_) total += table.capacity();
    return total;
  }
  std::size_t size() const noexcept {
    std::size_t total = 0;
    for (const std::size_t keys : keys_in_) total += keys;
    return total;
  }

  /// Synchronous insert-if-absent of n keys (device memory of the backend).
  void insert(const key_type* keys, const value_type* values, std::size_t n, status* statuses,
              stream_type stream) {
    if (n == 0) return;
    make_room(n);
    Table& newest = tables_.back();
    if (size() == keys_in_.back()) {  // no older table holds keys
      newest.insert(keys, values, n, statuses, stream);
      keys_in_.back() = newest.size(stream);
      return;
    }
    // Positions (in the caller's batch) of the keys no older table holds.
    backend::fill(statuses, n, status::exists, stream);
    const remaining left = absent_from_older(keys, n, stream);
    auto left_values = backend::template allocate<value_type>(left.count, stream);
    auto left_statuses = backend::template allocate<status>(left.count, stream);
    backend::gather(values, left.positions.data(), left.count, left_values.data(), stream);
    newest.insert(left.keys.data(), left_values.data(), left.count, left_statuses.data(), stream);
    backend::scatter(static_cast<const status*>(left_statuses.data()), left.positions.data(),
                     left.count, statuses, stream);
    keys_in_.back() = newest.size(stream);
  }

  /// Synchronous find of n keys: found (value written) or not_found.
  void find(const key_type* keys, std::size_t n, value_type* values, status* statuses,
            stream_type stream) {
    if (n == 0) return;
    tables_.back().find(keys, n, values, statuses, stream);
    buffer<std::size_t> positions;  // empty: the identity
    buffer<key_type> pending_keys;
    std::size_t count = n;
    for (std::size_t t = tables_.size() - 1; t-- > 0 && count > 0;) {
      if (keys_in_[t] == 0) continue;
      // Of the keys still pending, those the last table did not find.
      auto missing = backend::template allocate<std::size_t>(count, stream);
      auto here_statuses = backend::template allocate<status>(count, stream);
      const status* searched = statuses;
      if (positions.size() != 0) {
        backend::gather(static_cast<const status*>(statuses), positions.data(), count,
                        here_statuses.data(), stream);
        searched = here_statuses.data();
      }
      const std::size_t m =
          backend::select_positions(searched, count, status::not_found, missing.data(), stream);
      positions = to_batch_positions(positions, missing, m, stream);
      count = m;
      if (count == 0) break;
      pending_keys = backend::template allocate<key_type>(count, stream);
      auto here_values = backend::template allocate<value_type>(count, stream);
      auto found_statuses = backend::template allocate<status>(count, stream);
      backend::gather(keys, positions.data(), count, pending_keys.data(), stream);
      backend::gather(static_cast<const value_type*>(values), positions.data(), count,
                      here_values.data(), stream);
      tables_[t].find(pending_keys.data(), count, here_values.data(), found_statuses.data(),
                      stream);
      backend::scatter(static_cast<const value_type*>(here_values.data()), positions.data(), count,
                       values, stream);
      backend::scatter(static_cast<const status*>(found_statuses.data()), positions.data(), count,
                       statuses, stream);
    }
    backend::synchronize(stream);
  }

 private:
  template <class T>
  using buffer = typename backend::template buffer<T>;

  struct remaining {
    buffer<std::size_t> positions;  ///< in the caller's batch
    buffer<key_type> keys;          ///< the keys at those positions
    std::size_t count = 0;
  };

  static constexpr double load_limit = 0.9;

  std::size_t room_in_newest() const {
    const auto limit =
        static_cast<std::size_t>(load_limit * static_cast<double>(tables_.back().capacity()));
    return limit > keys_in_.back() ? limit - keys_in_.back() : 0;
  }

  void add_table(std::size_t capacity) {
    tables_.emplace_back(
        table_options{capacity, static_cast<float>(load_limit), seed_ + tables_.size()});
    keys_in_.push_back(0);
  }

  /// A new newest table when the batch does not fit: as large as the chain
  /// (so total capacity doubles, as it does when rebuilding) or the batch.
  /// An empty newest table is replaced rather than kept.
  void make_room(std::size_t n) {
    if (room_in_newest() >= n) return;
    const auto for_batch =
        static_cast<std::size_t>(std::ceil(static_cast<double>(n) / load_limit)) + 1;
    const std::size_t capacity = std::max(this->capacity(), for_batch);
    if (keys_in_.back() == 0) {
      tables_.pop_back();
      keys_in_.pop_back();
    }
    add_table(capacity);
  }

  /// Maps positions within the compacted batch back to the caller's batch.
  buffer<std::size_t> to_batch_positions(buffer<std::size_t>& outer, buffer<std::size_t>& inner,
                                         std::size_t m, stream_type stream) {
    if (outer.size() == 0) return std::move(inner);
    auto composed = backend::template allocate<std::size_t>(m, stream);
    backend::gather(static_cast<const std::size_t*>(outer.data()), inner.data(), m, composed.data(),
                    stream);
    return composed;
  }

  /// The keys of the batch that no older (non-empty) table holds.
  remaining absent_from_older(const key_type* keys, std::size_t n, stream_type stream) {
    remaining left;
    const key_type* current = keys;
    std::size_t count = n;
    for (std::size_t t = tables_.size() - 1; t-- > 0 && count > 0;) {
      if (keys_in_[t] == 0) continue;
      auto scratch_values = backend::template allocate<value_type>(count, stream);
      auto found = backend::template allocate<status>(count, stream);
      tables_[t].find(current, count, scratch_values.data(), found.data(), stream);
      auto missing = backend::template allocate<std::size_t>(count, stream);
      const std::size_t m =
          backend::select_positions(found.data(), count, status::not_found, missing.data(), stream);
      left.positions = to_batch_positions(left.positions, missing, m, stream);
      count = m;
      left.keys = backend::template allocate<key_type>(count, stream);
      backend::gather(keys, left.positions.data(), count, left.keys.data(), stream);
      current = left.keys.data();
    }
    left.count = count;
    return left;
  }

  std::uint64_t seed_;
  std::vector<Table> tables_;         ///< oldest first; inserts go to the last
  std::vector<std::size_t> keys_in_;  ///< keys stored in each table
};

}  // namespace gpuhash::bench
