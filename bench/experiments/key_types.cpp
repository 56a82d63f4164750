// Keys and values of other widths (docs/key_types.md):
//   key_types.width  linear probing at 32/32, 64/64 and 128/128 bits, and
//                    64-bit keys with 32- and 128-byte values (--n: 2^25
//                    GPU, 2^22 CPU; --load: 0.5, 0.9; --key-bits=32,64,128;
//                    --dist, --backend, --reps)

#include "../key_types/width_runs.hpp"
#include "../sweep.hpp"
#include "experiments.hpp"

namespace gpuhash::bench {

experiment key_types_experiment() {
  return {"key_types.width",
          "linear probing with 32/32-, 64/64- and 128/128-bit pairs and 64-bit keys with 32- and "
          "128-byte values: insert / find-hit / "
          "find-miss / erase at loads 0.5 and 0.9 (--n: 2^25 GPU, 2^22 CPU; --load, "
          "--key-bits=32,64,128, --dist, --backend, --reps)",
          [](context& ctx) {
            for_each_backend(ctx, [&]<class Backend>() { run_key_widths<Backend>(ctx); });
          }};
}

}  // namespace gpuhash::bench
