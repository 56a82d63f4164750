#pragma once
// string_map_interface over one gpuhash::string_map (the library's
// precompiled std::uint32_t and std::uint64_t values). Included by one file
// per backend, after that backend's backend_support.

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>

#include "gpuhash/string_map.hpp"
#include "table_calls.hpp"
#include "tables.hpp"

namespace gpuhash::python {

template <class Value, class Backend>
class string_map_model final : public string_map_interface, private table_calls<Backend> {
  using calls = table_calls<Backend>;
  using typename calls::call;
  using typename calls::device_scope;
  using typename calls::support;

 public:
  /// Constructs the table on `ordinal`'s device.
  string_map_model(const table_options& options, std::size_t arena_bytes, int ordinal)
      : calls(ordinal) {
    const device_scope scope(this->ordinal_);
    map_.emplace(options, arena_bytes);
  }
  ~string_map_model() override {
    // The table's buffers are freed on its own device.
    try {
      const device_scope scope(this->ordinal_);
      map_.reset();
    } catch (...) {  // a destructor must not throw; the runtime has reported the error
    }
  }
  string_map_model(const string_map_model&) = delete;
  string_map_model& operator=(const string_map_model&) = delete;

  void insert(const string_column& keys, const void* values, status* statuses,
              stream_handle stream) override {
    const call scope(*this);
    map_->insert(keys, static_cast<const Value*>(values), statuses, this->after(stream));
  }
  void insert_or_assign(const string_column& keys, const void* values, status* statuses,
                        stream_handle stream) override {
    const call scope(*this);
    map_->insert_or_assign(keys, static_cast<const Value*>(values), statuses, this->after(stream));
  }
  void find(const string_column& keys, void* values, bool* found, stream_handle stream) override {
    const call scope(*this);
    const auto on = this->after(stream);
    // the statuses go into `found` and become its flags there (found_byte)
    auto* bytes = reinterpret_cast<std::uint8_t*>(found);
    map_->find(keys, static_cast<Value*>(values), reinterpret_cast<status*>(bytes), on);
    support::found_flags(bytes, keys.count, on);
    Backend::synchronize(on);
  }
  void erase(const string_column& keys, status* statuses, stream_handle stream) override {
    const call scope(*this);
    map_->erase(keys, statuses, this->after(stream));
  }

  contents retrieve_all(stream_handle stream) override {
    const call scope(*this);
    auto stored = map_->retrieve_all(this->after(stream));
    contents out{std::move(stored.offsets), std::move(stored.bytes), {}};
    out.values.resize(stored.values.size() * sizeof(Value));
    if (!out.values.empty())
      std::memcpy(out.values.data(), stored.values.data(), out.values.size());
    return out;
  }

  std::size_t size(stream_handle stream) override {
    const call scope(*this);
    return map_->size(this->after(stream));
  }
  void clear(stream_handle stream) override {
    const call scope(*this);
    map_->clear(this->after(stream));
  }
  void reserve(std::size_t keys, std::size_t bytes, stream_handle stream) override {
    const call scope(*this);
    const auto on = this->after(stream);
    map_->reserve(keys, bytes, on);
    Backend::synchronize(on);
  }
  // A batch of another thread may be growing the table: these wait for it.
  std::size_t capacity() const override {
    const std::lock_guard lock(this->mutex_);
    return map_->capacity();
  }
  std::size_t arena_capacity() const override {
    const std::lock_guard lock(this->mutex_);
    return map_->arena_capacity();
  }
  std::size_t memory_bytes() const override {
    const std::lock_guard lock(this->mutex_);
    return map_->memory_bytes();
  }
  float max_load_factor() const override { return map_->max_load_factor(); }

 private:
  std::optional<string_map<Value, Backend>> map_;  // made after the call stream, gone before it
};

/// The string_map with `value_bits`-bit values on Backend, or null for another width.
template <class Backend>
std::unique_ptr<string_map_interface> make_string_map_on(int value_bits,
                                                         const table_options& options,
                                                         std::size_t arena_bytes, int ordinal) {
  if (value_bits == 32)
    return std::make_unique<string_map_model<std::uint32_t, Backend>>(options, arena_bytes,
                                                                      ordinal);
  if (value_bits == 64)
    return std::make_unique<string_map_model<std::uint64_t, Backend>>(options, arena_bytes,
                                                                      ordinal);
  return nullptr;
}

}  // namespace gpuhash::python
