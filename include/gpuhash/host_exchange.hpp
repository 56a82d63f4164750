#pragma once
// host_exchange: the exchange of a sharded_map on the CPU backend
// (gpuhash/shard_exchange.hpp says what an exchange is). Each shard has a
// host thread of its own and a thread pool of its own, on which its
// table's batches run, so the shards work at the same time as GPUs do; its
// all-to-all copies each part with memcpy, every receiving shard on its own
// thread. It runs the sharded map's partition, exchange and reassembly as
// nccl_exchange does, which is how CI (no GPU) tests them.

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <vector>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/cpu/thread_pool.hpp"
#include "gpuhash/detail/sharded/shard_threads.hpp"
#include "gpuhash/shard_exchange.hpp"

namespace gpuhash {

class host_exchange {
 public:
  using backend_type = cpu_backend;
  using stream_type = cpu_backend::stream_type;

  /// `shards` shards (at least one), each running its batches on a pool of
  /// `threads_per_shard` threads; 0 shares the machine's threads
  /// (GPUHASH_CPU_THREADS, else the hardware's) out among the shards, at
  /// least one each.
  explicit host_exchange(std::size_t shards, unsigned threads_per_shard = 0) {
    if (shards == 0)
      throw std::invalid_argument("gpuhash::host_exchange: needs at least one shard");
    const unsigned threads = threads_per_shard != 0
                                 ? threads_per_shard
                                 : std::max(1U, cpu::thread_pool::default_thread_count() /
                                                    static_cast<unsigned>(shards));
    pools_.reserve(shards);
    for (std::size_t g = 0; g < shards; ++g)
      pools_.push_back(std::make_unique<cpu::thread_pool>(threads));
    threads_ = std::make_unique<detail::shard_threads>(shards);
  }

  std::size_t shard_count() const noexcept { return pools_.size(); }
  stream_type stream(std::size_t shard) const { return stream_type{pools_.at(shard).get()}; }

  /// task(shard) for every shard, each on its shard's thread.
  template <class Task>
  void for_each_shard(Task&& task) {
    threads_->run(std::function<void(std::size_t)>(std::ref(task)));
  }

  /// Each receiving shard copies, on its own thread, every piece sent to it.
  template <class T>
  void all_to_all(const exchange_plan& plan, std::span<const T* const> send,
                  std::span<T* const> receive) {
    const std::vector<exchange_piece> pieces = plan.pieces(sizeof(T));
    for_each_shard([&](std::size_t to) {
      for (const exchange_piece& piece : pieces) {
        if (piece.to != to) continue;
        std::memcpy(reinterpret_cast<unsigned char*>(receive[to]) + piece.receive_offset,
                    reinterpret_cast<const unsigned char*>(send[piece.from]) + piece.send_offset,
                    piece.bytes);
      }
    });
  }

 private:
  std::vector<std::unique_ptr<cpu::thread_pool>> pools_;
  std::unique_ptr<detail::shard_threads> threads_;
};

template <>
struct default_shard_exchange<cpu_backend> {
  using type = host_exchange;
};

}  // namespace gpuhash
