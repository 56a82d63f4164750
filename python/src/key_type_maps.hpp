#pragma once
// The maps gpuhash.Map takes beyond the library's precompiled 4/4- and
// 8/8-byte tables (docs/key_types.md): linear probing and dynamic HashGraph
// (CSR buckets, the design named "hashgraph") with keys and values of 4, 8
// or 16 bytes each, and 8-byte keys with rows of 32, 64 or 128 bytes (8, 16
// or 32 float32). A key or value is stored by its width, whatever its dtype:
// float32 and uint32 values share one table type. Each pair is a template
// instantiation per backend, so the list is kept short: two designs (the
// others, and HashGraph's Ellpack layouts, stay at the precompiled pairs),
// and rows only with 8-byte keys.
//
// These tables are header-only: key_type_maps_cpu.cpp and
// key_type_maps_cuda.cu (nvcc) instantiate them, each for its backend, after
// the *_impl.hpp headers; tables.cpp reads the list for names and widths only.

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/hashgraph_dynamic_map.hpp"
#include "gpuhash/linear_probing_map.hpp"
#include "support/designs.hpp"
#include "tables.hpp"

namespace gpuhash::python {

/// A 16-byte key or value, as its bytes. 16-byte aligned: the tables read
/// and write arrays of them as 16-byte words (retrieve_all, dynamic
/// HashGraph's finds in bucket order), so such an array starts at a multiple
/// of 16 bytes, as NumPy, CuPy and PyTorch allocate them.
struct alignas(16) bytes16 {
  std::uint64_t words[2];
};

/// A wide value (an embedding row), as its bytes: Bytes / 4 words.
template <std::size_t Bytes>
struct row_bytes {
  static_assert(Bytes > 16 && Bytes % 4 == 0, "a row is wider than 16 bytes, of whole words");
  std::uint32_t words[Bytes / 4];
};

/// The type a key or value of `Bytes` bytes is stored as.
template <std::size_t Bytes>
using item_of = std::conditional_t<
    Bytes == 4, std::uint32_t,
    std::conditional_t<Bytes == 8, std::uint64_t,
                       std::conditional_t<Bytes == 16, bytes16, row_bytes<Bytes>>>>;

namespace detail {

template <class... Lists>
struct concat;
template <class... Types>
struct concat<support::type_list<Types...>> {
  using type = support::type_list<Types...>;
};
template <class... First, class... Second, class... Rest>
struct concat<support::type_list<First...>, support::type_list<Second...>, Rest...>
    : concat<support::type_list<First..., Second...>, Rest...> {};

/// `Table` with keys of KeyBytes and values of each of ValueBytes.
template <template <class, class, class> class Table, std::size_t KeyBytes,
          std::size_t... ValueBytes>
using with_values =
    support::type_list<support::design_instance<Table, item_of<KeyBytes>, item_of<ValueBytes>>...>;

/// `Table` at the pairs Python takes beyond the library's precompiled 4/4
/// and 8/8: rows only with 8-byte keys (the embedding tables' int64 ids).
template <template <class, class, class> class Table>
using key_type_pairs =
    typename concat<with_values<Table, 4, 8, 16>, with_values<Table, 8, 4, 16, 32, 64, 128>,
                    with_values<Table, 16, 4, 8, 16>>::type;

}  // namespace detail

/// The design and widths of Design (a support::design_instance), for the
/// searches of this list and of the registry (support/designs.hpp).
struct design_shape {
  std::string_view design;
  item_widths widths;
  bool is(std::string_view name, item_widths other) const {
    return design == name && widths.key == other.key && widths.value == other.value;
  }
};
template <class Design>
constexpr design_shape shape_of() {
  using map_type = typename Design::template on<cpu_backend>;
  return {map_type::design_name,
          {sizeof(typename map_type::key_type), sizeof(typename map_type::mapped_type)}};
}

/// The maps of this file, as support/designs.hpp lists the precompiled ones.
using key_type_maps = typename detail::concat<detail::key_type_pairs<linear_probing_map>,
                                              detail::key_type_pairs<hashgraph_csr_map>>::type;

}  // namespace gpuhash::python
