// The CPU backend's bucketed cuckoo maps of key_type_maps.hpp, header-only:
// their engines are compiled here, beside key_type_maps_cpu.cpp's.

#include "backends.hpp"
#include "gpuhash/bucketed_cuckoo_map_impl.hpp"
#include "key_type_maps.hpp"
#include "map_model.hpp"

namespace gpuhash::python {

std::unique_ptr<map_interface> make_cpu_bucketed_cuckoo_key_type_map(std::string_view design,
                                                                     item_widths widths,
                                                                     const table_options& options) {
  return find_map<cpu_backend>(bucketed_cuckoo_key_type_maps{}, design, widths, options, 0);
}

}  // namespace gpuhash::python
