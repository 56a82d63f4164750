#pragma once
// static_map_interface and static_set_interface over HashGraph's header-only
// static tables (gpuhash/hashgraph.hpp) with CSR segments. Included by one
// file per backend, after that backend's backend_support (from a .cu file for
// the CUDA backend: the tables' kernels are compiled where they are used).
// A table is built once, before Python sees it, and only read after that, so
// calls from several Python threads need no lock.

#include <cstdint>
#include <memory>
#include <optional>

#include "backend_support.hpp"
#include "gpuhash/hashgraph.hpp"
#include "tables.hpp"

namespace gpuhash::python {

inline hashgraph_probe probe_of(bool binned) {
  return binned ? hashgraph_probe::binned : hashgraph_probe::standard;
}

template <class Key, class Backend>
class static_map_model final : public static_map_interface {
  using table_type = hashgraph_map<Key, Key, Backend>;
  using support = backend_support<Backend>;
  using device_scope = typename support::device_scope;

 public:
  explicit static_map_model(int ordinal) : ordinal_(ordinal) {
    const device_scope scope(ordinal_);
    streams_.emplace();
    table_.emplace();
  }
  ~static_map_model() override {
    try {
      const device_scope scope(ordinal_);
      table_.reset();
      streams_.reset();  // after the table, which synchronizes it
    } catch (...) {  // a destructor must not throw; the runtime has reported the error
    }
  }
  static_map_model(const static_map_model&) = delete;
  static_map_model& operator=(const static_map_model&) = delete;

  void build(const void* keys, const void* values, std::size_t n, stream_handle stream) override {
    const device_scope scope(ordinal_);
    const auto on = streams_->after(stream);
    table_->build(static_cast<const Key*>(keys), static_cast<const Key*>(values), n, on);
    Backend::synchronize(on);
  }
  void find(const void* keys, std::size_t n, void* values, bool* found, bool binned_probe,
            stream_handle stream) const override {
    const device_scope scope(ordinal_);
    const auto on = streams_->after(stream);
    // the statuses go into `found` and become its flags there (found_byte)
    auto* bytes = reinterpret_cast<std::uint8_t*>(found);
    table_->find(static_cast<const Key*>(keys), n, static_cast<Key*>(values),
                 reinterpret_cast<status*>(bytes), probe_of(binned_probe), on);
    support::found_flags(bytes, n, on);
    Backend::synchronize(on);
  }
  std::size_t size() const override { return table_->size(); }
  std::size_t memory_bytes() const override { return table_->memory_bytes(); }

 private:
  int ordinal_;
  std::optional<typename support::call_stream> streams_;  // made before the table, gone after it
  std::optional<table_type> table_;
};

template <class Key, class Backend>
class static_set_model final : public static_set_interface {
  using table_type = hashgraph_set<Key, Backend>;
  using support = backend_support<Backend>;
  using device_scope = typename support::device_scope;

 public:
  explicit static_set_model(int ordinal) : ordinal_(ordinal) {
    const device_scope scope(ordinal_);
    streams_.emplace();
    table_.emplace();
  }
  ~static_set_model() override {
    try {
      const device_scope scope(ordinal_);
      table_.reset();
      streams_.reset();  // after the table, which synchronizes it
    } catch (...) {  // a destructor must not throw; the runtime has reported the error
    }
  }
  static_set_model(const static_set_model&) = delete;
  static_set_model& operator=(const static_set_model&) = delete;

  void build(const void* keys, std::size_t n, stream_handle stream) override {
    const device_scope scope(ordinal_);
    const auto on = streams_->after(stream);
    table_->build(static_cast<const Key*>(keys), n, on);
    Backend::synchronize(on);
  }
  void contains(const void* keys, std::size_t n, bool* found, bool binned_probe,
                stream_handle stream) const override {
    const device_scope scope(ordinal_);
    const auto on = streams_->after(stream);
    table_->contains(static_cast<const Key*>(keys), n, found, probe_of(binned_probe), on);
    Backend::synchronize(on);
  }
  std::size_t size() const override { return table_->size(); }
  std::size_t memory_bytes() const override { return table_->memory_bytes(); }

 private:
  int ordinal_;
  std::optional<typename support::call_stream> streams_;  // made before the table, gone after it
  std::optional<table_type> table_;
};

/// The static map or set with `bits`-bit keys (and values) on Backend, or
/// null for another width.
template <class Backend>
std::unique_ptr<static_map_interface> make_static_map_on(int bits, int ordinal) {
  if (bits == 32) return std::make_unique<static_map_model<std::uint32_t, Backend>>(ordinal);
  if (bits == 64) return std::make_unique<static_map_model<std::uint64_t, Backend>>(ordinal);
  return nullptr;
}
template <class Backend>
std::unique_ptr<static_set_interface> make_static_set_on(int bits, int ordinal) {
  if (bits == 32) return std::make_unique<static_set_model<std::uint32_t, Backend>>(ordinal);
  if (bits == 64) return std::make_unique<static_set_model<std::uint64_t, Backend>>(ordinal);
  return nullptr;
}

}  // namespace gpuhash::python
