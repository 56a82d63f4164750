#pragma once
// The tables of each backend, made where that backend is compiled: the CPU
// ones in tables_cpu.cpp, the CUDA ones in tables_cuda.cpp (maps, plain C++)
// and static_hashgraph_cuda.cu (HashGraph's header-only tables, nvcc). Each
// returns null when it has no table of that name and width.

#include <memory>
#include <string_view>

#include "tables.hpp"

namespace gpuhash::python {

std::unique_ptr<map_interface> make_cpu_map(std::string_view design, int bits,
                                            const table_options& options);
std::unique_ptr<string_map_interface> make_cpu_string_map(int value_bits,
                                                          const table_options& options,
                                                          std::size_t arena_bytes);
std::unique_ptr<static_map_interface> make_cpu_static_map(int bits);
std::unique_ptr<static_set_interface> make_cpu_static_set(int bits);

std::unique_ptr<map_interface> make_cuda_map(std::string_view design, int bits,
                                             const table_options& options, int ordinal);
std::unique_ptr<string_map_interface> make_cuda_string_map(int value_bits,
                                                           const table_options& options,
                                                           std::size_t arena_bytes, int ordinal);
std::unique_ptr<static_map_interface> make_cuda_static_map(int bits, int ordinal);
std::unique_ptr<static_set_interface> make_cuda_static_set(int bits, int ordinal);
bool cuda_device_usable();

}  // namespace gpuhash::python
