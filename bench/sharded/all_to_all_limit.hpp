#pragma once
// The all-to-all ceiling of a sharded map's batch (sharded.scaling): the
// exchange's own all_to_all, the call the map's pipeline makes
// (nccl_exchange: one NCCL group of ncclSend/ncclRecv over every GPU, and a
// device copy of each shard's part for itself; host_exchange: memcpy),
// timed moving the bytes a batch moves and nothing else. A batch of n keys
// that must move those bytes runs at no more than n over that time, which
// is the rate a map fed from one GPU is judged against (the target: >= 70% of it).
// Beside the ceilings of limits.hpp, but measured on the exchange of the
// map being timed (the same communicators and streams), so it is a template
// over the exchange rather than a function of a backend.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "../timer.hpp"
#include "gpuhash/shard_exchange.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash::bench {

/// One all-to-all of a batch: elements of `element_bytes` bytes, sent from
/// the parts to the keys' shards (`back` false), or from the shards back to
/// the parts their keys came from.
struct exchange_transfer {
  std::size_t element_bytes;
  bool back;
};

/// What a sharded map's insert moves, in its pipeline's order
/// (docs/designs/sharded.md, "A batch, step by step", steps 4 and 6): keys
/// and values there, statuses back.
template <class Key, class Value>
std::vector<exchange_transfer> insert_transfers() {
  return {{sizeof(Key), false}, {sizeof(Value), false}, {sizeof(status), true}};
}
/// What a find with statuses moves: keys there, statuses and values back
/// (every value returns, found or not).
template <class Key, class Value>
std::vector<exchange_transfer> find_transfers() {
  return {{sizeof(Key), false}, {sizeof(status), true}, {sizeof(Value), true}};
}

struct all_to_all_limit {
  double median_ms = 0;             ///< host wall clock, from queuing to every stream done
  std::uint64_t bytes = 0;          ///< every byte moved, each shard's part for itself included
  std::uint64_t bytes_between = 0;  ///< the bytes that go from one shard to another

  /// Keys per second, in billions, that moving a batch of n keys allows.
  double rate_gops(std::uint64_t n) const { return static_cast<double>(n) / (median_ms * 1e6); }
  /// Bytes between shards per second (all links together).
  double bytes_between_per_s() const {
    return static_cast<double>(bytes_between) / (median_ms * 1e-3);
  }
};

/// The plan of a batch whose keys the placement spreads evenly: the
/// parts[s] keys of part s split over the shards as evenly as whole keys
/// allow. The placement's shares differ from these by a few sqrt(n/G)
/// keys (docs/designs/sharded.md, "Placement"), a negligible share of the
/// bytes.
inline exchange_plan even_plan(std::span<const std::size_t> parts) {
  const std::size_t shards = parts.size();
  std::vector<std::vector<std::size_t>> counts(shards, std::vector<std::size_t>(shards));
  for (std::size_t s = 0; s < shards; ++s)
    for (std::size_t d = 0; d < shards; ++d)
      counts[s][d] = parts[s] / shards + (d < parts[s] % shards ? 1 : 0);
  return exchange_plan(counts);
}

/// `plan` counted in bytes of elements of `element_bytes` bytes: as one-byte
/// elements, its pieces are plan.pieces(element_bytes), offsets and sizes
/// alike, so one buffer type moves every element width.
inline exchange_plan in_bytes(const exchange_plan& plan, std::size_t element_bytes) {
  const std::size_t shards = plan.shard_count();
  std::vector<std::vector<std::size_t>> counts(shards, std::vector<std::size_t>(shards));
  for (std::size_t s = 0; s < shards; ++s)
    for (std::size_t d = 0; d < shards; ++d) counts[s][d] = plan.count(s, d) * element_bytes;
  return exchange_plan(counts, plan.align() * element_bytes);
}

/// Times `transfers` over `exchange` (planned by `there`; back is its
/// reverse), queued one after another as the pipeline queues them, until
/// every shard's stream is done: `warmups` untimed, then the median of
/// `repetitions`. Buffers live on their shards, allocated and freed there.
template <class Exchange>
all_to_all_limit measure_all_to_all(Exchange& exchange, const exchange_plan& there,
                                    std::span<const exchange_transfer> transfers, int warmups,
                                    int repetitions) {
  using backend = typename Exchange::backend_type;
  using byte_buffer = typename backend::template buffer<unsigned char>;
  const std::size_t shards = exchange.shard_count();
  std::size_t widest = 0;
  for (const exchange_transfer& t : transfers) widest = std::max(widest, t.element_bytes);

  // Each shard's side of a batch: its part (sent there, its results come
  // back into it) and its batch (received there, its results sent back).
  // Written once, so that no page is first touched while timed.
  std::vector<byte_buffer> part(shards);
  std::vector<byte_buffer> batch(shards);
  exchange.for_each_shard([&](std::size_t g) {
    const auto stream = exchange.stream(g);
    part[g] = backend::template allocate<unsigned char>(there.send_extent(g) * widest, stream);
    batch[g] = backend::template allocate<unsigned char>(there.receive_extent(g) * widest, stream);
    if (part[g].size() != 0) backend::fill_bytes(part[g].data(), part[g].size(), 0x5a, stream);
    if (batch[g].size() != 0) backend::fill_bytes(batch[g].data(), batch[g].size(), 0, stream);
    backend::synchronize(stream);
  });
  std::vector<const unsigned char*> part_out(shards);
  std::vector<unsigned char*> part_in(shards);
  std::vector<const unsigned char*> batch_out(shards);
  std::vector<unsigned char*> batch_in(shards);
  for (std::size_t g = 0; g < shards; ++g) {
    part_out[g] = part_in[g] = part[g].data();
    batch_out[g] = batch_in[g] = batch[g].data();
  }

  const exchange_plan back = there.reversed();
  std::vector<exchange_plan> plans;
  all_to_all_limit limit;
  for (const exchange_transfer& t : transfers) {
    plans.push_back(in_bytes(t.back ? back : there, t.element_bytes));
    for (const exchange_piece& piece : plans.back().pieces(1)) {
      limit.bytes += piece.bytes;
      if (piece.from != piece.to) limit.bytes_between += piece.bytes;
    }
  }
  const auto move_batch = [&] {
    for (std::size_t i = 0; i < transfers.size(); ++i) {
      if (transfers[i].back)
        exchange.all_to_all(plans[i], std::span<const unsigned char* const>(batch_out),
                            std::span<unsigned char* const>(part_in));
      else
        exchange.all_to_all(plans[i], std::span<const unsigned char* const>(part_out),
                            std::span<unsigned char* const>(batch_in));
    }
    exchange.for_each_shard([&](std::size_t g) { backend::synchronize(exchange.stream(g)); });
  };
  for (int w = 0; w < warmups; ++w) move_batch();
  std::vector<double> ms;
  for (int r = 0; r < repetitions; ++r) ms.push_back(wall_clock_ms(move_batch));
  limit.median_ms = median(ms);

  exchange.for_each_shard([&](std::size_t g) {
    part[g] = byte_buffer();
    batch[g] = byte_buffer();
  });
  return limit;
}

}  // namespace gpuhash::bench
