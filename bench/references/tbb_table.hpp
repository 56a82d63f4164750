#pragma once
// oneTBB's concurrent_hash_map (chained, with per-bucket locks) behind the
// benchmark's table interface, driven by our thread pool. Optional: built when
// oneTBB is installed (GPUHASH_BENCH_HAS_TBB).

#include <tbb/concurrent_hash_map.h>

#include <cstddef>
#include <string_view>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/hash.hpp"
#include "gpuhash/status.hpp"
#include "gpuhash/table_options.hpp"

namespace gpuhash::bench {

template <class Key, class Value>
class tbb_table {
 public:
  using key_type = Key;
  using mapped_type = Value;
  using backend_type = cpu_backend;
  using stream_type = cpu::stream;
  static constexpr std::string_view design_name = "tbb::concurrent_hash_map";
  static constexpr std::string_view threads = "pool";

  explicit tbb_table(const table_options& options)
      : expected_keys_(static_cast<std::size_t>(
            static_cast<double>(options.capacity) *
            (options.max_load_factor > 0 ? options.max_load_factor : 1.0))),
        map_(expected_keys_, hash_compare{seeded_hash<Key>{options.seed}}) {}

  void insert_async(const Key* keys, const Value* values, std::size_t n, status* out,
                    stream_type stream = {}) {
    stream.get().parallel_for(n, [&](std::uint64_t begin, std::uint64_t end) {
      for (std::uint64_t i = begin; i < end; ++i)
        out[i] = map_.insert({keys[i], values[i]}) ? status::inserted : status::exists;
    });
  }
  void find_async(const Key* keys, std::size_t n, Value* values, status* out,
                  stream_type stream = {}) {
    stream.get().parallel_for(n, [&](std::uint64_t begin, std::uint64_t end) {
      for (std::uint64_t i = begin; i < end; ++i) {
        typename map_type::const_accessor accessor;
        if (map_.find(accessor, keys[i])) {
          values[i] = accessor->second;
          out[i] = status::found;
        } else {
          out[i] = status::not_found;
        }
      }
    });
  }
  void erase_async(const Key* keys, std::size_t n, status* out, stream_type stream = {}) {
    stream.get().parallel_for(n, [&](std::uint64_t begin, std::uint64_t end) {
      for (std::uint64_t i = begin; i < end; ++i)
        out[i] = map_.erase(keys[i]) ? status::erased : status::not_found;
    });
  }
  void clear(stream_type = {}) {
    map_.clear();
    map_.rehash(expected_keys_);
  }
  std::size_t size(stream_type = {}) const { return map_.size(); }
  std::size_t capacity() const { return map_.bucket_count(); }
  std::size_t memory_bytes() const {
    return map_.bucket_count() * 2 * sizeof(void*) +
           map_.size() * (2 * sizeof(void*) + sizeof(Key) + sizeof(Value));
  }

 private:
  struct hash_compare {
    seeded_hash<Key> hasher;
    std::size_t hash(const Key& key) const { return static_cast<std::size_t>(hasher(key)); }
    bool equal(const Key& a, const Key& b) const { return a == b; }
  };
  using map_type = tbb::concurrent_hash_map<Key, Value, hash_compare>;
  std::size_t expected_keys_;
  map_type map_;
};

}  // namespace gpuhash::bench
