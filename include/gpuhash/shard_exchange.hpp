#pragma once
// How the shards of a sharded_map trade keys and results
// (docs/designs/sharded.md): an exchange_plan says how many
// elements each shard sends each other shard and where they lie, and an
// exchange moves them: host_exchange (gpuhash/host_exchange.hpp: the CPU
// backend, a host thread per shard) or nccl_exchange
// (gpuhash/nccl_exchange.hpp: the CUDA backend, a GPU per shard, NCCL).
//
// An exchange is a class with
//   using backend_type;                      the backend of every shard's memory
//   using stream_type;                       backend_type::stream_type
//   std::size_t shard_count() const;
//   stream_type stream(std::size_t shard) const;
//                                            where shard work is queued
//   void for_each_shard(Task&& task);        task(shard) for every shard, each on
//                                            a host thread of its own with the
//                                            shard's device current; returns when
//                                            all are done, rethrowing the first
//                                            exception one threw
//   void all_to_all<T>(const exchange_plan& plan, std::span<const T* const> send,
//                      std::span<T* const> receive);
//                                            for every pair (s, d): plan.count(s, d)
//                                            elements from send[s] +
//                                            plan.send_offset(s, d) to receive[d] +
//                                            plan.receive_offset(d, s); called from
//                                            one thread while no task runs, and
//                                            ordered after the work queued on each
//                                            shard's stream (and before the work
//                                            queued there afterwards)
// and a constructor from a shard count. Both exchanges move exactly
// plan.pieces(sizeof(T)).

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "gpuhash/detail/round_up.hpp"

namespace gpuhash {

/// One point-to-point piece of an all-to-all: shard `from` sends `bytes`
/// bytes from `send_offset` bytes into its send buffer, and shard `to`
/// receives them `receive_offset` bytes into its receive buffer (from == to:
/// a shard's part for itself).
struct exchange_piece {
  std::size_t from;
  std::size_t to;
  std::size_t send_offset;
  std::size_t receive_offset;
  std::size_t bytes;
};

/// Who sends whom how many elements, and where each part lies: a shard's
/// send buffer holds its parts in the order of their destinations, a
/// shard's receive buffer the parts sent to it in the order of their
/// sources, each part starting at a multiple of `align` elements (the
/// elements between two parts are not sent).
class exchange_plan {
 public:
  /// counts[s][d]: elements shard s sends shard d (a square matrix). align:
  /// every part starts at a multiple of it in its buffers (1: the parts
  /// follow one another).
  explicit exchange_plan(const std::vector<std::vector<std::size_t>>& counts, std::size_t align = 1)
      : shards_(counts.size()),
        align_(align),
        counts_(shards_ * shards_),
        send_offsets_(shards_ * shards_),
        receive_offsets_(shards_ * shards_),
        sent_(shards_, 0),
        received_(shards_, 0),
        send_extents_(shards_, 0),
        receive_extents_(shards_, 0) {
    if (align_ == 0) throw std::invalid_argument("gpuhash::exchange_plan: align must be 1 or more");
    for (std::size_t s = 0; s < shards_; ++s) {
      if (counts[s].size() != shards_)
        throw std::invalid_argument("gpuhash::exchange_plan: row " + std::to_string(s) + " has " +
                                    std::to_string(counts[s].size()) + " counts for " +
                                    std::to_string(shards_) + " shards");
      for (std::size_t d = 0; d < shards_; ++d) counts_[s * shards_ + d] = counts[s][d];
    }
    for (std::size_t s = 0; s < shards_; ++s) {
      for (std::size_t d = 0; d < shards_; ++d) {
        send_offsets_[s * shards_ + d] = aligned(send_extents_[s]);
        send_extents_[s] = send_offsets_[s * shards_ + d] + count(s, d);
        sent_[s] += count(s, d);
        receive_offsets_[d * shards_ + s] = aligned(receive_extents_[d]);
        receive_extents_[d] = receive_offsets_[d * shards_ + s] + count(s, d);
        received_[d] += count(s, d);
      }
    }
  }

  std::size_t shard_count() const noexcept { return shards_; }
  /// Elements shard `from` sends shard `to`.
  std::size_t count(std::size_t from, std::size_t to) const { return counts_[from * shards_ + to]; }
  /// Where the part for `to` starts in the send buffer of `from`.
  std::size_t send_offset(std::size_t from, std::size_t to) const {
    return send_offsets_[from * shards_ + to];
  }
  /// Where the part from `from` starts in the receive buffer of `to`.
  std::size_t receive_offset(std::size_t to, std::size_t from) const {
    return receive_offsets_[to * shards_ + from];
  }
  /// Elements shard `from` sends in all.
  std::size_t sent(std::size_t from) const { return sent_[from]; }
  /// Elements shard `to` receives in all.
  std::size_t received(std::size_t to) const { return received_[to]; }
  /// The size of the send buffer of `from`: its last part's end, an empty
  /// part ending where it starts (sent(from) where align is 1).
  std::size_t send_extent(std::size_t from) const { return send_extents_[from]; }
  /// The size of the receive buffer of `to`: its last part's end.
  std::size_t receive_extent(std::size_t to) const { return receive_extents_[to]; }
  /// What every part's start is a multiple of.
  std::size_t align() const noexcept { return align_; }

  /// The all-to-all of elements of `element_bytes` bytes as its pieces, one
  /// per pair of shards with a part to move (empty parts left out), by
  /// source, then destination. Each exchange moves exactly these, so both
  /// sides of a piece agree on its size and places by construction.
  std::vector<exchange_piece> pieces(std::size_t element_bytes) const {
    std::vector<exchange_piece> all;
    for (std::size_t from = 0; from < shards_; ++from)
      for (std::size_t to = 0; to < shards_; ++to)
        if (count(from, to) != 0)
          all.push_back({from, to, send_offset(from, to) * element_bytes,
                         receive_offset(to, from) * element_bytes,
                         count(from, to) * element_bytes});
    return all;
  }

  /// The way back: every part returns from where it went to where it came
  /// from, so a receive buffer of this plan is laid out as the send buffer
  /// of the plan it reverses (results land where their keys were sent from).
  exchange_plan reversed() const {
    std::vector<std::vector<std::size_t>> counts(shards_, std::vector<std::size_t>(shards_));
    for (std::size_t s = 0; s < shards_; ++s)
      for (std::size_t d = 0; d < shards_; ++d) counts[d][s] = count(s, d);
    return exchange_plan(counts, align_);
  }

 private:
  std::size_t aligned(std::size_t at) const { return detail::round_up(at, align_); }

  std::size_t shards_;
  std::size_t align_;
  std::vector<std::size_t> counts_;           // row-major: [from][to]
  std::vector<std::size_t> send_offsets_;     // [from][to]
  std::vector<std::size_t> receive_offsets_;  // [to][from]
  std::vector<std::size_t> sent_;
  std::vector<std::size_t> received_;
  std::vector<std::size_t> send_extents_;
  std::vector<std::size_t> receive_extents_;
};

/// The exchange a sharded_map uses on a backend unless told otherwise:
/// host_exchange for cpu_backend (gpuhash/host_exchange.hpp), nccl_exchange
/// for cuda_backend (gpuhash/nccl_exchange.hpp, in the library when it was
/// built with NCCL).
template <class Backend>
struct default_shard_exchange {
  static_assert(
      !std::is_same_v<Backend, Backend>,
      "gpuhash::sharded_map has no exchange for this backend: cpu_backend maps use "
      "host_exchange; cuda_backend maps use nccl_exchange, from gpuhash/nccl_exchange.hpp "
      "and the gpuhash::nccl target (a library built with NCCL)");
};

}  // namespace gpuhash
