// cnh.fig12's node sizes besides the library's (cuckoo_node_variants.hpp), on
// the CPU backend.

#include <cstdint>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/cuckoo_node_map_impl.hpp"

GPUHASH_INSTANTIATE_CUCKOO_NODE_MAP(std::uint32_t, std::uint32_t, gpuhash::cpu_backend,
                                    gpuhash::cuckoo_node_preset<8>);
GPUHASH_INSTANTIATE_CUCKOO_NODE_MAP(std::uint32_t, std::uint32_t, gpuhash::cpu_backend,
                                    gpuhash::cuckoo_node_preset<16>);
GPUHASH_INSTANTIATE_CUCKOO_NODE_MAP(std::uint32_t, std::uint32_t, gpuhash::cpu_backend,
                                    gpuhash::cuckoo_node_preset<64>);
GPUHASH_INSTANTIATE_CUCKOO_NODE_MAP(std::uint32_t, std::uint32_t, gpuhash::cpu_backend,
                                    gpuhash::cuckoo_node_preset<256>);
