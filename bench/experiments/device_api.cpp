// The device API (docs/device_api.md): tables used from kernels of the
// benchmark's own through their refs, against the same tables' bulk calls,
// and the group-by that insert_or_apply is for
// (bench/device_api/ref_runs.hpp).
//   device_api.ref_vs_bulk  insert, find-hit, find-miss: bulk against ref
//                           (--n, --load, --design, --key-bits, --backend)
//   device_api.group_by     rows into groups with insert_or_apply
//                           (--n rows, --groups, --load of the table at the
//                           end, --design, --backend), as
//                           ../shared/peers/drivers/cuco_ops_bench.cu
//                           measures cuCollections' static_map

#include "../device_api/ref_runs.hpp"
#include "../sweep.hpp"
#include "experiments.hpp"

namespace gpuhash::bench {

std::vector<experiment> device_api_experiments() {
  return {
      {"device_api.ref_vs_bulk",
       "insert / find-hit / find-miss by a kernel calling the ref per key against the bulk calls, "
       "and the ref inserts' retry of `full` keys (--n, --load, --design, --key-bits, --backend)",
       [](context& ctx) {
         for_each_backend(ctx, [&]<class Backend>() { run_ref_vs_bulk<Backend>(ctx); });
       }},
      {"device_api.group_by",
       "group-by sum with insert_or_apply: gpuhash::plus (atomic add) and a compare-and-swap "
       "loop (--n rows, --groups, --load, --design, --backend)",
       [](context& ctx) {
         for_each_backend(ctx, [&]<class Backend>() { run_group_by<Backend>(ctx); });
       }},
  };
}

}  // namespace gpuhash::bench
