#include <thrust/count.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>

#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/detail/cuda/launch.cuh"
#include "workload.hpp"

namespace gpuhash::bench {

namespace {

template <class Key, class Value>
struct generate_functor {
  key_generator<Key, Value> generator;
  Key* keys;
  Value* values;
  __device__ void operator()(std::uint64_t i) const {
    keys[i] = generator.key(i);
    values[i] = generator.value_for(keys[i]);
  }
};

template <class Key, class Value>
struct unexpected_functor {
  const Key* keys;
  const Value* values;
  const status* statuses;
  status expected;
  __device__ bool operator()(std::uint64_t i) const {
    if (statuses[i] != expected) return true;
    return values != nullptr && expected == status::found &&
           values[i] != key_generator<Key, Value>::value_for(keys[i]);
  }
};

}  // namespace

template <class Key, class Value>
void generate_keys(cuda_backend, const key_spec& spec, std::uint64_t first_index, std::size_t n,
                   Key* keys, Value* values, cudaStream_t stream) {
  if (n == 0) return;
  const generate_functor<Key, Value> f{make_generator<Key, Value>(spec, first_index), keys, values};
  const auto kernel = detail::cuda::for_each_kernel<generate_functor<Key, Value>>;
  kernel<<<detail::cuda::grid_size(kernel, n), detail::cuda::block_size, 0, stream>>>(n, f);
  GPUHASH_CUDA_CHECK_LAUNCH(stream);
}

template <class Key, class Value>
std::size_t count_unexpected(cuda_backend, const Key* keys, const Value* values,
                             const status* statuses, std::size_t n, status expected,
                             cudaStream_t stream) {
  const thrust::counting_iterator<std::uint64_t> first(0);
  const auto count =
      thrust::count_if(thrust::cuda::par.on(stream), first, first + n,
                       unexpected_functor<Key, Value>{keys, values, statuses, expected});
  return static_cast<std::size_t>(count);
}

#define GPUHASH_BENCH_INSTANTIATE(K, V)                                                            \
  template void generate_keys<K, V>(cuda_backend, const key_spec&, std::uint64_t, std::size_t, K*, \
                                    V*, cudaStream_t);                                             \
  template std::size_t count_unexpected<K, V>(cuda_backend, const K*, const V*, const status*,     \
                                              std::size_t, status, cudaStream_t);
GPUHASH_BENCH_INSTANTIATE(std::uint32_t, std::uint32_t)
GPUHASH_BENCH_INSTANTIATE(std::uint64_t, std::uint64_t)
#undef GPUHASH_BENCH_INSTANTIATE

}  // namespace gpuhash::bench
