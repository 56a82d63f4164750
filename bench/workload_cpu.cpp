#include <atomic>
#include <stdexcept>

#include "gpuhash/cpu/backend.hpp"
#include "workload.hpp"

namespace gpuhash::bench {

distribution parse_distribution(const std::string& name) {
  if (name == "uniform") return distribution::uniform;
  if (name == "zipf") return distribution::zipf;
  if (name == "dense") return distribution::dense;
  throw std::invalid_argument("unknown key distribution '" + name + "' (uniform, zipf, dense)");
}

std::string to_string(distribution d) {
  switch (d) {
    case distribution::uniform: return "uniform";
    case distribution::zipf: return "zipf";
    case distribution::dense: return "dense";
  }
  return "unknown";
}

template <class Key, class Value>
void generate_keys(cpu_backend, const key_spec& spec, std::uint64_t first_index, std::size_t n,
                   Key* keys, Value* values, cpu::stream stream) {
  const auto generator = make_generator<Key, Value>(spec, first_index);
  stream.get().parallel_for(n, [&](std::uint64_t begin, std::uint64_t end) {
    for (std::uint64_t i = begin; i < end; ++i) {
      keys[i] = generator.key(i);
      values[i] = generator.value_for(keys[i]);
    }
  });
}

template <class Key, class Value>
std::size_t count_unexpected(cpu_backend, const Key* keys, const Value* values,
                             const status* statuses, std::size_t n, status expected,
                             cpu::stream stream) {
  std::atomic<std::size_t> count{0};
  stream.get().parallel_for(n, [&](std::uint64_t begin, std::uint64_t end) {
    std::size_t local = 0;
    for (std::uint64_t i = begin; i < end; ++i) {
      bool bad = statuses[i] != expected;
      if (!bad && values != nullptr && expected == status::found)
        bad = values[i] != key_generator<Key, Value>::value_for(keys[i]);
      local += bad ? 1 : 0;
    }
    count += local;
  });
  return count.load();
}

template <class Key, class Value>
void generate_queries(cpu_backend, const query_mix& mix, std::size_t n, Key* keys,
                      cpu::stream stream) {
  const auto generator = make_query_generator<Key, Value>(mix);
  stream.get().parallel_for(n, [&](std::uint64_t begin, std::uint64_t end) {
    for (std::uint64_t i = begin; i < end; ++i) keys[i] = generator.key(i);
  });
}

template <class Key, class Value>
std::size_t count_wrong_answers(cpu_backend, const query_mix& mix, const Key* keys,
                                const Value* values, const status* statuses, std::size_t n,
                                cpu::stream stream) {
  const auto generator = make_query_generator<Key, Value>(mix);
  std::atomic<std::size_t> count{0};
  stream.get().parallel_for(n, [&](std::uint64_t begin, std::uint64_t end) {
    std::size_t local = 0;
    for (std::uint64_t i = begin; i < end; ++i) {
      const bool hit = generator.hits(i);
      bool bad =
          keys[i] != generator.key(i) || statuses[i] != (hit ? status::found : status::not_found);
      if (!bad && hit) bad = values[i] != key_generator<Key, Value>::value_for(keys[i]);
      local += bad ? 1 : 0;
    }
    count += local;
  });
  return count.load();
}

template <class Key, class Value>
void generate_tagged_values(cpu_backend, const Key* keys, std::size_t n, Value* values,
                            cpu::stream stream) {
  stream.get().parallel_for(n, [&](std::uint64_t begin, std::uint64_t end) {
    for (std::uint64_t i = begin; i < end; ++i)
      values[i] = value_tags<Key, Value>::tagged(keys[i], i);
  });
}

template <class Key, class Value>
std::size_t count_untagged(cpu_backend, const Key* written, std::size_t n, const Key* keys,
                           const Value* values, const status* statuses, std::size_t count,
                           cpu::stream stream) {
  const value_tags<Key, Value> tags{written, n};
  std::atomic<std::size_t> wrong{0};
  stream.get().parallel_for(count, [&](std::uint64_t begin, std::uint64_t end) {
    std::size_t local = 0;
    for (std::uint64_t i = begin; i < end; ++i)
      local += statuses[i] != status::found || !tags.written_for(keys[i], values[i]) ? 1 : 0;
    wrong += local;
  });
  return wrong.load();
}

#define GPUHASH_BENCH_INSTANTIATE(K, V)                                                            \
  template void generate_keys<K, V>(cpu_backend, const key_spec&, std::uint64_t, std::size_t, K*,  \
                                    V*, cpu::stream);                                              \
  template std::size_t count_unexpected<K, V>(cpu_backend, const K*, const V*, const status*,      \
                                              std::size_t, status, cpu::stream);                   \
  template void generate_queries<K, V>(cpu_backend, const query_mix&, std::size_t, K*,             \
                                       cpu::stream);                                               \
  template std::size_t count_wrong_answers<K, V>(                                                  \
      cpu_backend, const query_mix&, const K*, const V*, const status*, std::size_t, cpu::stream); \
  template void generate_tagged_values<K, V>(cpu_backend, const K*, std::size_t, V*, cpu::stream); \
  template std::size_t count_untagged<K, V>(cpu_backend, const K*, std::size_t, const K*,          \
                                            const V*, const status*, std::size_t, cpu::stream);
GPUHASH_BENCH_PAIRS(GPUHASH_BENCH_INSTANTIATE)
#undef GPUHASH_BENCH_INSTANTIATE
#define GPUHASH_BENCH_INSTANTIATE_BASIC_OPS(K, V)                                                 \
  template void generate_keys<K, V>(cpu_backend, const key_spec&, std::uint64_t, std::size_t, K*, \
                                    V*, cpu::stream);                                             \
  template std::size_t count_unexpected<K, V>(cpu_backend, const K*, const V*, const status*,     \
                                              std::size_t, status, cpu::stream);
GPUHASH_BENCH_VALUE_WIDTH_PAIRS(GPUHASH_BENCH_INSTANTIATE_BASIC_OPS)
#undef GPUHASH_BENCH_INSTANTIATE_BASIC_OPS

}  // namespace gpuhash::bench
