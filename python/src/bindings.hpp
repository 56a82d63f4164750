#pragma once
// What the extension's binding files share: the dtypes of the arrays a
// batch writes, the parsing of a table's device, the calls over a whole
// growing table, and the bindings that live outside module.cpp.

#include <nanobind/nanobind.h>

#include <cstddef>
#include <memory>
#include <string>

#include "arrays.hpp"
#include "tables.hpp"

namespace gpuhash::python {

inline constexpr element_type status_type{nb::dlpack::dtype_code::UInt, 8};
inline constexpr element_type flag_type{nb::dlpack::dtype_code::Bool, 8};

/// "cpu", or "cuda" with its ordinal; raises ValueError for anything else.
device_spec parse_device(const std::string& kind, int ordinal);

/// The calls over a whole table that Map's and StringMap's tables share,
/// each with the GIL released (a call may wait for another thread's batch).
template <class Interface>
class whole_table {
 public:
  std::size_t size(stream_handle stream) {
    const nb::gil_scoped_release unlocked;
    return table_->size(stream);
  }
  void clear(stream_handle stream) {
    const nb::gil_scoped_release unlocked;
    table_->clear(stream);
  }
  std::size_t capacity() const {
    const nb::gil_scoped_release unlocked;
    return table_->capacity();
  }
  std::size_t memory_bytes() const {
    const nb::gil_scoped_release unlocked;
    return table_->memory_bytes();
  }
  float max_load_factor() const { return table_->max_load_factor(); }

 protected:
  std::unique_ptr<Interface> table_;  ///< made by the derived table's constructor
};

/// Binds whole_table's calls of `Table` (a whole_table).
template <class Table>
void def_whole_table(nb::class_<Table>& table) {
  using namespace nb::literals;
  table
      .def(
          "size", [](Table& t, stream_handle stream) { return t.size(stream); }, "stream"_a)
      .def(
          "clear", [](Table& t, stream_handle stream) { t.clear(stream); }, "stream"_a)
      .def_prop_ro("capacity", [](const Table& t) { return t.capacity(); })
      .def_prop_ro("memory_bytes", [](const Table& t) { return t.memory_bytes(); })
      .def_prop_ro("max_load_factor", [](const Table& t) { return t.max_load_factor(); });
}

/// gpuhash.StringMap's table (string_table.cpp).
void bind_string_table(nb::module_& m);

}  // namespace gpuhash::python
