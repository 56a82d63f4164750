#pragma once
// Checks of the arrays that Python passes in, with messages a user can act
// on: one dimension (or rows, for a map's keys and values), contiguous, on
// the table's device, of the table's dtype or width, of the keys' length.
// Arrays are never copied: a check returns the caller's own data pointer.

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

/// What a call expects of a map's keys or values: items of `bytes` bytes
/// each, passed as their bits (the Python package views any dtype as
/// integers of its width): a one-dimensional array of integers of that
/// width, or a two-dimensional one whose contiguous rows of integers are the
/// items (a 16-byte key as two 64-bit integers, an embedding row of 32
/// float32 as 32 32-bit ones), starting at a multiple of the item's width
/// (of 4 bytes for rows wider than 16).
struct item_rule {
  std::string_view role;
  std::size_t bytes;
};

/// What the checks read of an array.
struct array_facts {
  std::size_t ndim;
  std::size_t length;       ///< shape[0], for one or two dimensions
  std::int64_t stride;      ///< stride[0] in elements, for one or two dimensions
  std::size_t row_length;   ///< shape[1] for two dimensions, else 1
  std::int64_t row_stride;  ///< stride[1] in elements for two dimensions, else 1
  nb::dlpack::dtype dtype;
  int device_type;
  int device_id;
  void* data;

  template <class Array>
  static array_facts of(const Array& array) {
    const bool flat = array.ndim() == 1;
    const bool rows = array.ndim() == 2;
    return {array.ndim(),
            flat || rows ? static_cast<std::size_t>(array.shape(0)) : 0,
            flat || rows ? static_cast<std::int64_t>(array.stride(0)) : 0,
            rows ? static_cast<std::size_t>(array.shape(1)) : 1,
            rows ? static_cast<std::int64_t>(array.stride(1)) : 1,
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
  /// The same for a map's keys or values.
  const void* input(const input_array& array, const item_rule& rule,
                    std::optional<std::size_t> length = std::nullopt) const {
    return check(array_facts::of(array), rule, length);
  }
  void* output(const output_array& array, const item_rule& rule, std::size_t length) const {
    return check(array_facts::of(array), rule, length);
  }
  /// The number of items in an array of keys or values (checks its shape,
  /// layout and width only).
  template <class Array>
  std::size_t length_of(const Array& array, const item_rule& rule) const {
    const auto facts = array_facts::of(array);
    check_items(facts, rule);
    return facts.length;
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
  void* check(const array_facts& array, const item_rule& rule,
              std::optional<std::size_t> length) const;
  void check_shape(const array_facts& array, std::string_view role) const;
  void check_items(const array_facts& array, const item_rule& rule) const;
  void check_place(const array_facts& array, std::string_view role) const;
  void check_length(const array_facts& array, std::string_view role,
                    std::optional<std::size_t> length) const;
  [[noreturn]] void fail_type(const std::string& message) const;
  [[noreturn]] void fail_value(const std::string& message) const;
};

}  // namespace gpuhash::python
