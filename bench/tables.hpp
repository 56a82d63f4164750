#pragma once
// The tables a benchmark can run on a backend: every registered design
// (support/designs.hpp) and, on the CPU, the reference maps that are built.

#include <cstdint>

#include "gpuhash/cpu/backend.hpp"
#include "references/std_unordered_map_table.hpp"
#include "support/designs.hpp"
#if defined(GPUHASH_BENCH_HAS_LIBCUCKOO)
#include "references/libcuckoo_table.hpp"
#endif
#if defined(GPUHASH_BENCH_HAS_TBB)
#include "references/tbb_table.hpp"
#endif

namespace gpuhash::bench {

/// Calls f.template operator()<Table>() for each registered design on Backend.
template <class Backend, class F>
void for_each_design(F&& f) {
  support::for_each_type(support::registered_designs{}, [&]<class Instance>() {
    f.template operator()<typename Instance::template on<Backend>>();
  });
}

/// Calls f.template operator()<Table>() for each CPU reference map.
template <class F>
void for_each_reference(F&& f) {
  support::for_each_type(support::type_list<std_unordered_map_table<std::uint32_t, std::uint32_t>,
                                            std_unordered_map_table<std::uint64_t, std::uint64_t>
#if defined(GPUHASH_BENCH_HAS_LIBCUCKOO)
                                            ,
                                            libcuckoo_table<std::uint32_t, std::uint32_t>,
                                            libcuckoo_table<std::uint64_t, std::uint64_t>
#endif
#if defined(GPUHASH_BENCH_HAS_TBB)
                                            ,
                                            tbb_table<std::uint32_t, std::uint32_t>,
                                            tbb_table<std::uint64_t, std::uint64_t>
#endif
                                            >{},
                         f);
}

}  // namespace gpuhash::bench
