#pragma once
// The bucketed cuckoo engine's tile find path (bucketed_cuckoo_find_path::tile,
// gpuhash/bucketed_cuckoo_config.hpp) on the backends that have tiles (CUDA:
// cooperative_find.cuh); the others run the per-thread path.

namespace gpuhash::detail::bucketed_cuckoo {

/// Runs find and contains batches one tile per key on backends that have
/// tiles. This primary template is for backends that do not; the CUDA
/// specialization is in cooperative_find.cuh (nvcc only).
template <class Backend>
struct cooperative_finds {
  static constexpr bool available = false;
};

}  // namespace gpuhash::detail::bucketed_cuckoo
