// The CUDA backend's maps and string maps for Python. Plain C++: the
// engines' kernels are in the library (gpuhash::cuda).

#include "backends.hpp"
#include "cuda_support.hpp"
#include "map_model.hpp"
#include "string_map_model.hpp"

namespace gpuhash::python {

std::unique_ptr<map_interface> make_cuda_map(std::string_view design, int bits,
                                             const table_options& options, int ordinal) {
  return find_registered_map<cuda_backend>(design, bits, options, ordinal);
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
