#pragma once
// std::unordered_map behind the benchmark's table interface: the reference the
// seeds compare against. Single-threaded (it is not a concurrent map), hashed
// with the same seeded murmur hash as our tables.

#include <cstddef>
#include <string_view>
#include <unordered_map>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/hash.hpp"
#include "gpuhash/status.hpp"
#include "gpuhash/table_options.hpp"

namespace gpuhash::bench {

template <class Key, class Value>
class std_unordered_map_table {
 public:
  using key_type = Key;
  using mapped_type = Value;
  using backend_type = cpu_backend;
  using stream_type = cpu::stream;
  static constexpr std::string_view design_name = "std::unordered_map";
  static constexpr std::string_view threads = "1 thread";

  explicit std_unordered_map_table(const table_options& options)
      : map_(0, hasher{seeded_hash<Key>{options.seed}}),
        expected_keys_(static_cast<std::size_t>(
            static_cast<double>(options.capacity) *
            (options.max_load_factor > 0 ? options.max_load_factor : 1.0))) {
    map_.reserve(expected_keys_);
  }

  void insert_async(const Key* keys, const Value* values, std::size_t n, status* out,
                    stream_type = {}) {
    for (std::size_t i = 0; i < n; ++i)
      out[i] = map_.try_emplace(keys[i], values[i]).second ? status::inserted : status::exists;
  }
  void find_async(const Key* keys, std::size_t n, Value* values, status* out, stream_type = {}) {
    for (std::size_t i = 0; i < n; ++i) {
      const auto it = map_.find(keys[i]);
      if (it == map_.end()) {
        out[i] = status::not_found;
      } else {
        values[i] = it->second;
        out[i] = status::found;
      }
    }
  }
  void erase_async(const Key* keys, std::size_t n, status* out, stream_type = {}) {
    for (std::size_t i = 0; i < n; ++i)
      out[i] = map_.erase(keys[i]) == 1 ? status::erased : status::not_found;
  }
  void clear(stream_type = {}) {
    map_.clear();
    map_.reserve(expected_keys_);
  }
  std::size_t size(stream_type = {}) const { return map_.size(); }
  std::size_t capacity() const { return map_.bucket_count(); }
  /// Buckets plus one node per key (a key, a value and the next pointer).
  std::size_t memory_bytes() const {
    return map_.bucket_count() * sizeof(void*) +
           map_.size() * (sizeof(void*) + sizeof(Key) + sizeof(Value));
  }

 private:
  struct hasher {
    seeded_hash<Key> hash;
    std::size_t operator()(Key key) const { return static_cast<std::size_t>(hash(key)); }
  };
  std::unordered_map<Key, Value, hasher> map_;
  std::size_t expected_keys_;
};

}  // namespace gpuhash::bench
