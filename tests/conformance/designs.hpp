#pragma once
// The registry of designs under test. A new design adds one line per key/value
// width to registered_designs and gets the whole conformance suite on every
// backend, and the CPU-versus-GPU agreement test.

#include <gtest/gtest.h>

#include <cstdint>

#include "gpuhash/linear_probing_map.hpp"

namespace gpuhash::testing {

/// One design at one key/value width, not yet bound to a backend.
template <template <class, class, class> class Table, class Key, class Value>
struct design_instance {
  template <class Backend>
  using on = Table<Key, Value, Backend>;
};

template <class... Instances>
struct instance_list {
  template <class Backend>
  using tables = ::testing::Types<typename Instances::template on<Backend>...>;
  using instances = ::testing::Types<Instances...>;
};

using registered_designs =
    instance_list<design_instance<linear_probing_map, std::uint32_t, std::uint32_t>,
                  design_instance<linear_probing_map, std::uint64_t, std::uint64_t>>;

template <class Backend>
using conformance_tables = registered_designs::tables<Backend>;

}  // namespace gpuhash::testing
