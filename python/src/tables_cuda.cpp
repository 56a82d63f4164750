// The CUDA backend's maps for Python. Plain C++: the engines' kernels are in
// the library (gpuhash::cuda).

#include "backends.hpp"
#include "cuda_support.hpp"
#include "map_model.hpp"

namespace gpuhash::python {

std::unique_ptr<map_interface> make_cuda_map(std::string_view design, int bits,
                                             const table_options& options, int ordinal) {
  return find_registered_map<cuda_backend>(design, bits, options, ordinal);
}

bool cuda_device_usable() {
  return cuda_backend::available();
}

}  // namespace gpuhash::python
