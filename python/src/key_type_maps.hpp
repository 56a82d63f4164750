#pragma once
// The maps gpuhash.Map takes beyond the library's precompiled 4/4- and
// 8/8-byte tables (docs/key_types.md): linear probing, dynamic HashGraph
// (CSR buckets, the design named "hashgraph") and bucketed cuckoo with keys
// and values of 4, 8 or 16 bytes each, and linear probing and dynamic
// HashGraph also with 8-byte keys and rows of 32, 64 or 128 bytes (8, 16 or
// 32 float32; bucketed cuckoo takes no wide values). A key or value is
// stored by its width, whatever its dtype: float32 and uint32 values share
// one table type. Each pair is a template instantiation per backend, so the
// list is kept short: three designs (the others, and HashGraph's Ellpack
// layouts, stay at the precompiled pairs), and rows only with 8-byte keys.
//
// These tables are header-only. Each list below is instantiated in its own
// pair of files, one per backend, after the *_impl.hpp headers, so that the
// two compile side by side (build times: docs/results/python.md, "Key types
// with bucketed cuckoo"): linear_probing_and_hashgraph_maps in
// key_type_maps_cpu.cpp and key_type_maps_cuda.cu (nvcc),
// bucketed_cuckoo_key_type_maps in key_type_maps_bucketed_cuckoo_cpu.cpp and
// key_type_maps_bucketed_cuckoo_cuda.cu. tables.cpp reads key_type_maps for
// names and widths only.

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "gpuhash/bucketed_cuckoo_map.hpp"
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

/// `Table` at the pairs of 4-, 8- and 16-byte keys and values beyond the
/// library's precompiled 4/4 and 8/8.
template <template <class, class, class> class Table>
using word_pairs = typename concat<with_values<Table, 4, 8, 16>, with_values<Table, 8, 4, 16>,
                                   with_values<Table, 16, 4, 8, 16>>::type;

/// `Table` with 8-byte keys (the embedding tables' int64 ids) and rows.
template <template <class, class, class> class Table>
using row_pairs = with_values<Table, 8, 32, 64, 128>;

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

/// Linear probing and dynamic HashGraph (CSR), rows included.
using linear_probing_and_hashgraph_maps = typename detail::concat<
    detail::word_pairs<linear_probing_map>, detail::row_pairs<linear_probing_map>,
    detail::word_pairs<hashgraph_csr_map>, detail::row_pairs<hashgraph_csr_map>>::type;
/// Bucketed cuckoo, which takes no rows (its eviction walks move pairs
/// between slots, which wide values' per-slot versions do not cover).
using bucketed_cuckoo_key_type_maps = detail::word_pairs<bucketed_cuckoo_map>;

/// The maps of this file, as support/designs.hpp lists the precompiled ones.
using key_type_maps =
    typename detail::concat<linear_probing_and_hashgraph_maps, bucketed_cuckoo_key_type_maps>::type;

}  // namespace gpuhash::python
