// The CPU backend's linear probing and dynamic HashGraph maps of
// key_type_maps.hpp, header-only: their engines are compiled here.

#include "backends.hpp"
#include "gpuhash/hashgraph_dynamic_map_impl.hpp"
#include "gpuhash/linear_probing_map_impl.hpp"
#include "key_type_maps.hpp"
#include "map_model.hpp"

namespace gpuhash::python {

std::unique_ptr<map_interface> make_cpu_key_type_map(std::string_view design, item_widths widths,
                                                     const table_options& options) {
  return find_map<cpu_backend>(linear_probing_and_hashgraph_maps{}, design, widths, options, 0);
}

}  // namespace gpuhash::python
