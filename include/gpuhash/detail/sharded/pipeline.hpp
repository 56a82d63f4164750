#pragma once
// One batch of a sharded_map, step by step (docs/designs/sharded.md, "A
// batch, step by step"), written once for every exchange: the host
// exchange that CI runs and the NCCL exchange of the GPUs run these same
// steps; only the exchange's own calls (for_each_shard, all_to_all, its
// streams and marks) and the backend's memory differ.
//
// A large batch goes in pieces: piece k of every part is the k-th slice of
// its keys, and a shard runs the pieces' batches one after the other, so
// that piece k + 1 crosses to the shards while they run piece k, and piece
// k's results come back while they run the next. For every piece:
//
//  1. each source shard partitions its slice by destination shard: keys,
//     values and operations written grouped, with their positions (order;
//     32-bit where every part of the batch has fewer than 2^32 keys);
//  2. the counts meet on the host as one matrix, the exchange_plan (one
//     process drives every shard); the way back is its transpose;
//  3. each shard makes room for its batches and for its part's results
//     (for every piece at once);
//  4. keys, values and operations go all-to-all to their shards, on the
//     shards' transfer streams;
//  5. each shard runs the piece's batch on its own table, which grows by
//     itself, once the piece has arrived;
//  6. results go all-to-all back once the shard's batch is done, landing in
//     the order their keys were sent;
//  7. each source scatters them through `order` into its slice's place in
//     its part's arrays.
//
// A piece's batch follows the earlier pieces' on each shard, so the copies
// of a key in one batch meet in order, one piece after another: the
// outcome of each key is still that of a serial order of its operations.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
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

/// How a batch is cut into pieces: each at least `least_keys` keys of the
/// largest part, at most `most` pieces (1: the batch goes whole).
struct piecing {
  std::size_t least_keys = std::size_t{1} << 24;
  std::size_t most = 4;

  /// The pieces of a batch whose largest part has `largest` keys.
  std::size_t pieces_for(std::size_t largest) const {
    const std::size_t wanted = least_keys == 0 ? most : (largest + least_keys - 1) / least_keys;
    return std::max<std::size_t>(1, std::min(wanted, most));
  }
};

template <class Map, class Exchange, class Placement>
class pipeline {
  using key_type = typename Map::key_type;
  using mapped_type = typename Map::mapped_type;
  using backend_type = typename Map::backend_type;
  using stream_type = typename backend_type::stream_type;
  using mark = typename Exchange::mark;
  template <class T>
  using buffer = typename backend_type::template buffer<T>;
  template <class Position>
  using steps = sharded::steps<backend_type, key_type, mapped_type, Placement, Position>;

 public:
  using request_type = request<key_type, mapped_type>;

  pipeline(Exchange& exchange, std::vector<std::optional<Map>>& shards, const Placement& placement,
           piecing cut = {})
      : exchange_(exchange), shards_(shards), placement_(placement), cut_(cut) {}

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
  /// source (its part grouped by destination, a piece at a time, and its
  /// results as they come back, in the same order) and as a destination
  /// (its batches, a piece after another).
  template <class Position>
  struct transfer {
    buffer<Position> order;  ///< positions in the piece, grouped by destination
    buffer<key_type> sent_keys;
    buffer<mapped_type> sent_values;
    buffer<operation> sent_ops;
    buffer<key_type> keys;  ///< this shard's batches: the keys of every part placed here
    buffer<mapped_type> values;
    buffer<operation> ops;
    buffer<status> statuses;  ///< this shard's results
    buffer<bool> flags;
    buffer<status> returned_statuses;  ///< the part's results, in sent order
    buffer<bool> returned_flags;
    buffer<mapped_type> returned_values;
  };

  /// Where each piece lies: in a source's part (its slice of the keys, and
  /// of its grouped copies and returned results) and in a destination's
  /// batches (the piece's batch on that shard).
  struct layout {
    std::size_t pieces;
    std::vector<std::vector<std::size_t>> slice;  ///< [source][k]: slice k's start; [pieces]: n
    std::vector<std::vector<std::size_t>> batch;  ///< [destination][k]: batch k's start

    std::size_t slice_size(std::size_t s, std::size_t k) const {
      return slice[s][k + 1] - slice[s][k];
    }
  };

  template <class Position>
  void run_with(const request_type& r) {
    using transfer_type = transfer<Position>;
    const std::size_t shards = shards_.size();
    std::vector<transfer_type> t(shards);
    layout at;
    at.pieces = cut_.pieces_for(*std::max_element(r.counts.begin(), r.counts.end()));
    at.slice.assign(shards, std::vector<std::size_t>(at.pieces + 1));
    for (std::size_t s = 0; s < shards; ++s)
      for (std::size_t k = 0; k <= at.pieces; ++k) at.slice[s][k] = r.counts[s] * k / at.pieces;
    // counts[k][source][destination]
    std::vector<std::vector<std::vector<std::size_t>>> counts(
        at.pieces, std::vector<std::vector<std::size_t>>(shards, std::vector<std::size_t>(shards)));

    // 1. Each source's slices grouped by destination.
    exchange_.for_each_shard([&](std::size_t s) {
      const stream_type stream = exchange_.stream(s);
      const std::size_t n = r.counts[s];
      t[s].order = backend_type::template allocate<Position>(n, stream);
      t[s].sent_keys = backend_type::template allocate<key_type>(n, stream);
      if (!r.values.empty())
        t[s].sent_values = backend_type::template allocate<mapped_type>(n, stream);
      if (!r.ops.empty()) t[s].sent_ops = backend_type::template allocate<operation>(n, stream);
      for (std::size_t k = 0; k < at.pieces; ++k) {
        const std::size_t b = at.slice[s][k];
        steps<Position>::partition(
            r.keys[s] + b, r.values.empty() ? nullptr : r.values[s] + b,
            r.ops.empty() ? nullptr : r.ops[s] + b, at.slice_size(s, k), placement_,
            t[s].order.data() + b, t[s].sent_keys.data() + b,
            r.values.empty() ? nullptr : t[s].sent_values.data() + b,
            r.ops.empty() ? nullptr : t[s].sent_ops.data() + b, counts[k][s].data(), stream);
      }
    });

    // 2. The counts, there and back, piece by piece.
    std::vector<exchange_plan> there;
    std::vector<exchange_plan> back;
    for (std::size_t k = 0; k < at.pieces; ++k) {
      there.emplace_back(counts[k]);
      back.push_back(there.back().reversed());
    }
    at.batch.assign(shards, std::vector<std::size_t>(at.pieces + 1, 0));
    for (std::size_t g = 0; g < shards; ++g)
      for (std::size_t k = 0; k < at.pieces; ++k)
        at.batch[g][k + 1] = at.batch[g][k] + there[k].received(g);

    // 3. Room for each shard's batches and for the results of its part.
    std::vector<mark> ready(shards);
    exchange_.for_each_shard([&](std::size_t g) {
      const stream_type stream = exchange_.stream(g);
      const std::size_t batch = at.batch[g][at.pieces];
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
      ready[g] = exchange_.mark_work(g);
    });

    // 4. Every piece to the shards, on their transfer streams.
    for (std::size_t g = 0; g < shards; ++g) exchange_.transfers_wait(g, ready[g]);
    std::vector<std::vector<mark>> arrived(at.pieces, std::vector<mark>(shards));
    for (std::size_t k = 0; k < at.pieces; ++k) {
      move_piece(there[k], t, at, k, &transfer_type::sent_keys, &transfer_type::keys);
      if (!r.values.empty())
        move_piece(there[k], t, at, k, &transfer_type::sent_values, &transfer_type::values);
      if (!r.ops.empty())
        move_piece(there[k], t, at, k, &transfer_type::sent_ops, &transfer_type::ops);
      for (std::size_t g = 0; g < shards; ++g) arrived[k][g] = exchange_.mark_transfers(g);
    }

    // 5. Each shard's batches on its own table, a piece once it has arrived.
    std::vector<std::vector<mark>> done(at.pieces, std::vector<mark>(shards));
    exchange_.for_each_shard([&](std::size_t g) {
      for (std::size_t k = 0; k < at.pieces; ++k) {
        exchange_.work_waits(g, arrived[k][g]);
        run_on_shard(r, g, t[g], at.batch[g][k], at.batch[g][k + 1] - at.batch[g][k]);
        done[k][g] = exchange_.mark_work(g);
      }
    });

    // 6. Each piece's results back to the sources, once its batches are done.
    std::vector<std::vector<mark>> returned(at.pieces, std::vector<mark>(shards));
    for (std::size_t k = 0; k < at.pieces; ++k) {
      for (std::size_t g = 0; g < shards; ++g) exchange_.transfers_wait(g, done[k][g]);
      if (!r.statuses.empty())
        return_piece(back[k], t, at, k, &transfer_type::statuses,
                     &transfer_type::returned_statuses);
      if (!r.flags.empty())
        return_piece(back[k], t, at, k, &transfer_type::flags, &transfer_type::returned_flags);
      if (!r.results.empty())
        return_piece(back[k], t, at, k, &transfer_type::values, &transfer_type::returned_values);
      for (std::size_t g = 0; g < shards; ++g) returned[k][g] = exchange_.mark_transfers(g);
    }

    // 7. Into each part's order, a slice once its results are back.
    exchange_.for_each_shard([&](std::size_t s) {
      const stream_type stream = exchange_.stream(s);
      for (std::size_t k = 0; k < at.pieces; ++k) {
        exchange_.work_waits(s, returned[k][s]);
        if (at.slice_size(s, k) != 0) reassemble(r, s, t[s], at.slice[s][k], at.slice_size(s, k),
                                                  stream);
      }
      backend_type::synchronize(stream);
      t[s] = transfer_type{};  // freed on the shard's own thread, in its stream's order
    });
  }

  /// Step 5: shard g's batch of `n` keys from `at` in its buffers.
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
      case batch_kind::find:
        if (r.flags.empty())
          table.find(keys, n, values, statuses, stream);
        else
          table.find(keys, n, values, flags, stream);
        break;
      case batch_kind::contains: table.contains(keys, n, flags, stream); break;
      case batch_kind::erase: table.erase(keys, n, statuses, stream); break;
      case batch_kind::apply:
        table.apply(t.ops.data() + at, keys, values, n, statuses, stream);
        break;
    }
  }

  /// Step 7 for source s: the results of its slice of `n` keys from
  /// `begin`, in sent order, scattered through `order` (positions in the
  /// slice). Found values only where found (a find leaves missing keys'
  /// values untouched); an apply's values all (its other operations send
  /// back the value they were given).
  template <class Position>
  static void reassemble(const request_type& r, std::size_t s, const transfer<Position>& t,
                         std::size_t begin, std::size_t n, stream_type stream) {
    using position_steps = steps<Position>;
    const Position* order = t.order.data() + begin;
    if (!r.statuses.empty())
      position_steps::scatter(t.returned_statuses.data() + begin, order, n,
                              r.statuses[s] + begin, stream);
    if (!r.flags.empty())
      position_steps::scatter(t.returned_flags.data() + begin, order, n, r.flags[s] + begin,
                              stream);
    if (r.results.empty()) return;
    const mapped_type* values = t.returned_values.data() + begin;
    if (r.kind == batch_kind::apply)
      position_steps::scatter_values(values, order, n, r.results[s] + begin, stream);
    else if (!r.statuses.empty())
      position_steps::scatter_found(values, t.returned_statuses.data() + begin, order, n,
                                    r.results[s] + begin, stream);
    else
      position_steps::scatter_found(values, t.returned_flags.data() + begin, order, n,
                                    r.results[s] + begin, stream);
  }

  /// Step 4 for one array of piece k: every source's slice (grouped) to the
  /// destinations' batch k.
  template <class T, class Transfer>
  void move_piece(const exchange_plan& plan, std::vector<Transfer>& t, const layout& at,
                  std::size_t k, buffer<T> Transfer::*from, buffer<T> Transfer::*to) {
    std::vector<const T*> send(t.size());
    std::vector<T*> receive(t.size());
    for (std::size_t g = 0; g < t.size(); ++g) {
      send[g] = (t[g].*from).data() + at.slice[g][k];
      receive[g] = (t[g].*to).data() + at.batch[g][k];
    }
    exchange_.all_to_all_in_flight(plan, std::span<const T* const>(send),
                                   std::span<T* const>(receive));
  }

  /// Step 6 for one array of piece k: each destination's results of batch k
  /// back to the sources' slices (the plan `back`, reversed).
  template <class T, class Transfer>
  void return_piece(const exchange_plan& plan, std::vector<Transfer>& t, const layout& at,
                    std::size_t k, buffer<T> Transfer::*from, buffer<T> Transfer::*to) {
    std::vector<const T*> send(t.size());
    std::vector<T*> receive(t.size());
    for (std::size_t g = 0; g < t.size(); ++g) {
      send[g] = (t[g].*from).data() + at.batch[g][k];
      receive[g] = (t[g].*to).data() + at.slice[g][k];
    }
    exchange_.all_to_all_in_flight(plan, std::span<const T* const>(send),
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
  piecing cut_;
};

}  // namespace gpuhash::detail::sharded
