#include "experiment.hpp"

#include <algorithm>
#include <iostream>
#include <stdexcept>

#include "gpuhash/cpu/backend.hpp"
#if defined(GPUHASH_HAS_CUDA)
#include "gpuhash/cuda/backend.hpp"
#endif

namespace gpuhash::bench {

void context::emit(const std::string& line) {
  if (json_ != nullptr) *json_ << line << '\n' << std::flush;
}

std::vector<std::string> context::backends() const {
  std::vector<std::string> available{"cpu"};
#if defined(GPUHASH_HAS_CUDA)
  if (cuda_backend::available()) available.push_back("cuda");
#endif
  const auto chosen = arguments_.list("backend", available);
  for (const auto& name : chosen) {
    if (std::find(available.begin(), available.end(), name) == available.end())
      throw std::invalid_argument("backend '" + name + "' is not available here (built: cpu" +
#if defined(GPUHASH_HAS_CUDA)
                                  std::string(", cuda if a GPU is present") +
#else
                                  std::string(", cuda not built") +
#endif
                                  ")");
  }
  return chosen;
}

bool context::selected_design(std::string_view design,
                              const std::vector<std::string>& fallback) const {
  const auto chosen = arguments_.list("design", fallback);
  return std::find(chosen.begin(), chosen.end(), "all") != chosen.end() ||
         std::find(chosen.begin(), chosen.end(), std::string(design)) != chosen.end();
}

bool context::selected_width(int key_bits, const std::vector<std::string>& fallback) const {
  const auto widths = arguments_.list("key-bits", fallback);
  return std::find(widths.begin(), widths.end(), std::to_string(key_bits)) != widths.end();
}

const access_measurement& context::measured_limit(std::string_view name,
                                                  std::uint64_t table_bytes) {
#if defined(GPUHASH_HAS_CUDA)
  const access_limit* limit = find_access_limit(name);
  if (limit == nullptr)
    throw std::invalid_argument("no access limit named '" + std::string(name) + "'");
  // A limit in L2 is one buffer size whatever the table's.
  const std::uint64_t buffer =
      limit->footprint == limit_footprint::l2 ? 0 : limit_buffer_bytes(table_bytes);
  auto it = limits_.find({std::string(name), buffer});
  if (it == limits_.end()) {
    std::cerr << "measuring " << name << " on " << cuda_backend::device_name();
    if (buffer != 0) std::cerr << " over " << (buffer >> 20) << " MiB";
    std::cerr << " ...\n";
    it = limits_
             .emplace(std::pair{std::string(name), buffer},
                      measure_access_limit(name, table_bytes, 5))
             .first;
  }
  return it->second;
#else
  (void)name;
  (void)table_bytes;
  throw std::logic_error("measured_limit needs the CUDA backend");
#endif
}

namespace {
copy_limit measure_copy(const std::string& backend, int repetitions) {
#if defined(GPUHASH_HAS_CUDA)
  if (backend == "cuda") return measure_cuda_copy(repetitions);
#endif
  if (backend == "cpu") return measure_cpu_copy(repetitions);
  throw std::invalid_argument("no copy limit for backend '" + backend + "'");
}
}  // namespace

const copy_limit& context::measured_copy(const std::string& backend) {
  auto it = copies_.find(backend);
  if (it == copies_.end()) {
    std::cerr << "measuring the copy bandwidth of the " << backend << " backend ...\n";
    it = copies_.emplace(backend, measure_copy(backend, 5)).first;
  }
  return it->second;
}

}  // namespace gpuhash::bench
