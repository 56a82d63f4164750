// sharded.scaling on the CUDA backend: a GPU per shard, NCCL between them
// (nccl_exchange; built when the bench links gpuhash::nccl). Plain C++: the
// sharded map's per-device steps and the tables' kernels are in the library.

#include "gpuhash/nccl_exchange.hpp"
#include "scaling_runs_impl.hpp"

namespace gpuhash::bench {
template void run_sharded_scaling<nccl_exchange>(context&);
}  // namespace gpuhash::bench
