// The server's index factory (index_factory.hpp).

#include "index/index_factory.hpp"

#include <cstdio>
#include <exception>
#include <optional>
#include <random>
#include <utility>

#include "index/cpu_calibration.hpp"

namespace gpuhash::server::index {

std::uint64_t random_seed() {
  std::random_device device;
  return (std::uint64_t{device()} << 32) ^ device();
}

std::unique_ptr<index_service> make_server_index(placement where, std::uint64_t seed,
                                                 std::uint64_t resident_lifetime_us) {
  const bool want_gpu =
      where == placement::gpu || (where == placement::automatic && gpu_available());
  if (want_gpu) {
    try {
      return make_gpu_index(initial_capacity, seed, resident_lifetime_us);
    } catch (const std::exception& error) {
      if (where == placement::gpu) throw;  // asked for by name: refuse to start
      std::fprintf(stderr,
                   "gpuhash-server: ERROR: the GPU index could not be created (%s); the index "
                   "is on the CPU\n",
                   error.what());
    }
  }
  return make_cpu_index(initial_capacity, seed);
}

index_factory server_index(placement where, std::uint64_t resident_lifetime_us,
                           auto_settings automatic) {
  // The calibration is shared by the shards, and made once (the engine
  // makes its shards' indexes one after the other).
  auto key_cost = std::make_shared<std::optional<key_cost_curve>>();
  return [where, resident_lifetime_us, automatic, key_cost](std::size_t shard) {
    const std::uint64_t seed = random_seed();
    std::unique_ptr<index_service> service = make_server_index(where, seed, resident_lifetime_us);
    automatic_placement moving;
    if (where == placement::automatic && service->on_device()) {
      if (!*key_cost) *key_cost = calibrate_cpu_index(automatic.shard_entries);
      moving.make_device = [resident_lifetime_us](std::size_t capacity, std::uint64_t same_seed) {
        return make_gpu_index(capacity, same_seed, resident_lifetime_us);
      };
      moving.policy = std::make_unique<placement_rule>(automatic.rule, **key_cost, index_site::gpu);
      moving.log_moves = automatic.log_moves;
      moving.shard = shard;
    }
    return std::make_unique<index_port>(std::move(service), seed, std::move(moving));
  };
}

}  // namespace gpuhash::server::index
