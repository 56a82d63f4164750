// The CPU backend's tables for Python.

#include "backends.hpp"
#include "map_model.hpp"
#include "static_hashgraph_model.hpp"
#include "string_map_model.hpp"

namespace gpuhash::python {

std::unique_ptr<map_interface> make_cpu_map(std::string_view design, item_widths widths,
                                            const table_options& options) {
  return find_map<cpu_backend>(support::registered_designs{}, design, widths, options, 0);
}

std::unique_ptr<string_map_interface> make_cpu_string_map(int value_bits,
                                                          const table_options& options,
                                                          std::size_t arena_bytes) {
  return make_string_map_on<cpu_backend>(value_bits, options, arena_bytes, 0);
}

std::unique_ptr<static_map_interface> make_cpu_static_map(int bits) {
  return make_static_map_on<cpu_backend>(bits, 0);
}

std::unique_ptr<static_set_interface> make_cpu_static_set(int bits) {
  return make_static_set_on<cpu_backend>(bits, 0);
}

}  // namespace gpuhash::python
