// Choosing a table by name, width and device (tables.hpp).

#include "tables.hpp"

#include <algorithm>
#include <stdexcept>

#include "backends.hpp"
#include "device_refs.hpp"
#include "key_type_maps.hpp"
#include "support/designs.hpp"

namespace gpuhash::python {

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

/// Why `design` has no map of `widths`, and which designs have one.
std::string no_such_widths(std::string_view design, item_widths widths) {
  std::vector<std::string> designs;
  std::vector<std::string> pairs;
  for (const auto& shape : map_shapes()) {
    const std::string pair =
        std::to_string(shape.widths.key) + "/" + std::to_string(shape.widths.value);
    if (shape.design == design && std::find(pairs.begin(), pairs.end(), pair) == pairs.end())
      pairs.push_back(pair);
    if (shape.widths.key == widths.key && shape.widths.value == widths.value &&
        std::find(designs.begin(), designs.end(), shape.design) == designs.end())
      designs.push_back(shape.design);
  }
  const std::string asked = std::to_string(widths.key) + "-byte keys with " +
                            std::to_string(widths.value) + "-byte values";
  return "gpuhash: the design '" + std::string(design) + "' takes no " + asked +
         " (it takes key/value bytes " + joined(pairs) + "); " +
         (designs.empty() ? "no design takes them"
                          : "the designs that take them: " + joined(designs));
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
    const std::string name(shape_of<Design>().design);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  });
  return names;
}

std::vector<map_shape> map_shapes() {
  std::vector<map_shape> shapes;
  const auto add = [&]<class Design>() {
    const design_shape shape = shape_of<Design>();
    shapes.push_back({std::string(shape.design), shape.widths});
  };
  support::for_each_type(support::registered_designs{}, add);
  support::for_each_type(key_type_maps{}, add);
  return shapes;
}

std::vector<ref_type_info> ref_types() {
  std::vector<ref_type_info> types;
  const auto add = [&]<class Design>() {
    using map_type = typename Design::template on<cpu_backend>;
    if constexpr (has_named_ref<map_type>) types.push_back(named_ref_type<map_type>());
  };
  support::for_each_type(support::registered_designs{}, add);
  support::for_each_type(key_type_maps{}, add);
  return types;
}

std::unique_ptr<map_interface> make_map(std::string_view design, item_widths widths,
                                        device_spec device, const table_options& options) {
  const auto names = design_names();
  if (std::find(names.begin(), names.end(), design) == names.end())
    throw std::invalid_argument("gpuhash: no design named '" + std::string(design) +
                                "'; the designs are " + joined(names));
  std::unique_ptr<map_interface> map;
  if (device.kind == device_kind::cpu) {
    map = make_cpu_map(design, widths, options);
    if (!map) map = make_cpu_key_type_map(design, widths, options);
    if (!map) map = make_cpu_bucketed_cuckoo_key_type_map(design, widths, options);
  } else {
#if defined(GPUHASH_HAS_CUDA)
    require_gpu();
    map = make_cuda_map(design, widths, options, device.ordinal);
    if (!map) map = make_cuda_key_type_map(design, widths, options, device.ordinal);
    if (!map) map = make_cuda_bucketed_cuckoo_key_type_map(design, widths, options, device.ordinal);
#else
    no_cuda();
#endif
  }
  if (!map) throw std::invalid_argument(no_such_widths(design, widths));
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
