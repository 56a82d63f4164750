#pragma once
// sharded.scaling (bench/experiments/sharded.cpp): the sharded map
// (docs/designs/sharded.md) of a design over G shards against one table of
// the design, and against the all-to-all that its batches need
// (all_to_all_limit.hpp). For each design and width selected, n and load:
// one table on the first device, then for each G a sharded map over the
// first G devices, fed from shard 0 ("one") and, for G >= 2, one part per
// shard ("spread"); insert, find of the present keys, find of absent keys.
// The benchmark skeleton of basic_ops.hpp: fresh distinct keys per
// repetition, the table cleared outside the timed region, one warm-up then
// the median of >= 5, every status and found value checked after timing.
// Each call is timed by the host's wall clock: the sharded map's calls are
// synchronous and their work runs on every shard's device and on the host
// between steps (scaling_runs_impl.hpp says more). With --capacity, a
// capacity run per G instead: one map filled with n keys in spread batches
// of a bounded size, then every key found (capacity_run.hpp).
//
// One runner over the exchange (scaling_runs_impl.hpp), compiled for
// host_exchange (scaling_runs_cpu.cpp: shards on host threads, which lets
// the experiment run without a GPU) and, in a build with NCCL, for
// nccl_exchange (scaling_runs_nccl.cpp: a GPU per shard).

#include "../experiment.hpp"
#include "gpuhash/host_exchange.hpp"
#if defined(GPUHASH_HAS_NCCL)
#include "gpuhash/nccl_exchange.hpp"
#endif

namespace gpuhash::bench {

/// sharded.scaling over shards of one kind of exchange.
template <class Exchange>
void run_sharded_scaling(context& ctx);

extern template void run_sharded_scaling<host_exchange>(context&);
#if defined(GPUHASH_HAS_NCCL)
extern template void run_sharded_scaling<nccl_exchange>(context&);
#endif

}  // namespace gpuhash::bench
