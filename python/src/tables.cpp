// Choosing a table by name, width and device (tables.hpp).

#include "tables.hpp"

#include <algorithm>
#include <stdexcept>

#include "backends.hpp"
#include "gpuhash/cpu/backend.hpp"
#include "support/designs.hpp"

namespace gpuhash::python {

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

void require_width(int bits, const char* what) {
  if (bits != 32 && bits != 64)
    throw std::invalid_argument(std::string("gpuhash: ") + what +
                                " takes 32- or 64-bit keys and values, got " +
                                std::to_string(bits) + " bits");
}

#if defined(GPUHASH_HAS_CUDA)
void require_gpu() {
  if (!cuda_device_usable())
    throw std::runtime_error(
        "gpuhash: no CUDA GPU can be used here (no device, or no driver for this CUDA "
        "runtime): use device='cpu'");
}
#else
[[noreturn]] void no_cuda() {
  throw std::invalid_argument(
      "gpuhash: this build has no CUDA backend (nvcc was not found when it was built, or "
      "GPUHASH_CUDA=OFF): use device='cpu', or rebuild with the CUDA toolkit on the PATH");
}
#endif

}  // namespace

std::vector<std::string> design_names() {
  std::vector<std::string> names;
  support::for_each_type(support::registered_designs{}, [&]<class Design>() {
    const std::string name(Design::template on<cpu_backend>::design_name);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  });
  return names;
}

std::unique_ptr<map_interface> make_map(std::string_view design, int bits, device_spec device,
                                        const table_options& options) {
  require_width(bits, "Map");
  std::unique_ptr<map_interface> map;
  if (device.kind == device_kind::cpu) {
    map = make_cpu_map(design, bits, options);
  } else {
#if defined(GPUHASH_HAS_CUDA)
    require_gpu();
    map = make_cuda_map(design, bits, options, device.ordinal);
#else
    no_cuda();
#endif
  }
  if (!map)
    throw std::invalid_argument("gpuhash: no design named '" + std::string(design) +
                                "'; the designs are " + joined(design_names()));
  return map;
}

std::unique_ptr<string_map_interface> make_string_map(int value_bits, device_spec device,
                                                      const table_options& options,
                                                      std::size_t arena_bytes) {
  require_width(value_bits, "StringMap");
  if (device.kind == device_kind::cpu) return make_cpu_string_map(value_bits, options, arena_bytes);
#if defined(GPUHASH_HAS_CUDA)
  require_gpu();
  return make_cuda_string_map(value_bits, options, arena_bytes, device.ordinal);
#else
  no_cuda();
#endif
}

std::unique_ptr<static_map_interface> make_static_map(int bits, device_spec device) {
  require_width(bits, "HashGraphMap");
  if (device.kind == device_kind::cpu) return make_cpu_static_map(bits);
#if defined(GPUHASH_HAS_CUDA)
  require_gpu();
  return make_cuda_static_map(bits, device.ordinal);
#else
  no_cuda();
#endif
}

std::unique_ptr<static_set_interface> make_static_set(int bits, device_spec device) {
  require_width(bits, "HashGraphSet");
  if (device.kind == device_kind::cpu) return make_cpu_static_set(bits);
#if defined(GPUHASH_HAS_CUDA)
  require_gpu();
  return make_cuda_static_set(bits, device.ordinal);
#else
  no_cuda();
#endif
}

#if defined(GPUHASH_HAS_CUDA)
bool built_with_cuda() {
  return true;
}
bool cuda_available() {
  return cuda_device_usable();
}
#else
bool built_with_cuda() {
  return false;
}
bool cuda_available() {
  return false;
}
#endif

}  // namespace gpuhash::python
