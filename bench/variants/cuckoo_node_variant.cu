// cnh.fig12's node sizes besides the library's (cuckoo_node_variants.hpp), on
// the CUDA backend.

#include <cstdint>

#include "gpuhash/cuckoo_node_map_impl.hpp"
#include "gpuhash/cuda/backend.hpp"

GPUHASH_INSTANTIATE_CUCKOO_NODE_MAP(std::uint32_t, std::uint32_t, gpuhash::cuda_backend,
                                    gpuhash::cuckoo_node_preset<8>);
GPUHASH_INSTANTIATE_CUCKOO_NODE_MAP(std::uint32_t, std::uint32_t, gpuhash::cuda_backend,
                                    gpuhash::cuckoo_node_preset<16>);
GPUHASH_INSTANTIATE_CUCKOO_NODE_MAP(std::uint32_t, std::uint32_t, gpuhash::cuda_backend,
                                    gpuhash::cuckoo_node_preset<64>);
GPUHASH_INSTANTIATE_CUCKOO_NODE_MAP(std::uint32_t, std::uint32_t, gpuhash::cuda_backend,
                                    gpuhash::cuckoo_node_preset<256>);
