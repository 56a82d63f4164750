#include <thrust/count.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>

#include "gpuhash/cuda/backend.hpp"
#include "support/launch.hpp"
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

template <class Key, class Value>
struct query_functor {
  query_mix_generator<Key, Value> generator;
  Key* keys;
  __device__ void operator()(std::uint64_t i) const { keys[i] = generator.key(i); }
};

template <class Key, class Value>
struct wrong_answer_functor {
  query_mix_generator<Key, Value> generator;
  const Key* keys;
  const Value* values;
  const status* statuses;
  __device__ bool operator()(std::uint64_t i) const {
    const bool hit = generator.hits(i);
    if (keys[i] != generator.key(i) || statuses[i] != (hit ? status::found : status::not_found))
      return true;
    return hit && values[i] != key_generator<Key, Value>::value_for(keys[i]);
  }
};

template <class Key, class Value>
struct tag_functor {
  const Key* keys;
  Value* values;
  __device__ void operator()(std::uint64_t i) const {
    values[i] = value_tags<Key, Value>::tagged(keys[i], i);
  }
};

template <class Key, class Value>
struct untagged_functor {
  value_tags<Key, Value> tags;
  const Key* keys;
  const Value* values;
  const status* statuses;
  __device__ bool operator()(std::uint64_t i) const {
    return statuses[i] != status::found || !tags.written_for(keys[i], values[i]);
  }
};

}  // namespace

template <class Key, class Value>
void generate_keys(cuda_backend, const key_spec& spec, std::uint64_t first_index, std::size_t n,
                   Key* keys, Value* values, cudaStream_t stream) {
  if (n == 0) return;
  const generate_functor<Key, Value> f{make_generator<Key, Value>(spec, first_index), keys, values};
  support::launcher<cuda_backend>::for_each(n, f, stream);
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

template <class Key, class Value>
void generate_queries(cuda_backend, const query_mix& mix, std::size_t n, Key* keys,
                      cudaStream_t stream) {
  if (n == 0) return;
  const query_functor<Key, Value> f{make_query_generator<Key, Value>(mix), keys};
  support::launcher<cuda_backend>::for_each(n, f, stream);
}

template <class Key, class Value>
std::size_t count_wrong_answers(cuda_backend, const query_mix& mix, const Key* keys,
                                const Value* values, const status* statuses, std::size_t n,
                                cudaStream_t stream) {
  const thrust::counting_iterator<std::uint64_t> first(0);
  const auto count =
      thrust::count_if(thrust::cuda::par.on(stream), first, first + n,
                       wrong_answer_functor<Key, Value>{make_query_generator<Key, Value>(mix), keys,
                                                        values, statuses});
  return static_cast<std::size_t>(count);
}

template <class Key, class Value>
void generate_tagged_values(cuda_backend, const Key* keys, std::size_t n, Value* values,
                            cudaStream_t stream) {
  if (n == 0) return;
  const tag_functor<Key, Value> f{keys, values};
  support::launcher<cuda_backend>::for_each(n, f, stream);
}

template <class Key, class Value>
std::size_t count_untagged(cuda_backend, const Key* written, std::size_t n, const Key* keys,
                           const Value* values, const status* statuses, std::size_t count,
                           cudaStream_t stream) {
  const thrust::counting_iterator<std::uint64_t> first(0);
  const auto wrong =
      thrust::count_if(thrust::cuda::par.on(stream), first, first + count,
                       untagged_functor<Key, Value>{{written, n}, keys, values, statuses});
  return static_cast<std::size_t>(wrong);
}

#define GPUHASH_BENCH_INSTANTIATE(K, V)                                                            \
  template void generate_keys<K, V>(cuda_backend, const key_spec&, std::uint64_t, std::size_t, K*, \
                                    V*, cudaStream_t);                                             \
  template std::size_t count_unexpected<K, V>(cuda_backend, const K*, const V*, const status*,     \
                                              std::size_t, status, cudaStream_t);                  \
  template void generate_queries<K, V>(cuda_backend, const query_mix&, std::size_t, K*,            \
                                       cudaStream_t);                                              \
  template std::size_t count_wrong_answers<K, V>(cuda_backend, const query_mix&, const K*,         \
                                                 const V*, const status*, std::size_t,             \
                                                 cudaStream_t);                                    \
  template void generate_tagged_values<K, V>(cuda_backend, const K*, std::size_t, V*,              \
                                             cudaStream_t);                                        \
  template std::size_t count_untagged<K, V>(cuda_backend, const K*, std::size_t, const K*,         \
                                            const V*, const status*, std::size_t, cudaStream_t);
GPUHASH_BENCH_PAIRS(GPUHASH_BENCH_INSTANTIATE)
#undef GPUHASH_BENCH_INSTANTIATE
#define GPUHASH_BENCH_INSTANTIATE_BASIC_OPS(K, V)                                                  \
  template void generate_keys<K, V>(cuda_backend, const key_spec&, std::uint64_t, std::size_t, K*, \
                                    V*, cudaStream_t);                                             \
  template std::size_t count_unexpected<K, V>(cuda_backend, const K*, const V*, const status*,     \
                                              std::size_t, status, cudaStream_t);
GPUHASH_BENCH_VALUE_WIDTH_PAIRS(GPUHASH_BENCH_INSTANTIATE_BASIC_OPS)
#undef GPUHASH_BENCH_INSTANTIATE_BASIC_OPS

}  // namespace gpuhash::bench
