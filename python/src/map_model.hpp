#pragma once
// map_interface over one basic_map, and the search of a list of designs
// (support/designs.hpp's registry, key_type_maps.hpp) for the map a Python
// caller names. Included by one file per backend, after that backend's
// backend_support.

#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "device_refs.hpp"
#include "key_type_maps.hpp"
#include "table_calls.hpp"
#include "tables.hpp"

namespace gpuhash::python {

template <class Map>
class map_model final : public map_interface, private table_calls<typename Map::backend_type> {
  using key_type = typename Map::key_type;
  using mapped_type = typename Map::mapped_type;
  using backend_type = typename Map::backend_type;
  using calls = table_calls<backend_type>;
  using typename calls::call;
  using typename calls::device_scope;

 public:
  /// Constructs the table on `ordinal`'s device.
  map_model(const table_options& options, int ordinal) : calls(ordinal) {
    const device_scope scope(this->ordinal_);
    map_.emplace(options);
  }
  ~map_model() override {
    // The table's buffers are freed on its own device.
    try {
      const device_scope scope(this->ordinal_);
      map_.reset();
    } catch (...) {  // a destructor must not throw; the runtime has reported the error
    }
  }
  map_model(const map_model&) = delete;
  map_model& operator=(const map_model&) = delete;

  void insert(const void* keys, const void* values, std::size_t n, status* statuses,
              stream_handle stream) override {
    const call scope(*this);
    map_->insert(key_pointer(keys), value_pointer(values), n, statuses, this->after(stream));
  }
  void insert_or_assign(const void* keys, const void* values, std::size_t n, status* statuses,
                        stream_handle stream) override {
    const call scope(*this);
    map_->insert_or_assign(key_pointer(keys), value_pointer(values), n, statuses,
                           this->after(stream));
  }
  void find(const void* keys, std::size_t n, void* values, bool* found,
            stream_handle stream) override {
    const call scope(*this);
    map_->find(key_pointer(keys), n, static_cast<mapped_type*>(values), found, this->after(stream));
  }
  void contains(const void* keys, std::size_t n, bool* found, stream_handle stream) override {
    const call scope(*this);
    map_->contains(key_pointer(keys), n, found, this->after(stream));
  }
  void erase(const void* keys, std::size_t n, status* statuses, stream_handle stream) override {
    const call scope(*this);
    map_->erase(key_pointer(keys), n, statuses, this->after(stream));
  }
  void apply(const operation* ops, const void* keys, const void* values_in, void* values_out,
             std::size_t n, status* statuses, stream_handle stream) override {
    const call scope(*this);
    const auto on = this->after(stream);
    auto* values = static_cast<mapped_type*>(values_out);
    backend_type::copy(values, value_pointer(values_in), n, on);
    map_->apply(ops, key_pointer(keys), values, n, statuses, on);
  }

  std::size_t size(stream_handle stream) override {
    const call scope(*this);
    return map_->size(this->after(stream));
  }
  std::size_t retrieve_all(void* keys, void* values, std::size_t room,
                           stream_handle stream) override {
    const call scope(*this);
    const auto on = this->after(stream);
    const std::size_t count = map_->size(on);
    if (count > room)
      throw std::runtime_error("gpuhash: the map holds " + std::to_string(count) +
                               " keys, more than the " + std::to_string(room) +
                               " it held when items() began: another thread changed it");
    return map_->retrieve_all(static_cast<key_type*>(keys), static_cast<mapped_type*>(values), on);
  }
  void clear(stream_handle stream) override {
    const call scope(*this);
    const auto on = this->after(stream);
    map_->clear(on);
    backend_type::synchronize(on);
  }
  void reserve(std::size_t n, stream_handle stream) override {
    const call scope(*this);
    const auto on = this->after(stream);
    map_->reserve(n, on);
    backend_type::synchronize(on);
  }
  // A batch of another thread may be growing the table: these wait for it.
  std::size_t capacity() const override {
    const std::lock_guard lock(this->mutex_);
    return map_->capacity();
  }
  std::size_t memory_bytes() const override {
    const std::lock_guard lock(this->mutex_);
    return map_->memory_bytes();
  }
  float max_load_factor() const override { return map_->max_load_factor(); }
  std::vector<unsigned char> reserved_keys() const override {
    const auto keys = Map::reserved_keys();
    std::vector<unsigned char> bytes(keys.size_bytes());
    if (!bytes.empty()) std::memcpy(bytes.data(), keys.data(), bytes.size());
    return bytes;
  }

  std::vector<unsigned char> ref_bytes() override {
    if constexpr (has_named_ref<Map>) {
      const call scope(*this);
      const typename Map::ref_type ref = map_->ref();
      std::vector<unsigned char> bytes(sizeof(ref));
      std::memcpy(bytes.data(), &ref, sizeof(ref));
      return bytes;
    } else {
      throw std::invalid_argument("gpuhash: Map.ref(): the design '" +
                                  std::string(Map::design_name) + "' with " +
                                  std::to_string(sizeof(key_type)) + "-byte keys and " +
                                  std::to_string(sizeof(mapped_type)) +
                                  "-byte values has no ref for kernels compiled at run time "
                                  "(gpuhash.device_ref_type names the maps that have one)");
    }
  }

  std::vector<double> time_bulk_call(bulk_call kind, const void* keys, const void* values,
                                     void* found_values, status* statuses, std::size_t n,
                                     int repeats, stream_handle stream) override {
    const call scope(*this);
    const auto on = this->after(stream);
    std::vector<double> seconds;
    for (int run = 0; run < repeats; ++run) {
      if (kind == bulk_call::insert) map_->clear(on);
      backend_type::synchronize(on);
      const auto start = std::chrono::steady_clock::now();
      if (kind == bulk_call::insert)
        map_->insert(key_pointer(keys), value_pointer(values), n, statuses, on);
      else
        map_->find(key_pointer(keys), n, static_cast<mapped_type*>(found_values), statuses, on);
      const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
      seconds.push_back(elapsed.count());
    }
    return seconds;
  }

 private:
  static const key_type* key_pointer(const void* keys) {
    return static_cast<const key_type*>(keys);
  }
  static const mapped_type* value_pointer(const void* values) {
    return static_cast<const mapped_type*>(values);
  }

  std::optional<Map> map_;  // made after the call stream, gone before it
};

/// The map of `Designs` (a support::type_list of design_instance) named
/// `design` with keys and values of `widths` on Backend, or null when there
/// is none.
template <class Backend, class Designs>
std::unique_ptr<map_interface> find_map(Designs designs, std::string_view design,
                                        item_widths widths, const table_options& options,
                                        int ordinal) {
  std::unique_ptr<map_interface> made;
  support::for_each_type(designs, [&]<class Design>() {
    if (!made && shape_of<Design>().is(design, widths))
      made = std::make_unique<map_model<typename Design::template on<Backend>>>(options, ordinal);
  });
  return made;
}

}  // namespace gpuhash::python
