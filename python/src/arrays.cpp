#include "arrays.hpp"

#include <stdexcept>

namespace gpuhash::python {

namespace {

using code = nb::dlpack::dtype_code;

std::string device_name(int device_type, int device_id) {
  switch (device_type) {
    case nb::device::cpu::value: return "cpu";
    case nb::device::cuda::value: return "cuda:" + std::to_string(device_id);
    case nb::device::cuda_host::value: return "cuda_host (page-locked host memory)";
    case nb::device::cuda_managed::value: return "cuda_managed (managed memory)";
    default: return "DLPack device type " + std::to_string(device_type);
  }
}

std::string table_device_name(device_spec device) {
  return device.kind == device_kind::cpu ? "the CPU" : "cuda:" + std::to_string(device.ordinal);
}

bool reachable(device_spec table, int device_type, int device_id) {
  if (device_type == nb::device::cuda_managed::value) return true;
  if (table.kind == device_kind::cpu)
    return device_type == nb::device::cpu::value || device_type == nb::device::cuda_host::value;
  return device_type == nb::device::cuda::value && device_id == table.ordinal;
}

bool is_code(nb::dlpack::dtype actual, code wanted) {
  return actual.code == static_cast<std::uint8_t>(wanted);
}

bool same_type(nb::dlpack::dtype actual, element_type expected) {
  if (actual.lanes != 1 || actual.bits != expected.bits) return false;
  if (is_code(actual, expected.code)) return true;
  // Keys and values are stored as their bits: either signedness of the
  // table's width passes here (the Python package checks the exact dtype and
  // hands PyTorch's unsigned tensors over as signed views, which every
  // PyTorch can export through DLPack).
  if (expected.bits >= 32 && (expected.code == code::Int || expected.code == code::UInt))
    return is_code(actual, code::Int) || is_code(actual, code::UInt);
  // Flags: DLPack producers before its bool type describe bool as uint8.
  return expected.code == code::Bool && is_code(actual, code::UInt);
}

}  // namespace

std::string element_type::name() const {
  const std::string width = std::to_string(bits);
  switch (code) {
    case code::Int: return "int" + width;
    case code::UInt: return "uint" + width;
    case code::Float: return "float" + width;
    case code::Bfloat: return "bfloat" + width;
    case code::Complex: return "complex" + width;
    case code::Bool: return "bool";
    default:
      return "DLPack type code " + std::to_string(static_cast<int>(code)) + " of " + width +
             " bits";
  }
}

element_type element_type::parse_key_type(std::string_view name, std::string_view what) {
  if (name == "uint32") return {code::UInt, 32};
  if (name == "int32") return {code::Int, 32};
  if (name == "uint64") return {code::UInt, 64};
  if (name == "int64") return {code::Int, 64};
  throw nb::type_error((std::string("gpuhash: ") + std::string(what) + " must be one of uint32, " +
                        "int32, uint64, int64, got '" + std::string(name) + "'")
                           .c_str());
}

void array_checker::check_shape(const array_facts& array, std::string_view role) const {
  const std::string who(role);
  if (array.ndim != 1)
    fail_value(who + " must be one-dimensional, got " + std::to_string(array.ndim) +
               " dimensions: flatten them (" + who + ".ravel(), or " + who + ".reshape(-1))");
  if (array.length > 1 && array.stride != 1)
    fail_value(who + " are not contiguous (a stride of " + std::to_string(array.stride) +
               " elements): pass a contiguous copy (numpy.ascontiguousarray(" + who +
               "), cupy.ascontiguousarray(" + who + ") or " + who + ".contiguous() in PyTorch)");
}

void array_checker::check_items(const array_facts& array, const item_rule& rule) const {
  const std::string who(rule.role);
  const std::string width = std::to_string(rule.bytes) + " bytes";
  const std::size_t element_bytes = array.dtype.bits / 8;
  if (array.ndim == 1 && element_bytes == rule.bytes) return check_shape(array, rule.role);
  if (array.ndim == 2 && element_bytes * array.row_length == rule.bytes) {
    // Rows: each item's elements next to each other, and the items too. An
    // array of no items has nothing to lay out (CuPy gives its empty rows
    // strides of 0).
    if (array.length > 0 &&
        ((array.row_length > 1 && array.row_stride != 1) ||
         (array.length > 1 && array.stride != static_cast<std::int64_t>(array.row_length))))
      fail_value(who + " are not contiguous rows (strides of " + std::to_string(array.stride) +
                 " and " + std::to_string(array.row_stride) +
                 " elements): pass a contiguous copy (numpy.ascontiguousarray(" + who +
                 "), cupy.ascontiguousarray(" + who + ") or " + who + ".contiguous() in PyTorch)");
    return;
  }
  if (array.ndim == 1)
    fail_type(who + " have elements of " + std::to_string(element_bytes) +
              " bytes but this table's " + who + " have " + width +
              ": pass them in the table's dtype");
  if (element_bytes == rule.bytes) check_shape(array, rule.role);
  if (array.ndim == 2)
    fail_value(who + " have rows of " + std::to_string(array.row_length) + " elements of " +
               std::to_string(element_bytes) + " bytes but this table's " + who + " have " + width +
               ": pass one row of " + width + " per item");
  fail_value(who + " must be one-dimensional, or rows of " + width + ", got " +
             std::to_string(array.ndim) + " dimensions");
}

void array_checker::check_place(const array_facts& array, std::string_view role) const {
  if (reachable(device, array.device_type, array.device_id)) return;
  const std::string who(role);
  const std::string where = device_name(array.device_type, array.device_id);
  if (device.kind == device_kind::cpu)
    fail_value(who + " are on " + where + " but this table is on the CPU: copy them to host " +
               "memory (cupy.asnumpy(" + who + "), " + who +
               ".cpu() in PyTorch) or create the table on that device");
  if (array.device_type == nb::device::cuda::value)
    fail_value(who + " are on " + where + " but this table is on " + table_device_name(device) +
               ": use arrays of the table's GPU");
  fail_value(who + " are on " + where + " but this table is on " + table_device_name(device) +
             ": copy them to that GPU (cupy.asarray(" + who + "), " + who + ".cuda() in PyTorch)");
}

void array_checker::check_length(const array_facts& array, std::string_view role,
                                 std::optional<std::size_t> length) const {
  if (length && array.length != *length)
    fail_value(std::string(role) + " have " + std::to_string(array.length) +
               " elements but keys have " + std::to_string(*length) + ": pass one per key");
}

void* array_checker::check(const array_facts& array, const array_rule& rule,
                           std::optional<std::size_t> length) const {
  const std::string who(rule.role);
  check_shape(array, rule.role);
  check_place(array, rule.role);
  if (!same_type(array.dtype, rule.type)) {
    const element_type actual{static_cast<code>(array.dtype.code), array.dtype.bits};
    const std::string wanted = rule.type.name();
    fail_type(who + " have dtype " + actual.name() + " but this call takes " + wanted +
              ": convert them (" + who + ".astype('" + wanted + "') in NumPy or CuPy, " + who +
              ".to(torch." + wanted + ") in PyTorch)" +
              (rule.type.bits >= 32 ? " or create the table with their dtype" : ""));
  }
  check_length(array, rule.role, length);
  return array.data;
}

void* array_checker::check(const array_facts& array, const item_rule& rule,
                           std::optional<std::size_t> length) const {
  const std::string who(rule.role);
  check_items(array, rule);
  check_place(array, rule.role);
  if (array.dtype.lanes != 1 ||
      !(is_code(array.dtype, code::Int) || is_code(array.dtype, code::UInt))) {
    const element_type actual{static_cast<code>(array.dtype.code), array.dtype.bits};
    fail_type(who + " have dtype " + actual.name() +
              " but the table reads them as their bits: pass them as integers of the same width "
              "(a view, such as " +
              who + ".view('uint32') for float32)");
  }
  check_length(array, rule.role, length);
  // The table reads an item as one value of its width's type
  // (key_type_maps.hpp's item_of): aligned to its width up to 16 bytes, rows
  // to their 4-byte words.
  const std::size_t alignment = rule.bytes <= 16 ? rule.bytes : 4;
  if (array.length > 0 && reinterpret_cast<std::uintptr_t>(array.data) % alignment != 0)
    fail_value(who + " start at an address that is not a multiple of " + std::to_string(alignment) +
               " bytes: pass a copy (" + who + ".copy())");
  return array.data;
}

void array_checker::fail_type(const std::string& message) const {
  throw nb::type_error(("gpuhash: " + std::string(call) + ": " + message).c_str());
}

void array_checker::fail_value(const std::string& message) const {
  throw nb::value_error(("gpuhash: " + std::string(call) + ": " + message).c_str());
}

}  // namespace gpuhash::python
