// The CUDA backend's precompiled maps and string maps for Python. Plain C++:
// the engines' kernels are in the library (gpuhash::cuda). The header-only
// maps are in key_type_maps_cuda.cu.

#include "backends.hpp"
#include "cuda_support.hpp"
#include "map_model.hpp"
#include "string_map_model.hpp"

namespace gpuhash::python {

std::unique_ptr<map_interface> make_cuda_map(std::string_view design, item_widths widths,
                                             const table_options& options, int ordinal) {
  return find_map<cuda_backend>(support::registered_designs{}, design, widths, options, ordinal);
}

std::unique_ptr<string_map_interface> make_cuda_string_map(int value_bits,
                                                           const table_options& options,
                                                           std::size_t arena_bytes, int ordinal) {
  return make_string_map_on<cuda_backend>(value_bits, options, arena_bytes, ordinal);
}

bool cuda_device_usable() {
  return cuda_backend::available();
}

}  // namespace gpuhash::python
