#include "limits.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "gpuhash/cpu/backend.hpp"
#include "timer.hpp"

namespace gpuhash::bench {

double access_limits::by_name(std::string_view name) const {
  if (name == "random_read_32") return random_read_32;
  if (name == "random_read_64") return random_read_64;
  if (name == "random_read_128") return random_read_128;
  if (name == "two_reads_64") return two_reads_64;
  if (name == "cas_8") return cas_8;
  if (name == "read_then_cas") return read_then_cas;
  if (name == "read_then_cas_write") return read_then_cas_write;
  return 0;
}

std::optional<access_limits> reference_limits(const std::string& device_name) {
  // Measured in 2026-11 on these machines: random accesses over 2^26 keys,
  // buffers far larger than L2 (docs/results/limits.md has the H200's runs).
  if (device_name.find("H200") != std::string::npos)
    return access_limits{36.7, 36.7, 26.9, 18.5, 16.0, 13.8, 0};
  if (device_name.find("H100") != std::string::npos)
    return access_limits{29.6, 29.6, 21.0, 15.1, 13.6, 10.9, 0};
  return std::nullopt;
}

copy_limit measure_cpu_copy(int repetitions, std::uint64_t buffer_bytes) {
  auto source = cpu_backend::allocate<unsigned char>(buffer_bytes);
  auto destination = cpu_backend::allocate<unsigned char>(buffer_bytes);
  // Written first by the pool, as the copy's threads will write them (each
  // page's first touch decides its NUMA node).
  cpu_backend::fill_bytes(source.data(), buffer_bytes, 0x5a);
  cpu_backend::fill_bytes(destination.data(), buffer_bytes, 0);
  constexpr std::uint64_t chunk = std::uint64_t{1} << 20;  // a share of one memcpy
  const auto copy = [&] {
    cpu::thread_pool::shared().parallel_for(
        (buffer_bytes + chunk - 1) / chunk, [&](std::uint64_t begin, std::uint64_t end) {
          const std::uint64_t first = begin * chunk;
          const std::uint64_t last = std::min(end * chunk, buffer_bytes);
          std::memcpy(destination.data() + first, source.data() + first, last - first);
        });
  };
  step_timer<cpu_backend> timer;
  timer.time(copy);  // warm-up
  std::vector<double> ms;
  for (int r = 0; r < repetitions; ++r) ms.push_back(timer.time(copy));
  return {static_cast<double>(buffer_bytes) / (median(ms) * 1e-3), buffer_bytes};
}

}  // namespace gpuhash::bench
