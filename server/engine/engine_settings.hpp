#pragma once
// The engine's part of the server's settings (config/options.hpp holds the
// whole): what its commands allow, how its batches run, how many shards.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "store/store_config.hpp"

namespace gpuhash::server::engine {

/// Who runs a shard's batches (engine.hpp).
enum class batch_runner : std::uint8_t {
  automatic,                ///< batch_thread_unless_idle on the GPU, the submitters on the CPU
  batch_thread,             ///< the shard's batch thread
  submitting_thread,        ///< whoever submits (nothing overlaps a batch on the CPU)
  batch_thread_unless_idle  ///< a submitter that finds its shard idle runs its own groups
};

struct engine_settings {
  /// The items of all shards together: their stores share one slab ledger
  /// (store/slab_ledger.hpp), which holds them to memory_limit.
  store::store_config store;
  bool flush_enabled = true;      ///< false: -F, flush_all is refused
  bool shutdown_enabled = false;  ///< -A: the shutdown command is allowed
  bool dumping_enabled = true;    ///< false: -X, lru_crawler metadump is refused
  batch_runner runner = batch_runner::automatic;
  std::size_t batch_max = 32768;    ///< index operations per batch (soft: a group is never split)
  std::uint32_t batch_wait_us = 0;  ///< longest wait for a batch to fill while the server is busy
  std::uint32_t spin_us = 0;        ///< polling for groups before the batch thread sleeps
  /// Shards of the items and the index (at most 64), each running its own
  /// batches.
  std::size_t shards = 1;
  /// The seed of the key hash that picks a key's shard and index signature
  /// (key_hash.hpp); none: a random key of 128 bits. Tests fix it to build
  /// keys that share a signature.
  std::optional<std::uint64_t> key_seed;
  /// The key hash's 128-bit key (key_hasher::key_words): set by the engine,
  /// from key_seed or at random, so that the routing and every shard hash
  /// alike.
  std::array<std::uint64_t, 2> key_hash_key{};
};

}  // namespace gpuhash::server::engine
