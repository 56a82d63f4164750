// lf_sweep: insert, find-hit, find-miss and erase rates against the load
// factor, for every registered design on every backend (and the CPU reference
// maps). demo: the same at two loads, sized to finish in seconds.

#include <cstdint>

#include "../sweep.hpp"
#include "experiments.hpp"

namespace gpuhash::bench {

experiment lf_sweep_experiment() {
  return {
      "lf_sweep",
      "insert / find-hit / find-miss / erase vs load factor 0.5..0.95, every design and backend "
      "(--n, --load, --key-bits, --dist=uniform|dense, --design, --backend, --reps)",
      [](context& ctx) {
        run_basic_sweep(ctx, {"lf_sweep",
                              {std::uint64_t{1} << 22},
                              {std::uint64_t{1} << 26},
                              {0.5, 0.6, 0.7, 0.8, 0.9, 0.95}});
      }};
}

experiment demo_experiment() {
  return {"demo",
          "a short comparison of every table on this machine's CPU (and GPU when there is one)",
          [](context& ctx) {
            run_basic_sweep(
                ctx, {"demo", {std::uint64_t{1} << 20}, {std::uint64_t{1} << 24}, {0.5, 0.8}});
          }};
}

}  // namespace gpuhash::bench
