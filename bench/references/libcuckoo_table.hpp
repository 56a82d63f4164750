#pragma once
// Debian's libcuckoo (a concurrent bucketed cuckoo map, Li et al. 2014) behind
// the benchmark's table interface, driven by our thread pool. Optional: built
// when its headers are installed (GPUHASH_BENCH_HAS_LIBCUCKOO).

#include <libcuckoo/cuckoohash_map.hh>

#include <cstddef>
#include <string_view>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/hash.hpp"
#include "gpuhash/status.hpp"
#include "gpuhash/table_options.hpp"

namespace gpuhash::bench {

template <class Key, class Value>
class libcuckoo_table {
 public:
  using key_type = Key;
  using mapped_type = Value;
  using backend_type = cpu_backend;
  using stream_type = cpu::stream;
  static constexpr std::string_view design_name = "libcuckoo";
  static constexpr std::string_view threads = "pool";

  explicit libcuckoo_table(const table_options& options)
      : expected_keys_(static_cast<std::size_t>(
            static_cast<double>(options.capacity) *
            (options.max_load_factor > 0 ? options.max_load_factor : 1.0))),
        map_(expected_keys_, hasher{seeded_hash<Key>{options.seed}}) {}

  void insert_async(const Key* keys, const Value* values, std::size_t n, status* out,
                    stream_type stream = {}) {
    stream.get().parallel_for(n, [&](std::uint64_t begin, std::uint64_t end) {
      for (std::uint64_t i = begin; i < end; ++i)
        out[i] = map_.insert(keys[i], values[i]) ? status::inserted : status::exists;
    });
  }
  void find_async(const Key* keys, std::size_t n, Value* values, status* out,
                  stream_type stream = {}) {
    stream.get().parallel_for(n, [&](std::uint64_t begin, std::uint64_t end) {
      for (std::uint64_t i = begin; i < end; ++i)
        out[i] = map_.find(keys[i], values[i]) ? status::found : status::not_found;
    });
  }
  void erase_async(const Key* keys, std::size_t n, status* out, stream_type stream = {}) {
    stream.get().parallel_for(n, [&](std::uint64_t begin, std::uint64_t end) {
      for (std::uint64_t i = begin; i < end; ++i)
        out[i] = map_.erase(keys[i]) ? status::erased : status::not_found;
    });
  }
  void clear(stream_type = {}) { map_.clear(); }
  std::size_t size(stream_type = {}) const { return map_.size(); }
  std::size_t capacity() const { return map_.capacity(); }
  std::size_t memory_bytes() const { return map_.capacity() * (sizeof(Key) + sizeof(Value) + 1); }

 private:
  struct hasher {
    seeded_hash<Key> hash;
    std::size_t operator()(Key key) const { return static_cast<std::size_t>(hash(key)); }
  };
  std::size_t expected_keys_;
  libcuckoo::cuckoohash_map<Key, Value, hasher> map_;
};

}  // namespace gpuhash::bench
