#pragma once
// The registry of designs, shared by the conformance suite and gpuhash-bench.
// A new design adds one line per key/value width to registered_designs: the
// tests then run it on every backend and the benchmark can select it.

#include <cstdint>

#include "gpuhash/bucketed_cuckoo_map.hpp"
#include "gpuhash/cuckoo_node_map.hpp"
#include "gpuhash/dachash_map.hpp"
#include "gpuhash/hashgraph_dynamic_map.hpp"
#include "gpuhash/linear_probing_map.hpp"

namespace gpuhash::support {

template <class... Types>
struct type_list {};

/// One design at one key/value width, not yet bound to a backend.
template <template <class, class, class> class Table, class Key, class Value>
struct design_instance {
  template <class Backend>
  using on = Table<Key, Value, Backend>;
};

using registered_designs =
    type_list<design_instance<linear_probing_map, std::uint32_t, std::uint32_t>,
              design_instance<linear_probing_map, std::uint64_t, std::uint64_t>,
              design_instance<bucketed_cuckoo_map, std::uint32_t, std::uint32_t>,
              design_instance<bucketed_cuckoo_map, std::uint64_t, std::uint64_t>,
              design_instance<dachash_map, std::uint32_t, std::uint32_t>,
              design_instance<dachash_map, std::uint64_t, std::uint64_t>,
              design_instance<dachash_paper_map, std::uint32_t, std::uint32_t>,
              design_instance<dachash_paper_map, std::uint64_t, std::uint64_t>,
              design_instance<dachash_slab_map, std::uint32_t, std::uint32_t>,
              design_instance<dachash_slab_map, std::uint64_t, std::uint64_t>,
              design_instance<hashgraph_csr_map, std::uint32_t, std::uint32_t>,
              design_instance<hashgraph_csr_map, std::uint64_t, std::uint64_t>,
              design_instance<hashgraph_ellpack_map, std::uint32_t, std::uint32_t>,
              design_instance<hashgraph_ellpack_map, std::uint64_t, std::uint64_t>,
              design_instance<hashgraph_sliced_ellpack_map, std::uint32_t, std::uint32_t>,
              design_instance<hashgraph_sliced_ellpack_map, std::uint64_t, std::uint64_t>,
              design_instance<cuckoo_node_map, std::uint32_t, std::uint32_t>,
              design_instance<cuckoo_node_map, std::uint64_t, std::uint64_t>,
              design_instance<cuckoo_node_paper_map, std::uint32_t, std::uint32_t>,
              design_instance<cuckoo_node_paper_map, std::uint64_t, std::uint64_t>,
              design_instance<cuckoo_node_local_map, std::uint32_t, std::uint32_t>,
              design_instance<cuckoo_node_local_map, std::uint64_t, std::uint64_t>>;

/// Calls f.template operator()<T>() for each T of a type_list.
template <class... Types, class F>
void for_each_type(type_list<Types...>, F&& f) {
  (f.template operator()<Types>(), ...);
}

}  // namespace gpuhash::support
