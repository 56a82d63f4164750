// sharded.scaling: one table over G shards (docs/designs/sharded.md)
// against one table of its design and against the all-to-all its batches
// need (bench/sharded/scaling_runs.hpp; docs/results/sharded.md).

#include <stdexcept>

#include "../sharded/scaling_runs.hpp"
#include "experiments.hpp"

namespace gpuhash::bench {

experiment sharded_scaling_experiment() {
  return {"sharded.scaling",
          "the sharded map over G GPUs (NCCL) or, on the CPU, G host-thread shards: insert / "
          "find-hit / find-miss of n keys all on GPU 0 (--inputs=one) or a part on each GPU "
          "(spread), against one table of the design on GPU 0 and against NCCL's all-to-all of "
          "the same bytes, timed on the same GPUs (--gpus=1,2,4: larger than the GPUs present "
          "are skipped; --n: 2^26,2^28 GPU, 2^20 CPU; --load=0.8, --key-bits=32,64, "
          "--design=bucketed_cuckoo, --dist, --backend, --reps); --capacity: instead, one map "
          "per G filled with n keys in spread batches of --batch keys (2^28 GPU, 2^16 CPU), "
          "its size checked, every key found in batches and one batch of absent keys looked "
          "for, with each GPU's table memory",
          [](context& ctx) {
            for (const auto& backend : ctx.backends()) {
              if (backend == "cpu") run_sharded_scaling<host_exchange>(ctx);
              if (backend == "cuda") {
#if defined(GPUHASH_HAS_NCCL)
                run_sharded_scaling<nccl_exchange>(ctx);
#else
                throw std::invalid_argument(
                    "sharded.scaling on cuda needs gpuhash-bench built with NCCL, and CMake "
                    "found none: set GPUHASH_NCCL_ROOT to NCCL's folder (the nvidia-nccl-cu13 "
                    "wheel's nvidia/nccl) and configure again (docs/designs/sharded.md)");
#endif
              }
            }
          }};
}

}  // namespace gpuhash::bench
