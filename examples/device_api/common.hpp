#pragma once
// What the device-API examples share: moving arrays between the host and a
// backend, launching a host+device functor over [0, n) on either backend
// (support/launch.hpp: CPU threads, or a CUDA kernel when compiled by nvcc),
// an output cursor that threads append to, and the examples' main().
//
// Each example is one .cpp built twice: for the CPU backend (what CI runs)
// and, from a .cu that includes it, for the CUDA backend (scripts/gpu-check
// runs that one). The kernel code is written once, as functors.

#include <cstdint>
#include <cstdio>
#include <vector>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/host_device.hpp"
#include "support/launch.hpp"
#if defined(__CUDACC__)
#include "gpuhash/cuda/backend.hpp"
#endif

namespace gpuhash::examples {

/// A copy of host data in the backend's memory.
template <class Backend, class T>
typename Backend::template buffer<T> to_backend(const std::vector<T>& host) {
  auto buffer = Backend::template allocate<T>(host.size() == 0 ? 1 : host.size());
  Backend::copy_from_host(buffer.data(), host.data(), host.size());
  return buffer;
}
template <class Backend, class T>
std::vector<T> to_host(const T* data, std::size_t n) {
  std::vector<T> host(n);
  Backend::copy_to_host(host.data(), data, n);
  return host;
}

/// Runs f(i) for every i in [0, n) on the backend and waits for it.
template <class Backend, class F>
void for_each_index(std::uint64_t n, const F& f) {
  support::launcher<Backend>::for_each(n, f);
  Backend::synchronize({});
}

/// The next free position of an output array that many threads append to.
GPUHASH_HD inline std::uint64_t take_position(std::uint64_t* cursor) {
  return support::fetch_add(cursor, std::uint64_t{1});
}

/// An example's exit status: 0 when `wrong` is 0, after saying so.
inline int report(const char* example, const char* backend, std::uint64_t wrong) {
  if (wrong == 0) {
    std::printf("%s on %s: ok\n", example, backend);
    return 0;
  }
  std::printf("%s on %s: %llu wrong results\n", example, backend,
              static_cast<unsigned long long>(wrong));
  return 1;
}

/// Runs an example on the backend it was built for: the CPU, or the GPU from
/// the .cu build (exit status 77, which CTest counts as skipped, without one).
template <class Example>
int run_example(Example example) {
#if defined(__CUDACC__)
  if (!cuda_backend::available()) {
    std::puts("no CUDA device: skipped");
    return 77;
  }
  return example.template operator()<cuda_backend>();
#else
  return example.template operator()<cpu_backend>();
#endif
}

}  // namespace gpuhash::examples
