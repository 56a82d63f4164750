// The CUDA backend's linear probing and dynamic HashGraph maps of
// key_type_maps.hpp, header-only: their engines' kernels are compiled here,
// by nvcc.

#include "backends.hpp"
#include "cuda_support.hpp"
#include "gpuhash/hashgraph_dynamic_map_impl.hpp"
#include "gpuhash/linear_probing_map_impl.hpp"
#include "key_type_maps.hpp"
#include "map_model.hpp"

namespace gpuhash::python {

std::unique_ptr<map_interface> make_cuda_key_type_map(std::string_view design, item_widths widths,
                                                      const table_options& options, int ordinal) {
  return find_map<cuda_backend>(linear_probing_and_hashgraph_maps{}, design, widths, options,
                                ordinal);
}

}  // namespace gpuhash::python
