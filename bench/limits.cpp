#include "limits.hpp"

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

}  // namespace gpuhash::bench
