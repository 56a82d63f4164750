// gpuhash._gpuhash: the extension under the Python package (python/gpuhash).
// It holds the tables and checks the arrays; the package above it picks the
// stream and allocates outputs with the caller's array library.

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "gpuhash/errors.hpp"
#include "gpuhash/nvrtc_options.hpp"
#include "tables.hpp"

namespace gpuhash::python {

namespace {

using namespace nb::literals;

constexpr element_type operation_type{nb::dlpack::dtype_code::UInt, 8};

/// gpuhash.Map's table: basic_map of one design, pair of widths and backend.
/// Keys and values come as their bits (the package checks their dtypes).
class map_table : public whole_table<map_interface> {
 public:
  map_table(const std::string& design, std::size_t key_bytes, std::size_t value_bytes,
            const std::string& device, int ordinal, std::optional<std::size_t> capacity,
            float max_load_factor, std::optional<std::uint64_t> seed)
      : key_{"keys", key_bytes},
        value_{"values", value_bytes},
        device_(parse_device(device, ordinal)) {
    table_options options;
    if (capacity) options.capacity = *capacity;
    options.max_load_factor = max_load_factor;
    if (seed) options.seed = *seed;
    table_ = make_map(design, {key_bytes, value_bytes}, device_, options);
  }

  void insert(const input_array& keys, const input_array& values, const output_array& statuses,
              stream_handle stream) {
    write_batch("Map.insert", &map_interface::insert, keys, values, statuses, stream);
  }
  void insert_or_assign(const input_array& keys, const input_array& values,
                        const output_array& statuses, stream_handle stream) {
    write_batch("Map.insert_or_assign", &map_interface::insert_or_assign, keys, values, statuses,
                stream);
  }
  void find(const input_array& keys, const output_array& values, const output_array& found,
            stream_handle stream) {
    const array_checker check{"Map.find", device_};
    const std::size_t n = check.length_of(keys, key_);
    const void* k = check.input(keys, key_);
    void* v = check.output(values, value_, n);
    auto* f = static_cast<bool*>(check.output(found, {"found", flag_type}, n));
    const nb::gil_scoped_release unlocked;
    table_->find(k, n, v, f, stream);
  }
  void contains(const input_array& keys, const output_array& found, stream_handle stream) {
    const array_checker check{"Map.contains", device_};
    const std::size_t n = check.length_of(keys, key_);
    const void* k = check.input(keys, key_);
    auto* f = static_cast<bool*>(check.output(found, {"found", flag_type}, n));
    const nb::gil_scoped_release unlocked;
    table_->contains(k, n, f, stream);
  }
  void erase(const input_array& keys, const output_array& statuses, stream_handle stream) {
    const array_checker check{"Map.erase", device_};
    const std::size_t n = check.length_of(keys, key_);
    const void* k = check.input(keys, key_);
    auto* s = static_cast<status*>(check.output(statuses, {"statuses", status_type}, n));
    const nb::gil_scoped_release unlocked;
    table_->erase(k, n, s, stream);
  }
  void apply(const input_array& ops, const input_array& keys, const input_array& values_in,
             const output_array& values_out, const output_array& statuses, stream_handle stream) {
    const array_checker check{"Map.apply", device_};
    const std::size_t n = check.length_of(keys, key_);
    const void* k = check.input(keys, key_);
    const auto* o = static_cast<const operation*>(check.input(ops, {"ops", operation_type}, n));
    const void* v_in = check.input(values_in, value_, n);
    void* v_out = check.output(values_out, value_, n);
    auto* s = static_cast<status*>(check.output(statuses, {"statuses", status_type}, n));
    const nb::gil_scoped_release unlocked;
    table_->apply(o, k, v_in, v_out, n, s, stream);
  }
  std::size_t items(const output_array& keys, const output_array& values, stream_handle stream) {
    const array_checker check{"Map.items", device_};
    const std::size_t room = check.length_of(keys, key_);
    void* k = check.output(keys, key_, room);
    void* v = check.output(values, value_, room);
    const nb::gil_scoped_release unlocked;
    return table_->retrieve_all(k, v, room, stream);
  }

  void reserve(std::size_t n, stream_handle stream) {
    const nb::gil_scoped_release unlocked;
    table_->reserve(n, stream);
  }
  /// The reserved keys' bytes, one key after the other.
  nb::bytes reserved_keys() const {
    const auto bytes = table_->reserved_keys();
    return nb::bytes(bytes.data(), bytes.size());
  }
  /// A new ref's bytes (map_interface::ref_bytes).
  nb::bytes ref() {
    const auto bytes = table_->ref_bytes();
    return nb::bytes(bytes.data(), bytes.size());
  }

  std::vector<double> time_bulk_call(const std::string& call, const input_array& keys,
                                     const input_array& values, const output_array& found_values,
                                     const output_array& statuses, int repeats,
                                     stream_handle stream) {
    if (call != "insert" && call != "find")
      throw nb::value_error("gpuhash: time_bulk_call times 'insert' or 'find'");
    const array_checker check{"MapTable.time_bulk_call", device_};
    const std::size_t n = check.length_of(keys, key_);
    const void* k = check.input(keys, key_);
    const void* v = check.input(values, value_, n);
    void* out = check.output(found_values, {"found_values", value_.bytes}, n);
    auto* s = static_cast<status*>(check.output(statuses, {"statuses", status_type}, n));
    const nb::gil_scoped_release unlocked;
    return table_->time_bulk_call(call == "insert" ? bulk_call::insert : bulk_call::find, k, v, out,
                                  s, n, repeats, stream);
  }

 private:
  using write_member = void (map_interface::*)(const void*, const void*, std::size_t, status*,
                                               stream_handle);

  void write_batch(const char* call, write_member member, const input_array& keys,
                   const input_array& values, const output_array& statuses, stream_handle stream) {
    const array_checker check{call, device_};
    const std::size_t n = check.length_of(keys, key_);
    const void* k = check.input(keys, key_);
    const void* v = check.input(values, value_, n);
    auto* s = static_cast<status*>(check.output(statuses, {"statuses", status_type}, n));
    const nb::gil_scoped_release unlocked;
    ((*table_).*member)(k, v, n, s, stream);
  }

  item_rule key_;
  item_rule value_;
  device_spec device_;
};

/// gpuhash.HashGraphMap's and gpuhash.HashGraphSet's table (static HashGraph,
/// CSR segments); keys and values of one dtype each, of equal width.
class static_table {
 public:
  static_table(const std::string& key_dtype, const std::string& value_dtype,
               const std::string& device, int ordinal, bool is_set)
      : key_(element_type::parse_key_type(key_dtype, "key dtype")),
        value_(is_set ? key_ : element_type::parse_key_type(value_dtype, "value dtype")),
        device_(parse_device(device, ordinal)) {
    if (key_.bits != value_.bits)
      throw nb::value_error(("gpuhash: keys of " + key_.name() + " and values of " + value_.name() +
                             " differ in width; HashGraphMap takes 32/32 and 64/64-bit pairs")
                                .c_str());
    if (is_set)
      set_ = make_static_set(key_.bits, device_);
    else
      map_ = make_static_map(key_.bits, device_);
  }

  void build_map(const input_array& keys, const input_array& values, stream_handle stream) {
    const array_checker check{"HashGraphMap.build", device_};
    const std::size_t n = check.length_of(keys, "keys");
    const void* k = check.input(keys, {"keys", key_});
    const void* v = check.input(values, {"values", value_}, n);
    const nb::gil_scoped_release unlocked;
    map_->build(k, v, n, stream);
  }
  void build_set(const input_array& keys, stream_handle stream) {
    const array_checker check{"HashGraphSet.build", device_};
    const std::size_t n = check.length_of(keys, "keys");
    const void* k = check.input(keys, {"keys", key_});
    const nb::gil_scoped_release unlocked;
    set_->build(k, n, stream);
  }
  void find(const input_array& keys, const output_array& values, const output_array& found,
            bool binned_probe, stream_handle stream) const {
    const array_checker check{"HashGraphMap.find", device_};
    const std::size_t n = check.length_of(keys, "keys");
    const void* k = check.input(keys, {"keys", key_});
    void* v = check.output(values, {"values", value_}, n);
    auto* f = static_cast<bool*>(check.output(found, {"found", flag_type}, n));
    const nb::gil_scoped_release unlocked;
    map_->find(k, n, v, f, binned_probe, stream);
  }
  void contains(const input_array& keys, const output_array& found, bool binned_probe,
                stream_handle stream) const {
    const array_checker check{"HashGraphSet.contains", device_};
    const std::size_t n = check.length_of(keys, "keys");
    const void* k = check.input(keys, {"keys", key_});
    auto* f = static_cast<bool*>(check.output(found, {"found", flag_type}, n));
    const nb::gil_scoped_release unlocked;
    set_->contains(k, n, f, binned_probe, stream);
  }
  std::size_t size() const { return map_ ? map_->size() : set_->size(); }
  std::size_t memory_bytes() const { return map_ ? map_->memory_bytes() : set_->memory_bytes(); }

 private:
  element_type key_;
  element_type value_;
  device_spec device_;
  std::unique_ptr<static_map_interface> map_;
  std::unique_ptr<static_set_interface> set_;
};

template <class Enum>
std::vector<std::pair<std::string, int>> enum_names(int count) {
  std::vector<std::pair<std::string, int>> names;
  for (int value = 0; value < count; ++value)
    names.emplace_back(std::string(to_string(static_cast<Enum>(value))), value);
  return names;
}

}  // namespace

device_spec parse_device(const std::string& kind, int ordinal) {
  if (kind == "cpu") return {device_kind::cpu, 0};
  if (kind == "cuda") {
    if (ordinal < 0)
      throw nb::value_error(
          ("gpuhash: CUDA device ordinals start at 0, got " + std::to_string(ordinal)).c_str());
    return {device_kind::cuda, ordinal};
  }
  throw nb::value_error(
      ("gpuhash: device must be 'cpu', 'cuda' or 'cuda:N', got '" + kind + "'").c_str());
}

}  // namespace gpuhash::python

NB_MODULE(_gpuhash, m) {
  using namespace gpuhash::python;
  using namespace nb::literals;

  m.doc() = "gpuhash's tables; use them through the gpuhash package";

  nb::register_exception_translator([](const std::exception_ptr& error, void*) {
    try {
      std::rethrow_exception(error);
    } catch (const gpuhash::out_of_memory& e) {
      PyErr_SetString(PyExc_MemoryError, e.what());
    }
  });

  m.def("designs", &design_names, "The map designs, by name.");
  m.def(
      "map_shapes",
      [] {
        std::vector<std::tuple<std::string, std::size_t, std::size_t>> shapes;
        for (const auto& shape : map_shapes())
          shapes.emplace_back(shape.design, shape.widths.key, shape.widths.value);
        return shapes;
      },
      "(design, key bytes, value bytes) of every map MapTable makes.");
  m.def(
      "ref_types",
      [] {
        std::vector<std::tuple<std::string, std::size_t, std::size_t, std::string, std::string,
                               std::size_t, std::size_t>>
            types;
        for (const auto& type : ref_types())
          types.emplace_back(type.design, type.widths.key, type.widths.value, type.cuda_type,
                             type.header, type.bytes, type.alignment);
        return types;
      },
      "(design, key bytes, value bytes, C++ type, header, sizeof, alignof) of every map's ref "
      "that MapTable.ref gives.");
  m.def(
      "nvrtc_flags",
      [] {
        return std::vector<std::string>(gpuhash::nvrtc_options.begin(),
                                        gpuhash::nvrtc_options.end());
      },
      "NVRTC's options for kernels that use refs, besides the include folders "
      "(gpuhash/nvrtc_options.hpp).");
  m.def(
      "nvrtc_std_folder", [] { return std::string(gpuhash::nvrtc_std_folder); },
      "The folder under the headers' include folder that stands in for the standard headers "
      "under NVRTC.");
  m.def("built_with_cuda", &built_with_cuda);
  m.def("cuda_available", &cuda_available);
  m.def("status_names", [] { return enum_names<gpuhash::status>(gpuhash::status_count); });
  m.def("operation_names", [] {
    return enum_names<gpuhash::operation>(static_cast<int>(gpuhash::operation::erase) + 1);
  });
  m.def(
      "data_pointer",
      [](const input_array& array) { return reinterpret_cast<std::uintptr_t>(array.data()); },
      "array"_a, "The address the tables would read `array` at (no copy is made).");

  nb::class_<map_table> map(m, "MapTable");
  def_whole_table(map);
  map.def(nb::init<const std::string&, std::size_t, std::size_t, const std::string&, int,
                   std::optional<std::size_t>, float, std::optional<std::uint64_t>>(),
          "design"_a, "key_bytes"_a, "value_bytes"_a, "device"_a, "ordinal"_a, "capacity"_a.none(),
          "max_load_factor"_a, "seed"_a.none())
      .def("insert", &map_table::insert, "keys"_a, "values"_a, "statuses"_a, "stream"_a)
      .def("insert_or_assign", &map_table::insert_or_assign, "keys"_a, "values"_a, "statuses"_a,
           "stream"_a)
      .def("find", &map_table::find, "keys"_a, "values"_a, "found"_a, "stream"_a)
      .def("contains", &map_table::contains, "keys"_a, "found"_a, "stream"_a)
      .def("erase", &map_table::erase, "keys"_a, "statuses"_a, "stream"_a)
      .def("apply", &map_table::apply, "ops"_a, "keys"_a, "values_in"_a, "values_out"_a,
           "statuses"_a, "stream"_a)
      .def("items", &map_table::items, "keys"_a, "values"_a, "stream"_a)
      .def("reserve", &map_table::reserve, "n"_a, "stream"_a)
      .def_prop_ro("reserved_keys", &map_table::reserved_keys)
      .def("ref", &map_table::ref, "A new ref of the table, as its bytes.")
      .def("time_bulk_call", &map_table::time_bulk_call, "call"_a, "keys"_a, "values"_a,
           "found_values"_a, "statuses"_a, "repeats"_a, "stream"_a,
           "Seconds of each of `repeats` bare C++ calls (insert or find) on these arrays.");

  nb::class_<static_table>(m, "StaticTable")
      .def(nb::init<const std::string&, const std::string&, const std::string&, int, bool>(),
           "key_dtype"_a, "value_dtype"_a, "device"_a, "ordinal"_a, "is_set"_a)
      .def("build_map", &static_table::build_map, "keys"_a, "values"_a, "stream"_a)
      .def("build_set", &static_table::build_set, "keys"_a, "stream"_a)
      .def("find", &static_table::find, "keys"_a, "values"_a, "found"_a, "binned"_a, "stream"_a)
      .def("contains", &static_table::contains, "keys"_a, "found"_a, "binned"_a, "stream"_a)
      .def_prop_ro("size", &static_table::size)
      .def_prop_ro("memory_bytes", &static_table::memory_bytes);

  bind_string_table(m);
}
