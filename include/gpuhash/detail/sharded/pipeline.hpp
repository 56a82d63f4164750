#pragma once
// One batch of a sharded_map, step by step (docs/designs/sharded.md, "A
// batch, step by step"), written once for every exchange: the host
// exchange that CI runs and the NCCL exchange of the GPUs run these same
// steps; only the exchange's own calls (for_each_shard, all_to_all, its
// streams) and the backend's memory differ.
//
//  1. each source shard partitions its part by destination shard: keys,
//     values and operations written grouped, with their positions (order;
//     32-bit where every part of the batch has fewer than 2^32 keys);
//  2. the counts meet on the host as one matrix, the exchange_plan (one
//     process drives every shard); the way back is its transpose;
//  3. each shard makes room for its batch and for its part's results;
//  4. keys, values and operations go all-to-all to their shards;
//  5. each shard runs its batch on its own table, which grows by itself;
//  6. results go all-to-all back, landing in the order their keys were sent;
//  7. each source scatters them through `order` into its part's arrays.
//
// Every part moved starts at a multiple of `exchange_align` elements in its
// buffers (the partition leaves the gaps, the plan has the same alignment):
// NCCL moves parts at other offsets at up to half the rate
// (docs/results/sharded.md). A shard queues its finds, contains and erases
// a part at a time and runs a batch that inserts as one call over its parts
// packed together; a source scatters its results a destination's group at
// a time.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gpuhash/detail/batch.hpp"
#include "gpuhash/detail/sharded/steps.hpp"
#include "gpuhash/errors.hpp"
#include "gpuhash/operation.hpp"
#include "gpuhash/shard_exchange.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash::detail::sharded {

/// One batch: a part per shard (count 0 for shards the batch is not on).
/// A list is empty where the batch kind does not use that array.
template <class Key, class Value>
struct request {
  batch_kind kind = batch_kind::find;
  std::vector<std::size_t> counts;
  std::vector<const Key*> keys;
  std::vector<const Value*> values;   ///< sent with the keys: insert, upsert, apply
  std::vector<Value*> results;        ///< values written back: find (where found), apply
  std::vector<const operation*> ops;  ///< apply
  std::vector<status*> statuses;
  std::vector<bool*> flags;  ///< contains, and find's found flags
};

template <class Map, class Exchange, class Placement>
class pipeline {
  using key_type = typename Map::key_type;
  using mapped_type = typename Map::mapped_type;
  using backend_type = typename Map::backend_type;
  using stream_type = typename backend_type::stream_type;
  template <class T>
  using buffer = typename backend_type::template buffer<T>;
  template <class Position>
  using steps = sharded::steps<backend_type, key_type, mapped_type, Placement, Position>;

 public:
  using request_type = request<key_type, mapped_type>;

  /// What the start of every part moved is a multiple of, in elements: 256
  /// bytes of the narrowest arrays (statuses and flags).
  static constexpr std::size_t exchange_align = 256;

  pipeline(Exchange& exchange, std::vector<std::optional<Map>>& shards, const Placement& placement)
      : exchange_(exchange), shards_(shards), placement_(placement) {}

  /// Runs the batch; returns when every part's results are written.
  void run(const request_type& r) {
    bool narrow = true;
    for (const std::size_t n : r.counts) narrow = narrow && n <= max_narrow_part;
    if (narrow)
      run_with<std::uint32_t>(r);
    else
      run_with<std::uint64_t>(r);
  }

  /// Writes every shard's pairs to arrays in shard `target`'s memory (an
  /// all-to-one exchange); returns how many.
  std::size_t gather_all(key_type* keys, mapped_type* values, std::size_t target) {
    const std::size_t shards = shards_.size();
    std::vector<std::vector<std::size_t>> counts(shards, std::vector<std::size_t>(shards, 0));
    using transfer_type = transfer<std::uint32_t>;  // no positions
    std::vector<transfer_type> t(shards);
    exchange_.for_each_shard([&](std::size_t g) {
      const stream_type stream = exchange_.stream(g);
      const std::size_t count = shards_[g]->size(stream);
      t[g].sent_keys = backend_type::template allocate<key_type>(count, stream);
      t[g].sent_values = backend_type::template allocate<mapped_type>(count, stream);
      counts[g][target] =
          shards_[g]->retrieve_all(t[g].sent_keys.data(), t[g].sent_values.data(), stream);
    });
    const exchange_plan plan(counts);
    std::vector<key_type*> receive_keys(shards, nullptr);
    std::vector<mapped_type*> receive_values(shards, nullptr);
    receive_keys[target] = keys;
    receive_values[target] = values;
    exchange_.all_to_all(plan, std::span<const key_type* const>(sent(t, &transfer_type::sent_keys)),
                         std::span<key_type* const>(receive_keys));
    exchange_.all_to_all(plan,
                         std::span<const mapped_type* const>(sent(t, &transfer_type::sent_values)),
                         std::span<mapped_type* const>(receive_values));
    exchange_.for_each_shard([&](std::size_t g) {
      backend_type::synchronize(exchange_.stream(g));
      t[g] = transfer_type{};
    });
    return plan.received(target);
  }

 private:
  /// The most keys of a part whose positions are 32-bit.
  static constexpr std::size_t max_narrow_part = std::numeric_limits<std::uint32_t>::max();

  /// The buffers of one shard for one batch, in that shard's memory: as a
  /// source (its part grouped by destination, and its results as they come
  /// back, in the same order) and as a destination (its batch).
  template <class Position>
  struct transfer {
    buffer<Position> order;  ///< positions in the part, grouped by destination
    buffer<key_type> sent_keys;
    buffer<mapped_type> sent_values;
    buffer<operation> sent_ops;
    buffer<key_type> keys;  ///< this shard's batch: the keys of every part placed here
    buffer<mapped_type> values;
    buffer<operation> ops;
    buffer<status> statuses;  ///< this shard's results
    buffer<bool> flags;
    buffer<status> returned_statuses;  ///< the part's results, in sent order
    buffer<bool> returned_flags;
    buffer<mapped_type> returned_values;
  };

  template <class Position>
  void run_with(const request_type& r) {
    using transfer_type = transfer<Position>;
    const std::size_t shards = shards_.size();
    std::vector<transfer_type> t(shards);
    std::vector<std::vector<std::size_t>> counts(shards, std::vector<std::size_t>(shards, 0));
    std::vector<std::size_t> sent_room(shards, 0);  // elements of each source's send buffers

    // 1. Each source's part grouped by destination, the groups aligned:
    // its buffers are sized before the counts are known, for the most gaps
    // there can be (shards - 1 of them, each under exchange_align).
    exchange_.for_each_shard([&](std::size_t s) {
      const stream_type stream = exchange_.stream(s);
      const std::size_t n = r.counts[s];
      const std::size_t extent = n == 0 ? 0 : n + (shards - 1) * (exchange_align - 1);
      sent_room[s] = extent;
      t[s].order = backend_type::template allocate<Position>(extent, stream);
      t[s].sent_keys = backend_type::template allocate<key_type>(extent, stream);
      if (!r.values.empty())
        t[s].sent_values = backend_type::template allocate<mapped_type>(extent, stream);
      if (!r.ops.empty())
        t[s].sent_ops = backend_type::template allocate<operation>(extent, stream);
      steps<Position>::partition(r.keys[s], r.values.empty() ? nullptr : r.values[s],
                                 r.ops.empty() ? nullptr : r.ops[s], n, placement_, exchange_align,
                                 t[s].order.data(), t[s].sent_keys.data(), t[s].sent_values.data(),
                                 t[s].sent_ops.data(), counts[s].data(), stream);
    });

    // 2. The counts, there and back. The plan lays each source's groups out
    // as its partition did; the exchange reads up to the plan's extent,
    // which must lie within the buffers step 1 sized.
    const exchange_plan there(counts, exchange_align);
    const exchange_plan back = there.reversed();
    for (std::size_t s = 0; s < shards; ++s)
      if (there.send_extent(s) > sent_room[s])
        throw error("gpuhash: sharded_map: shard " + std::to_string(s) + "'s part spans " +
                    std::to_string(there.send_extent(s)) + " elements, its buffers hold " +
                    std::to_string(sent_room[s]));

    // 3. Room for each shard's batch and for the results of its part.
    exchange_.for_each_shard([&](std::size_t g) {
      const stream_type stream = exchange_.stream(g);
      const std::size_t batch = there.receive_extent(g);
      const std::size_t part = there.send_extent(g);
      t[g].keys = backend_type::template allocate<key_type>(batch, stream);
      if (!r.values.empty() || !r.results.empty())
        t[g].values = backend_type::template allocate<mapped_type>(batch, stream);
      if (!r.ops.empty()) t[g].ops = backend_type::template allocate<operation>(batch, stream);
      if (!r.statuses.empty()) {
        t[g].statuses = backend_type::template allocate<status>(batch, stream);
        t[g].returned_statuses = backend_type::template allocate<status>(part, stream);
      }
      if (!r.flags.empty()) {
        t[g].flags = backend_type::template allocate<bool>(batch, stream);
        t[g].returned_flags = backend_type::template allocate<bool>(part, stream);
      }
      if (!r.results.empty())
        t[g].returned_values = backend_type::template allocate<mapped_type>(part, stream);
    });

    // 4. To the shards.
    move_parts(there, t, &transfer_type::sent_keys, &transfer_type::keys);
    if (!r.values.empty())
      move_parts(there, t, &transfer_type::sent_values, &transfer_type::values);
    if (!r.ops.empty()) move_parts(there, t, &transfer_type::sent_ops, &transfer_type::ops);

    // 5. Each shard's batch on its own table.
    exchange_.for_each_shard([&](std::size_t g) { run_batch(r, g, t[g], there); });

    // 6. Back to the sources.
    if (!r.statuses.empty())
      move_parts(back, t, &transfer_type::statuses, &transfer_type::returned_statuses);
    if (!r.flags.empty())
      move_parts(back, t, &transfer_type::flags, &transfer_type::returned_flags);
    if (!r.results.empty())
      move_parts(back, t, &transfer_type::values, &transfer_type::returned_values);

    // 7. Into each part's order, a destination's group at a time.
    exchange_.for_each_shard([&](std::size_t s) {
      const stream_type stream = exchange_.stream(s);
      for (std::size_t d = 0; d < shards; ++d)
        if (there.count(s, d) != 0)
          reassemble(r, s, t[s], there.send_offset(s, d), there.count(s, d), stream);
      backend_type::synchronize(stream);
      t[s] = transfer_type{};  // freed on the shard's own thread, in its stream's order
    });
  }

  /// Step 5 for shard g: its batch on its table. A find, contains or erase
  /// runs a source's part at a time. A batch that may insert runs in one
  /// call, its parts first packed together and its results put back in
  /// their places afterwards, so that the table makes room once for the
  /// whole batch, as one table does for one batch: a call a part makes
  /// room for its part alone, so a shard would grow once a part and could
  /// end larger than one call leaves it (the packing's copies cost little:
  /// docs/results/sharded.md).
  template <class Transfer>
  void run_batch(const request_type& r, std::size_t g, Transfer& t, const exchange_plan& there) {
    const std::size_t shards = there.shard_count();
    std::size_t parts = 0;
    for (std::size_t source = 0; source < shards; ++source) parts += there.count(source, g) != 0;
    const bool inserts =
        r.kind == batch_kind::insert || r.kind == batch_kind::upsert || r.kind == batch_kind::apply;
    if (!inserts || parts <= 1) {
      for (std::size_t source = 0; source < shards; ++source)
        if (there.count(source, g) != 0)
          run_on_shard(r, g, t, there.receive_offset(g, source), there.count(source, g));
      return;
    }
    const stream_type stream = exchange_.stream(g);
    const std::size_t n = there.received(g);
    Transfer packed;
    packed.keys = backend_type::template allocate<key_type>(n, stream);
    packed.values = backend_type::template allocate<mapped_type>(n, stream);
    packed.statuses = backend_type::template allocate<status>(n, stream);
    if (t.ops.data() != nullptr) packed.ops = backend_type::template allocate<operation>(n, stream);
    for (std::size_t source = 0, at = 0; source < shards; at += there.count(source, g), ++source) {
      const std::size_t from = there.receive_offset(g, source);
      const std::size_t count = there.count(source, g);
      if (count == 0) continue;
      backend_type::copy(packed.keys.data() + at, t.keys.data() + from, count, stream);
      backend_type::copy(packed.values.data() + at, t.values.data() + from, count, stream);
      if (t.ops.data() != nullptr)
        backend_type::copy(packed.ops.data() + at, t.ops.data() + from, count, stream);
    }
    run_on_shard(r, g, packed, 0, n);
    for (std::size_t source = 0, at = 0; source < shards; at += there.count(source, g), ++source) {
      const std::size_t to = there.receive_offset(g, source);
      const std::size_t count = there.count(source, g);
      if (count == 0) continue;
      backend_type::copy(t.statuses.data() + to, packed.statuses.data() + at, count, stream);
      if (r.kind == batch_kind::apply)  // an apply's values go back too
        backend_type::copy(t.values.data() + to, packed.values.data() + at, count, stream);
    }
  }  // `packed` is freed in the stream's order, after the copies back

  /// The `n` keys of shard g's batch from `at` (one source's part, or the
  /// packed batch) on its table.
  template <class Transfer>
  void run_on_shard(const request_type& r, std::size_t g, Transfer& t, std::size_t at,
                    std::size_t n) {
    Map& table = *shards_[g];
    const stream_type stream = exchange_.stream(g);
    const key_type* keys = t.keys.data() + at;
    mapped_type* values = t.values.data() == nullptr ? nullptr : t.values.data() + at;
    status* statuses = t.statuses.data() == nullptr ? nullptr : t.statuses.data() + at;
    bool* flags = t.flags.data() == nullptr ? nullptr : t.flags.data() + at;
    switch (r.kind) {
      case batch_kind::insert: table.insert(keys, values, n, statuses, stream); break;
      case batch_kind::upsert: table.insert_or_assign(keys, values, n, statuses, stream); break;
      // Searches and erases are queued: what reads their results (the
      // exchange back) runs after them in the shard's stream.
      case batch_kind::find:
        if (r.flags.empty())
          table.find_async(keys, n, values, statuses, stream);
        else
          table.find_async(keys, n, values, flags, stream);
        break;
      case batch_kind::contains: table.contains_async(keys, n, flags, stream); break;
      case batch_kind::erase: table.erase_async(keys, n, statuses, stream); break;
      case batch_kind::apply:
        table.apply(t.ops.data() + at, keys, values, n, statuses, stream);
        break;
    }
  }

  /// Step 7 for source s: the results of the `n` keys it sent from `at`
  /// (one destination's group), back in sent order, scattered through
  /// `order`. Found values only where found (a find leaves missing keys'
  /// values untouched); an apply's values all (its other operations send
  /// back the value they were given).
  template <class Position>
  static void reassemble(const request_type& r, std::size_t s, const transfer<Position>& t,
                         std::size_t at, std::size_t n, stream_type stream) {
    using position_steps = steps<Position>;
    const Position* order = t.order.data() + at;
    if (!r.statuses.empty())
      position_steps::scatter(t.returned_statuses.data() + at, order, n, r.statuses[s], stream);
    if (!r.flags.empty())
      position_steps::scatter(t.returned_flags.data() + at, order, n, r.flags[s], stream);
    if (r.results.empty()) return;
    const mapped_type* values = t.returned_values.data() + at;
    if (r.kind == batch_kind::apply)
      position_steps::scatter_values(values, order, n, r.results[s], stream);
    else if (!r.statuses.empty())
      position_steps::scatter_found(values, t.returned_statuses.data() + at, order, n, r.results[s],
                                    stream);
    else
      position_steps::scatter_found(values, t.returned_flags.data() + at, order, n, r.results[s],
                                    stream);
  }

  /// All-to-all of one array of every shard's transfer.
  template <class T, class Transfer>
  void move_parts(const exchange_plan& plan, std::vector<Transfer>& t, buffer<T> Transfer::*from,
                  buffer<T> Transfer::*to) {
    std::vector<T*> receive(t.size());
    for (std::size_t g = 0; g < t.size(); ++g) receive[g] = (t[g].*to).data();
    exchange_.all_to_all(plan, std::span<const T* const>(sent(t, from)),
                         std::span<T* const>(receive));
  }

  template <class T, class Transfer>
  static std::vector<const T*> sent(const std::vector<Transfer>& t, buffer<T> Transfer::*from) {
    std::vector<const T*> pointers(t.size());
    for (std::size_t g = 0; g < t.size(); ++g) pointers[g] = (t[g].*from).data();
    return pointers;
  }

  Exchange& exchange_;
  std::vector<std::optional<Map>>& shards_;
  const Placement& placement_;
};

}  // namespace gpuhash::detail::sharded
