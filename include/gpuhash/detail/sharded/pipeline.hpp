#pragma once
// One batch of a sharded_map, step by step (docs/designs/sharded.md, "A
// batch, step by step"), written once for every exchange: the host
// exchange that CI runs and the NCCL exchange of the GPUs run these same
// steps; only the exchange's own calls (for_each_shard, all_to_all, its
// streams) and the backend's memory differ.
//
//  1. each source shard partitions its part's keys by destination shard,
//     keeping their positions (order), and gathers keys, values and
//     operations in that order;
//  2. the counts meet on the host as one matrix, the exchange_plan (one
//     process drives every shard); the way back is its transpose;
//  3. each shard makes room for its batch and for its part's results;
//  4. keys, values and operations go all-to-all to their shards;
//  5. each shard runs its batch on its own table, which grows by itself;
//  6. results go all-to-all back, landing in the order their keys were sent;
//  7. each source scatters them through `order` into its part's arrays.

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "gpuhash/detail/batch.hpp"
#include "gpuhash/detail/sharded/steps.hpp"
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
  using steps = sharded::steps<backend_type, key_type, mapped_type, Placement>;

 public:
  using request_type = request<key_type, mapped_type>;

  pipeline(Exchange& exchange, std::vector<std::optional<Map>>& shards, const Placement& placement)
      : exchange_(exchange), shards_(shards), placement_(placement) {}

  /// Runs the batch; returns when every part's results are written.
  void run(const request_type& r) {
    const std::size_t shards = shards_.size();
    std::vector<transfer> t(shards);
    std::vector<std::vector<std::size_t>> counts(shards, std::vector<std::size_t>(shards, 0));

    // 1. Partition and gather at each source.
    exchange_.for_each_shard([&](std::size_t s) {
      const stream_type stream = exchange_.stream(s);
      const std::size_t n = r.counts[s];
      t[s].order = backend_type::template allocate<std::size_t>(n, stream);
      steps::partition(r.keys[s], n, placement_, t[s].order.data(), counts[s].data(), stream);
      t[s].sent_keys = gathered(r.keys[s], t[s].order, n, stream);
      if (!r.values.empty()) t[s].sent_values = gathered(r.values[s], t[s].order, n, stream);
      if (!r.ops.empty()) t[s].sent_ops = gathered(r.ops[s], t[s].order, n, stream);
    });

    // 2. The counts, there and back.
    const exchange_plan there(counts);
    const exchange_plan back = there.reversed();

    // 3. Room for each shard's batch and for the results of its part.
    exchange_.for_each_shard([&](std::size_t g) {
      const stream_type stream = exchange_.stream(g);
      const std::size_t batch = there.received(g);
      const std::size_t part = r.counts[g];
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
    move_parts(there, t, &transfer::sent_keys, &transfer::keys);
    if (!r.values.empty()) move_parts(there, t, &transfer::sent_values, &transfer::values);
    if (!r.ops.empty()) move_parts(there, t, &transfer::sent_ops, &transfer::ops);

    // 5. Each shard's batch on its own table.
    exchange_.for_each_shard([&](std::size_t g) { run_on_shard(r, g, t[g], there.received(g)); });

    // 6. Back to the sources.
    if (!r.statuses.empty()) move_parts(back, t, &transfer::statuses, &transfer::returned_statuses);
    if (!r.flags.empty()) move_parts(back, t, &transfer::flags, &transfer::returned_flags);
    if (!r.results.empty()) move_parts(back, t, &transfer::values, &transfer::returned_values);

    // 7. Into each part's order.
    exchange_.for_each_shard([&](std::size_t s) {
      const stream_type stream = exchange_.stream(s);
      if (r.counts[s] != 0) reassemble(r, s, t[s], stream);
      backend_type::synchronize(stream);
      t[s] = transfer{};  // freed on the shard's own thread, in its stream's order
    });
  }

  /// Writes every shard's pairs to arrays in shard `target`'s memory (an
  /// all-to-one exchange); returns how many.
  std::size_t gather_all(key_type* keys, mapped_type* values, std::size_t target) {
    const std::size_t shards = shards_.size();
    std::vector<std::vector<std::size_t>> counts(shards, std::vector<std::size_t>(shards, 0));
    std::vector<transfer> t(shards);
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
    exchange_.all_to_all(plan, std::span<const key_type* const>(sent(t, &transfer::sent_keys)),
                         std::span<key_type* const>(receive_keys));
    exchange_.all_to_all(plan, std::span<const mapped_type* const>(sent(t, &transfer::sent_values)),
                         std::span<mapped_type* const>(receive_values));
    exchange_.for_each_shard([&](std::size_t g) {
      backend_type::synchronize(exchange_.stream(g));
      t[g] = transfer{};
    });
    return plan.received(target);
  }

 private:
  /// The buffers of one shard for one batch, in that shard's memory: as a
  /// source (its part grouped by destination, and its results as they come
  /// back, in the same order) and as a destination (its batch).
  struct transfer {
    buffer<std::size_t> order;  ///< positions in the part, grouped by destination
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

  void run_on_shard(const request_type& r, std::size_t g, transfer& t, std::size_t n) {
    Map& table = *shards_[g];
    const stream_type stream = exchange_.stream(g);
    switch (r.kind) {
      case batch_kind::insert:
        table.insert(t.keys.data(), t.values.data(), n, t.statuses.data(), stream);
        break;
      case batch_kind::upsert:
        table.insert_or_assign(t.keys.data(), t.values.data(), n, t.statuses.data(), stream);
        break;
      case batch_kind::find:
        if (r.flags.empty())
          table.find(t.keys.data(), n, t.values.data(), t.statuses.data(), stream);
        else
          table.find(t.keys.data(), n, t.values.data(), t.flags.data(), stream);
        break;
      case batch_kind::contains: table.contains(t.keys.data(), n, t.flags.data(), stream); break;
      case batch_kind::erase: table.erase(t.keys.data(), n, t.statuses.data(), stream); break;
      case batch_kind::apply:
        table.apply(t.ops.data(), t.keys.data(), t.values.data(), n, t.statuses.data(), stream);
        break;
    }
  }

  /// Step 7 for source s: results in sent order, scattered through `order`.
  /// Found values only where found (a find leaves missing keys' values
  /// untouched); an apply's values all (its other operations send back the
  /// value they were given).
  static void reassemble(const request_type& r, std::size_t s, const transfer& t,
                         stream_type stream) {
    const std::size_t n = r.counts[s];
    const std::size_t* order = t.order.data();
    if (!r.statuses.empty())
      backend_type::scatter(t.returned_statuses.data(), order, n, r.statuses[s], stream);
    if (!r.flags.empty())
      backend_type::scatter(t.returned_flags.data(), order, n, r.flags[s], stream);
    if (r.results.empty()) return;
    if (r.kind == batch_kind::apply)
      backend_type::scatter(t.returned_values.data(), order, n, r.results[s], stream);
    else if (!r.statuses.empty())
      steps::scatter_found(t.returned_values.data(), t.returned_statuses.data(), order, n,
                           r.results[s], stream);
    else
      steps::scatter_found(t.returned_values.data(), t.returned_flags.data(), order, n,
                           r.results[s], stream);
  }

  /// All-to-all of one array of every shard's transfer.
  template <class T>
  void move_parts(const exchange_plan& plan, std::vector<transfer>& t, buffer<T> transfer::*from,
                  buffer<T> transfer::*to) {
    std::vector<T*> receive(t.size());
    for (std::size_t g = 0; g < t.size(); ++g) receive[g] = (t[g].*to).data();
    exchange_.all_to_all(plan, std::span<const T* const>(sent(t, from)),
                         std::span<T* const>(receive));
  }

  template <class T>
  static std::vector<const T*> sent(const std::vector<transfer>& t, buffer<T> transfer::*from) {
    std::vector<const T*> pointers(t.size());
    for (std::size_t g = 0; g < t.size(); ++g) pointers[g] = (t[g].*from).data();
    return pointers;
  }

  /// source[order[j]] for j < n, in a new buffer.
  template <class T>
  static buffer<T> gathered(const T* source, const buffer<std::size_t>& order, std::size_t n,
                            stream_type stream) {
    auto out = backend_type::template allocate<T>(n, stream);
    if (n != 0) backend_type::gather(source, order.data(), n, out.data(), stream);
    return out;
  }

  Exchange& exchange_;
  std::vector<std::optional<Map>>& shards_;
  const Placement& placement_;
};

}  // namespace gpuhash::detail::sharded
