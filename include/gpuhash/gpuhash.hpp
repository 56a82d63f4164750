#pragma once
// Everything public in one include. The CUDA backend is included when the
// library was built with it (the gpuhash::cuda target defines GPUHASH_HAS_CUDA),
// the NCCL exchange when with NCCL (gpuhash::nccl defines GPUHASH_HAS_NCCL).

#include "gpuhash/apply_ops.hpp"
#include "gpuhash/bucketed_cuckoo_config.hpp"
#include "gpuhash/bucketed_cuckoo_map.hpp"
#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/cuckoo_node_config.hpp"
#include "gpuhash/cuckoo_node_map.hpp"
#include "gpuhash/dachash_config.hpp"
#include "gpuhash/dachash_map.hpp"
#include "gpuhash/errors.hpp"
#include "gpuhash/hash.hpp"
#include "gpuhash/hashgraph_dynamic_map.hpp"
#include "gpuhash/host_exchange.hpp"
#include "gpuhash/key_hash.hpp"
#include "gpuhash/linear_probing_map.hpp"
#include "gpuhash/local_linear_probing.hpp"
#include "gpuhash/map.hpp"
#include "gpuhash/map_ref.hpp"
#include "gpuhash/operation.hpp"
#include "gpuhash/reorder_scheme.hpp"
#include "gpuhash/shard_exchange.hpp"
#include "gpuhash/shard_placement.hpp"
#include "gpuhash/sharded_map.hpp"
#include "gpuhash/signature_index.hpp"
#include "gpuhash/signature_index_ref.hpp"
#include "gpuhash/status.hpp"
#include "gpuhash/status_counts.hpp"
#include "gpuhash/string_map.hpp"
#include "gpuhash/table_options.hpp"

#if defined(GPUHASH_HAS_CUDA)
#include "gpuhash/cuda/backend.hpp"
#endif
#if defined(GPUHASH_HAS_NCCL)
#include "gpuhash/nccl_exchange.hpp"
#endif
