// sharded.scaling on the CPU backend: shards on host threads (host_exchange).

#include "gpuhash/host_exchange.hpp"
#include "scaling_runs_impl.hpp"

namespace gpuhash::bench {
template void run_sharded_scaling<host_exchange>(context&);
}  // namespace gpuhash::bench
