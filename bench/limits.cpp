#include "limits.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

#include "gpuhash/cpu/backend.hpp"
#include "timer.hpp"

namespace gpuhash::bench {

const access_limit* find_access_limit(std::string_view name) {
  for (const access_limit& limit : access_limits)
    if (limit.name == name) return &limit;
  return nullptr;
}

std::uint64_t limit_buffer_bytes(std::uint64_t table_bytes) {
  constexpr std::uint64_t smallest = std::uint64_t{1} << 20;
  if (table_bytes <= smallest) return smallest;
  // A quarter of the largest power of two not above the size: the steps
  // between one power of two and the next.
  const std::uint64_t step = std::bit_floor(table_bytes) / 4;
  return (table_bytes + step - 1) / step * step;
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
