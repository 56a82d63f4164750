#pragma once
// nccl_exchange: the exchange of a sharded_map on the CUDA backend
// (gpuhash/shard_exchange.hpp says what an exchange is). One shard per GPU
// of this host, driven by one process: one NCCL communicator per GPU
// (ncclCommInitAll), one stream per GPU, one host thread per GPU for the
// shards' own work. Its all-to-all is one NCCL group of ncclSend/ncclRecv
// pairs over every communicator; a shard's part for itself is a
// device-to-device copy on its stream. In the library when it was built
// with NCCL: link gpuhash::nccl, which defines GPUHASH_HAS_NCCL (nccl.h
// stays inside the library).
//
// NVLink multicast (NVLS) stays off: constructing an nccl_exchange sets
// NCCL_NVLS_ENABLE=0 in the process's environment before it initializes
// NCCL. NCCL reads its environment once, at its first initialization in
// the process, so a program that initialized NCCL earlier must have set it
// itself; and setting the environment races with other threads reading it,
// so construct the exchange while the program has one thread.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/shard_exchange.hpp"

namespace gpuhash {

class nccl_exchange {
 public:
  using backend_type = cuda_backend;
  using stream_type = cudaStream_t;

  /// One shard per device of `devices` (CUDA device ordinals, distinct), in
  /// that order.
  explicit nccl_exchange(std::vector<int> devices);
  /// One shard on each of the first `shards` devices.
  explicit nccl_exchange(std::size_t shards);
  ~nccl_exchange();
  nccl_exchange(nccl_exchange&&) noexcept;
  nccl_exchange& operator=(nccl_exchange&&) noexcept;

  std::size_t shard_count() const noexcept;
  /// The CUDA device of a shard.
  int device(std::size_t shard) const;
  /// The shard's stream, made by the exchange on its device (a blocking
  /// stream: it follows the work queued on the device's legacy default
  /// stream).
  stream_type stream(std::size_t shard) const;

  /// task(shard) for every shard, each on its shard's host thread with the
  /// shard's device current.
  template <class Task>
  void for_each_shard(Task&& task) {
    run_on_devices(std::function<void(std::size_t)>(std::ref(task)));
  }

  /// One NCCL group: every shard sends each other shard its part and
  /// receives theirs, on its own stream (shard_exchange.hpp).
  template <class T>
  void all_to_all(const exchange_plan& plan, std::span<const T* const> send,
                  std::span<T* const> receive) {
    const std::vector<const void*> send_bytes(send.begin(), send.end());
    const std::vector<void*> receive_bytes(receive.begin(), receive.end());
    all_to_all_bytes(plan, send_bytes, receive_bytes, sizeof(T));
  }

  /// CUDA devices this process sees (0 without a driver or a device).
  static std::size_t device_count() noexcept;

 private:
  struct state;

  void run_on_devices(const std::function<void(std::size_t)>& task);
  void all_to_all_bytes(const exchange_plan& plan, std::span<const void* const> send,
                        std::span<void* const> receive, std::size_t element_bytes);

  std::unique_ptr<state> state_;
};

template <>
struct default_shard_exchange<cuda_backend> {
  using type = nccl_exchange;
};

}  // namespace gpuhash
