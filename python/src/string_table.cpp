// gpuhash.StringMap's table: string_map_interface behind nanobind. The
// package (python/gpuhash/_string_map.py) turns each form of keys into
// Arrow's column (offsets + bytes) and checks that the offsets point into the
// bytes; this file checks each array's shape, device and dtype.

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "tables.hpp"

namespace gpuhash::python {

namespace {

using namespace nb::literals;

constexpr element_type byte_type{nb::dlpack::dtype_code::UInt, 8};

/// A NumPy array over a vector's elements (viewed as Element), which it
/// keeps alive: the contents come back without a copy.
template <class Element, class Vector>
nb::ndarray<nb::numpy, Element, nb::ndim<1>> numpy_of(Vector&& elements) {
  auto* owned = new Vector(std::move(elements));
  owned->reserve(1);  // a data pointer also for an empty array
  const nb::capsule owner(owned,
                          [](void* vector) noexcept { delete static_cast<Vector*>(vector); });
  const std::size_t length = owned->size() * sizeof(typename Vector::value_type) / sizeof(Element);
  return {reinterpret_cast<Element*>(owned->data()), {length}, owner};
}

class string_map_table : public whole_table<string_map_interface> {
 public:
  string_map_table(const std::string& value_dtype, const std::string& device, int ordinal,
                   std::optional<std::size_t> capacity, float max_load_factor,
                   std::optional<std::uint64_t> seed, std::size_t arena_bytes)
      : value_(element_type::parse_key_type(value_dtype, "value_dtype")),
        device_(parse_device(device, ordinal)) {
    table_options options;
    if (capacity) options.capacity = *capacity;
    options.max_load_factor = max_load_factor;
    if (seed) options.seed = *seed;
    table_ = make_string_map(value_.bits, device_, options, arena_bytes);
  }

  void insert(const input_array& offsets, const input_array& data, const input_array& values,
              const output_array& statuses, stream_handle stream) {
    write_batch("StringMap.insert", &string_map_interface::insert, offsets, data, values, statuses,
                stream);
  }
  void insert_or_assign(const input_array& offsets, const input_array& data,
                        const input_array& values, const output_array& statuses,
                        stream_handle stream) {
    write_batch("StringMap.insert_or_assign", &string_map_interface::insert_or_assign, offsets,
                data, values, statuses, stream);
  }
  void find(const input_array& offsets, const input_array& data, const output_array& values,
            const output_array& found, stream_handle stream) {
    const array_checker check{"StringMap.find", device_};
    const string_column keys = column_of(check, offsets, data);
    void* v = check.output(values, {"values", value_}, keys.count);
    auto* f = static_cast<bool*>(check.output(found, {"found", flag_type}, keys.count));
    const nb::gil_scoped_release unlocked;
    table_->find(keys, v, f, stream);
  }
  void erase(const input_array& offsets, const input_array& data, const output_array& statuses,
             stream_handle stream) {
    const array_checker check{"StringMap.erase", device_};
    const string_column keys = column_of(check, offsets, data);
    auto* s = static_cast<status*>(check.output(statuses, {"statuses", status_type}, keys.count));
    const nb::gil_scoped_release unlocked;
    table_->erase(keys, s, stream);
  }

  /// (offsets, data, values) of every stored pair, as NumPy arrays: int64
  /// offsets, uint8 bytes, and the values' bits as uint8.
  nb::tuple retrieve_all(stream_handle stream) {
    string_map_interface::contents stored;
    {
      const nb::gil_scoped_release unlocked;
      stored = table_->retrieve_all(stream);
    }
    return nb::make_tuple(numpy_of<std::int64_t>(std::move(stored.offsets)),
                          numpy_of<std::uint8_t>(std::move(stored.bytes)),
                          numpy_of<std::uint8_t>(std::move(stored.values)));
  }

  void reserve(std::size_t keys, std::size_t bytes, stream_handle stream) {
    const nb::gil_scoped_release unlocked;
    table_->reserve(keys, bytes, stream);
  }
  std::size_t arena_capacity() const {
    const nb::gil_scoped_release unlocked;
    return table_->arena_capacity();
  }

 private:
  using write_member = void (string_map_interface::*)(const string_column&, const void*, status*,
                                                      stream_handle);

  /// The keys as Arrow's column: n + 1 int32 or int64 offsets into uint8 bytes.
  static string_column column_of(const array_checker& check, const input_array& offsets,
                                 const input_array& data) {
    const std::size_t entries = check.length_of(offsets, "offsets");
    if (entries == 0)
      throw nb::value_error(("gpuhash: " + std::string(check.call) +
                             ": offsets must hold n + 1 entries for n keys, got none")
                                .c_str());
    const bool narrow = offsets.dtype().bits == 32;
    const element_type offset_type{nb::dlpack::dtype_code::Int, std::uint8_t(narrow ? 32 : 64)};
    const void* o = check.input(offsets, {"offsets", offset_type});
    const auto* bytes = static_cast<const char*>(check.input(data, {"data", byte_type}));
    const std::size_t n = entries - 1;
    if (narrow) return {bytes, static_cast<const std::int32_t*>(o), n};
    return {bytes, static_cast<const std::int64_t*>(o), n};
  }

  void write_batch(const char* call, write_member member, const input_array& offsets,
                   const input_array& data, const input_array& values, const output_array& statuses,
                   stream_handle stream) {
    const array_checker check{call, device_};
    const string_column keys = column_of(check, offsets, data);
    const void* v = check.input(values, {"values", value_}, keys.count);
    auto* s = static_cast<status*>(check.output(statuses, {"statuses", status_type}, keys.count));
    const nb::gil_scoped_release unlocked;
    ((*table_).*member)(keys, v, s, stream);
  }

  element_type value_;
  device_spec device_;
};

}  // namespace

void bind_string_table(nb::module_& m) {
  nb::class_<string_map_table> table(m, "StringMapTable");
  def_whole_table(table);
  table
      .def(nb::init<const std::string&, const std::string&, int, std::optional<std::size_t>, float,
                    std::optional<std::uint64_t>, std::size_t>(),
           "value_dtype"_a, "device"_a, "ordinal"_a, "capacity"_a.none(), "max_load_factor"_a,
           "seed"_a.none(), "arena_bytes"_a)
      .def("insert", &string_map_table::insert, "offsets"_a, "data"_a, "values"_a, "statuses"_a,
           "stream"_a)
      .def("insert_or_assign", &string_map_table::insert_or_assign, "offsets"_a, "data"_a,
           "values"_a, "statuses"_a, "stream"_a)
      .def("find", &string_map_table::find, "offsets"_a, "data"_a, "values"_a, "found"_a,
           "stream"_a)
      .def("erase", &string_map_table::erase, "offsets"_a, "data"_a, "statuses"_a, "stream"_a)
      .def("retrieve_all", &string_map_table::retrieve_all, "stream"_a)
      .def("reserve", &string_map_table::reserve, "keys"_a, "bytes"_a, "stream"_a)
      .def_prop_ro("arena_capacity", &string_map_table::arena_capacity);
}

}  // namespace gpuhash::python
