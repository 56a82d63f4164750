// The CUDA backend's bucketed cuckoo maps of key_type_maps.hpp, header-only:
// their engines' kernels are compiled here, by nvcc, beside
// key_type_maps_cuda.cu's.

#include "backends.hpp"
#include "cuda_support.hpp"
#include "gpuhash/bucketed_cuckoo_map_impl.hpp"
#include "key_type_maps.hpp"
#include "map_model.hpp"

namespace gpuhash::python {

std::unique_ptr<map_interface> make_cuda_bucketed_cuckoo_key_type_map(std::string_view design,
                                                                      item_widths widths,
                                                                      const table_options& options,
                                                                      int ordinal) {
  return find_map<cuda_backend>(bucketed_cuckoo_key_type_maps{}, design, widths, options, ordinal);
}

}  // namespace gpuhash::python
