#pragma once
// How each shard of the engine gets its index. The engine is given a
// factory rather than choosing itself, so that tests give it theirs (an
// index that fails on purpose, one that gives its statuses late on any
// machine: tests/server/support/) through the same port as the server's.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "index/index_port.hpp"
#include "index/placement.hpp"

namespace gpuhash::server::index {

/// Makes the index port of shard `shard`.
using index_factory = std::function<std::unique_ptr<index_port>(std::size_t shard)>;

/// The server's: each shard's index where `where` says, its entries placed in
/// buckets under a seed drawn at random per shard (the keys' signatures come
/// hashed by the routing: engine/key_hash.hpp). `resident_lifetime_us` (0: the default) is how
/// long the GPU index's resident kernels live (gpu_resident.cuh). With
/// placement::automatic and a usable GPU, each index starts on the GPU and
/// moves between it and the CPU as the load calls for (`automatic`); the
/// CPU index's cost of a key is calibrated once, when the first shard's
/// index is made.
index_factory server_index(placement where, std::uint64_t resident_lifetime_us = 0,
                           auto_settings automatic = {});

/// The service server_index drives for one shard: on the GPU as `where`
/// says (with a message, on the CPU, when an automatic GPU index cannot be
/// made; an error when one asked for by name cannot), else on the CPU.
std::unique_ptr<index_service> make_server_index(placement where, std::uint64_t seed,
                                                 std::uint64_t resident_lifetime_us = 0);
/// A seed drawn at random, for an index's key hash.
std::uint64_t random_seed();

/// The capacity a shard's index starts with (it grows by itself).
inline constexpr std::size_t initial_capacity = std::size_t{1} << 16;

}  // namespace gpuhash::server::index
