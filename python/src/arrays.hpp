#pragma once
// Checks of the arrays that Python passes in, with messages a user can act
// on: one dimension, contiguous, on the table's device, of the table's dtype,
// of the keys' length. Arrays are never copied: a check returns the caller's
// own data pointer.

#include <nanobind/ndarray.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tables.hpp"

namespace gpuhash::python {

namespace nb = nanobind;

/// Any array that speaks DLPack or the buffer protocol; read-only ones are
/// accepted (the table only reads its inputs).
using input_array = nb::ndarray<nb::ro>;
/// An array the table writes (allocated by the Python layer).
using output_array = nb::ndarray<>;

/// An element type as DLPack describes it.
struct element_type {
  nb::dlpack::dtype_code code;
  std::uint8_t bits;

  /// "uint64", "int32", "bool", "float32", ...
  std::string name() const;
  /// Parses the dtype names the tables take: uint32, int32, uint64, int64.
  static element_type parse_key_type(std::string_view name, std::string_view what);
};

/// What a call expects of one array.
struct array_rule {
  std::string_view role;  ///< "keys", "values", "statuses", ...
  element_type type;      ///< the dtype it must have (bool also takes uint8)
};

/// What the checks read of an array.
struct array_facts {
  std::size_t ndim;
  std::size_t length;   ///< shape[0], for one dimension
  std::int64_t stride;  ///< stride[0] in elements, for one dimension
  nb::dlpack::dtype dtype;
  int device_type;
  int device_id;
  void* data;

  template <class Array>
  static array_facts of(const Array& array) {
    const bool flat = array.ndim() == 1;
    return {array.ndim(),
            flat ? static_cast<std::size_t>(array.shape(0)) : 0,
            flat ? static_cast<std::int64_t>(array.stride(0)) : 0,
            array.dtype(),
            array.device_type(),
            array.device_id(),
            const_cast<void*>(static_cast<const void*>(array.data()))};
  }
};

/// Who checks: the call's name for messages ("Map.insert") and the table's device.
struct array_checker {
  std::string_view call;
  device_spec device;

  /// The data of `array` after the checks; its length is `length` when set.
  const void* input(const input_array& array, const array_rule& rule,
                    std::optional<std::size_t> length = std::nullopt) const {
    return check(array_facts::of(array), rule, length);
  }
  void* output(const output_array& array, const array_rule& rule, std::size_t length) const {
    return check(array_facts::of(array), rule, length);
  }
  /// The length of a one-dimensional array (checks its shape and layout only).
  template <class Array>
  std::size_t length_of(const Array& array, std::string_view role) const {
    const auto facts = array_facts::of(array);
    check_shape(facts, role);
    return facts.length;
  }

 private:
  void* check(const array_facts& array, const array_rule& rule,
              std::optional<std::size_t> length) const;
  void check_shape(const array_facts& array, std::string_view role) const;
  [[noreturn]] void fail_type(const std::string& message) const;
  [[noreturn]] void fail_value(const std::string& message) const;
};

}  // namespace gpuhash::python
