#pragma once
// The tables of each backend, made where that backend is compiled: the CPU
// ones in tables_cpu.cpp and key_type_maps{,_bucketed_cuckoo}_cpu.cpp, the
// CUDA ones in tables_cuda.cpp (the library's precompiled maps, plain C++),
// key_type_maps{,_bucketed_cuckoo}_cuda.cu and static_hashgraph_cuda.cu
// (header-only tables, nvcc). Each returns null when it has no table of that
// name and width.

#include <memory>
#include <string_view>

#include "tables.hpp"

namespace gpuhash::python {

/// The registry's maps (support/designs.hpp), precompiled in the library.
std::unique_ptr<map_interface> make_cpu_map(std::string_view design, item_widths widths,
                                            const table_options& options);
/// The linear probing and dynamic HashGraph maps of key_type_maps.hpp.
std::unique_ptr<map_interface> make_cpu_key_type_map(std::string_view design, item_widths widths,
                                                     const table_options& options);
/// The bucketed cuckoo maps of key_type_maps.hpp.
std::unique_ptr<map_interface> make_cpu_bucketed_cuckoo_key_type_map(std::string_view design,
                                                                     item_widths widths,
                                                                     const table_options& options);
std::unique_ptr<string_map_interface> make_cpu_string_map(int value_bits,
                                                          const table_options& options,
                                                          std::size_t arena_bytes);
std::unique_ptr<static_map_interface> make_cpu_static_map(int bits);
std::unique_ptr<static_set_interface> make_cpu_static_set(int bits);

std::unique_ptr<map_interface> make_cuda_map(std::string_view design, item_widths widths,
                                             const table_options& options, int ordinal);
std::unique_ptr<map_interface> make_cuda_key_type_map(std::string_view design, item_widths widths,
                                                      const table_options& options, int ordinal);
std::unique_ptr<map_interface> make_cuda_bucketed_cuckoo_key_type_map(std::string_view design,
                                                                      item_widths widths,
                                                                      const table_options& options,
                                                                      int ordinal);
std::unique_ptr<string_map_interface> make_cuda_string_map(int value_bits,
                                                           const table_options& options,
                                                           std::size_t arena_bytes, int ordinal);
std::unique_ptr<static_map_interface> make_cuda_static_map(int bits, int ordinal);
std::unique_ptr<static_set_interface> make_cuda_static_set(int bits, int ordinal);
bool cuda_device_usable();

}  // namespace gpuhash::python
