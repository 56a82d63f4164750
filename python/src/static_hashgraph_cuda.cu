// HashGraph's static map and set on the CUDA backend for Python (nvcc: the
// tables are header-only).

#include "backends.hpp"
#include "cuda_support.hpp"
#include "static_hashgraph_model.hpp"

namespace gpuhash::python {

std::unique_ptr<static_map_interface> make_cuda_static_map(int bits, int ordinal) {
  return make_static_map_on<cuda_backend>(bits, ordinal);
}

std::unique_ptr<static_set_interface> make_cuda_static_set(int bits, int ordinal) {
  return make_static_set_on<cuda_backend>(bits, ordinal);
}

}  // namespace gpuhash::python
