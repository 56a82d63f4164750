// The server's index factory (index_factory.hpp).

#include "index/index_factory.hpp"

#include <cstdio>
#include <exception>
#include <random>
#include <utility>

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

index_factory server_index(placement where, std::uint64_t resident_lifetime_us) {
  return [where, resident_lifetime_us](std::size_t) {
    const std::uint64_t seed = random_seed();
    return std::make_unique<index_port>(make_server_index(where, seed, resident_lifetime_us), seed);
  };
}

}  // namespace gpuhash::server::index
