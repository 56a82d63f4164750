#pragma once
// The maps whose refs (gpuhash/map_ref.hpp) Python hands to kernels compiled
// at run time (gpuhash.DeviceRef): a kernel declares its parameter by the
// ref's C++ name, so a map has a DeviceRef where its ref type has a public
// name of its own, with key and value types a kernel can name: linear
// probing (gpuhash/linear_probing_ref.hpp) and bucketed cuckoo
// (gpuhash/bucketed_cuckoo_ref.hpp) with keys and values of 4 or 8 bytes,
// which the tables store as std::uint32_t and std::uint64_t whatever their
// dtype. The name is given only where the map's ref_type is that type, so
// that the bytes Python copies are the object the kernel reads.

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "gpuhash/bucketed_cuckoo_ref.hpp"
#include "gpuhash/linear_probing_ref.hpp"
#include "tables.hpp"

namespace gpuhash::python {

/// How a kernel names a key or value type; empty for those it cannot name
/// (the 16-byte items and rows of key_type_maps.hpp are the extension's own).
template <class T>
inline constexpr std::string_view cuda_type_name{};
template <>
inline constexpr std::string_view cuda_type_name<std::uint32_t> = "std::uint32_t";
template <>
inline constexpr std::string_view cuda_type_name<std::uint64_t> = "std::uint64_t";

/// The public alias template that names Map's ref type, and its header;
/// empty where there is none a kernel can use.
struct ref_alias {
  std::string_view name;
  std::string_view header;
};
template <class Map>
constexpr ref_alias ref_alias_of() {
  using key_type = typename Map::key_type;
  using mapped_type = typename Map::mapped_type;
  using ref_type = typename Map::ref_type;
  if constexpr (cuda_type_name<key_type>.empty() || cuda_type_name<mapped_type>.empty())
    return {};
  else if constexpr (std::is_same_v<ref_type, linear_probing_ref<key_type, mapped_type>>)
    return {"gpuhash::linear_probing_ref", "gpuhash/linear_probing_ref.hpp"};
  else if constexpr (std::is_same_v<ref_type, bucketed_cuckoo_ref<key_type, mapped_type>>)
    return {"gpuhash::bucketed_cuckoo_ref", "gpuhash/bucketed_cuckoo_ref.hpp"};
  else
    return {};
}

/// Whether Python hands out refs of Map.
template <class Map>
inline constexpr bool has_named_ref = !ref_alias_of<Map>().name.empty();

/// Map's ref type as a kernel names it.
template <class Map>
requires has_named_ref<Map> ref_type_info named_ref_type() {
  using key_type = typename Map::key_type;
  using mapped_type = typename Map::mapped_type;
  using ref_type = typename Map::ref_type;
  static_assert(std::is_trivially_copyable_v<ref_type>, "a ref is passed to kernels by its bytes");
  constexpr ref_alias alias = ref_alias_of<Map>();
  return {std::string(Map::design_name),
          {sizeof(key_type), sizeof(mapped_type)},
          std::string(alias.name) + "<" + std::string(cuda_type_name<key_type>) + ", " +
              std::string(cuda_type_name<mapped_type>) + ">",
          std::string(alias.header),
          sizeof(ref_type),
          alignof(ref_type)};
}

}  // namespace gpuhash::python
