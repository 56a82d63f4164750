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

const access_limits& context::measured_limits(std::uint64_t bytes) {
#if defined(GPUHASH_HAS_CUDA)
  constexpr std::uint64_t step = std::uint64_t{256} << 20;
  const std::uint64_t rounded = std::max(step, (bytes + step - 1) / step * step);
  auto it = limits_.find(rounded);
  if (it == limits_.end()) {
    std::cerr << "measuring random-access limits of " << cuda_backend::device_name() << " over "
              << (rounded >> 20) << " MB ...\n";
    it = limits_.emplace(rounded, measure_limits(5, rounded)).first;
  }
  return it->second;
#else
  (void)bytes;
  throw std::logic_error("measured_limits needs the CUDA backend");
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
