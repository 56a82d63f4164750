// Keys and values of other widths (docs/key_types.md), each rate also in
// bytes per second against the copy limit measured in the same run:
//   key_types.width        linear probing and bucketed cuckoo at 32/32,
//                          64/64 and 128/128 bits, and linear probing with
//                          64-bit keys and 32- and 128-byte values;
//                          key+value bytes (--n: 2^25 GPU, 2^22 CPU; --load:
//                          0.5, 0.9; --key-bits=32,64,128; --dist, --backend,
//                          --reps)
//   key_types.value_width  linear probing with 64-bit keys and values of 4, 8,
//                          16, 32, 64 and 128 bytes; value bytes (--n, --load
//                          as key_types.width; --value-bytes=4,...,128;
//                          --dist, --backend, --reps)

#include "../key_types/width_runs.hpp"
#include "../sweep.hpp"
#include "experiments.hpp"

namespace gpuhash::bench {

std::vector<experiment> key_types_experiments() {
  return {
      {"key_types.width",
       "linear probing and bucketed cuckoo with 32/32-, 64/64- and 128/128-bit pairs, and linear "
       "probing with 64-bit keys and 32- and 128-byte values: insert / find-hit / find-miss / "
       "erase at loads 0.5 and 0.9, also in "
       "key+value bytes per second against the copy limit (--n: 2^25 GPU, 2^22 CPU; --load, "
       "--key-bits=32,64,128, --dist, --backend, --reps)",
       [](context& ctx) {
         for_each_backend(ctx, [&]<class Backend>() { run_key_widths<Backend>(ctx); });
       }},
      {"key_types.value_width",
       "linear probing with 64-bit keys and values of 4, 8, 16 (words) and 32, 64, 128 bytes "
       "(under a per-slot version): insert / find-hit / find-miss / erase at loads 0.5 and 0.9, "
       "insert and find-hit also in value bytes per second against the copy limit (--n: 2^25 "
       "GPU, 2^22 CPU; --load, --value-bytes=4,8,16,32,64,128, --dist, --backend, --reps)",
       [](context& ctx) {
         for_each_backend(ctx, [&]<class Backend>() { run_value_widths<Backend>(ctx); });
       }},
  };
}

}  // namespace gpuhash::bench
